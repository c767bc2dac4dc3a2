"""Bad input on every command: one line on stderr naming the file (and line), exit 2, no traceback,
no output file left behind, the inputs untouched, never a silent wrong answer."""

import json
import os
import stat

import pytest

from tests.commands.test_cli_basics import run_cli

TRAIN = "a,b,y\n" + "".join(f"{i},{(i * 7) % 5},{'yes' if i > 4 else 'no'}\n" for i in range(10))


@pytest.fixture
def files(tmp_path, capsys):
    """A small training CSV and the model learned from it."""
    data = tmp_path / "train.csv"
    data.write_text(TRAIN)
    model = tmp_path / "m.json"
    code, _, err = run_cli(["fit", data, "--target", "y", "-o", model, "-q"], capsys)
    assert code == 0, err
    return tmp_path, data, model


def one_line_error(code, err, *needles):
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("rulekit: ") and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


def leftovers(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# --- output paths -------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["export", "predict", "show", "rules", "import", "fit"])
@pytest.mark.parametrize("where", ["directory", "missing-dir", "unwritable"])
def test_bad_output_path_is_one_line(files, capsys, command, where):
    tmp, data, model = files
    if where == "directory":
        out = tmp
    elif where == "missing-dir":
        out = tmp / "nope" / "x.out"
    else:
        if not os.path.isdir("/proc/self"):
            pytest.skip("needs /proc")
        out = "/proc/x"  # exists as a directory, refuses new files even to root
    xgb = tmp / "xgb.json"
    if command == "import":
        xgboost = pytest.importorskip("xgboost")
        xgboost.XGBClassifier(n_estimators=1, max_depth=1).fit([[0.0], [1.0]], [0, 1]).save_model(xgb)
    args = {"export": ["export", model, "--to", "python"], "predict": ["predict", model, data],
            "show": ["show", model], "rules": ["rules", model],
            "import": ["import", xgb, "--format", "xgboost"],
            "fit": ["fit", data, "--target", "y"]}[command]
    code, out_text, err = run_cli(args + ["-o", out], capsys)
    one_line_error(code, err, "cannot write")
    assert out_text == "" and leftovers(tmp) == []


def test_output_that_is_an_input_is_refused(files, capsys):
    tmp, data, model = files
    before = (data.read_bytes(), model.read_bytes())
    for args in (["predict", model, data, "-o", data], ["export", model, "--to", "python", "-o", model],
                 ["show", model, "-o", tmp / "." / "m.json"], ["rules", model, "-o", model],
                 ["fit", data, "--target", "y", "-o", data]):
        code, _, err = run_cli(args, capsys)
        one_line_error(code, err, "is also the input")
    assert (data.read_bytes(), model.read_bytes()) == before


def test_written_files_get_the_usual_mode_not_0600(files, capsys):
    tmp, _, model = files
    umask = os.umask(0o022)
    try:
        out = tmp / "m.py"
        assert run_cli(["export", model, "--to", "python", "-o", out, "-q"], capsys)[0] == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        out.chmod(0o600)  # replacing a file keeps its mode
        assert run_cli(["export", model, "--to", "python", "-o", out, "-q"], capsys)[0] == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o600
    finally:
        os.umask(umask)


def test_export_through_a_symlink_replaces_its_target(files, capsys):
    tmp, _, model = files
    target = tmp / "real.py"
    target.write_text("old")
    link = tmp / "link.py"
    link.symlink_to(target)
    assert run_cli(["export", model, "--to", "python", "-o", link, "-q"], capsys)[0] == 0
    assert link.is_symlink() and "def predict" in target.read_text()


def test_predict_and_show_dash_means_stdout(files, capsys):
    tmp, data, model = files
    code, out, _ = run_cli(["predict", model, data, "-o", "-"], capsys)
    assert code == 0 and out.startswith("prediction\n")
    code, out, _ = run_cli(["show", model, "-o", "-"], capsys)
    assert code == 0 and out and not (tmp / "-").exists()


def test_demo_out_that_is_a_file(files, capsys):
    _, _, model = files
    code, _, err = run_cli(["demo", "--out", model, "-q"], capsys)
    one_line_error(code, err, "not a directory")


# --- CSV input ----------------------------------------------------------------------------------

CSV_CASES = {
    "empty": ("", "empty file"),
    "blank header": ("\n1,2\n", ":1: the header row is empty"),
    "duplicate column": ("a,b,a\n1,2,3\n", ":1: column 'a' appears twice"),
    # the model splits on 'a' only: a missing or misnamed 'b' is no error for predict/verify
    "missing column": ("b,y\n1,no\n", ":1: no column 'a'"),
    "semicolons": ("a;b\n1;2\n", "comma-separated"),
    "spaces in name": (" a,b\n1,2\n", "' a' (spaces"),
    "text in a number": ("a,b,y\n1,2,no\n3,4,no\n5,x y,yes\n",
                         ":4: column 'b' (field 2): 'x y' is not a number"),
    "ragged": ("a,b\n1,2\n1\n", ":3: 1 field, the header has 2"),
    "not utf-8": (b"a,b\n\xff,1\n", "not UTF-8"),
}


@pytest.mark.parametrize("case", sorted(CSV_CASES))
@pytest.mark.parametrize("command", ["predict", "verify", "rules"])
def test_bad_csv_is_located(files, capsys, case, command):
    tmp, _, model = files
    content, needle = CSV_CASES[case]
    bad = tmp / "bad.csv"
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    args = {"predict": ["predict", model, bad], "verify": ["verify", model, bad, "--backends", "python"],
            "rules": ["rules", model, "--prune-data", bad, "-o", tmp / "r.rules"]}[command]
    code, out, err = run_cli(args, capsys)
    one_line_error(code, err, str(bad), needle)
    assert out == "" and not (tmp / "r.rules").exists()


def test_duplicate_column_is_never_silently_resolved(files, capsys):
    """Two 'b' columns: the model must not pick one of them silently."""
    tmp, _, model = files
    bad = tmp / "dup.csv"
    bad.write_text("a,b,b\n1,0,9\n")
    code, _, err = run_cli(["predict", model, bad], capsys)
    one_line_error(code, err, "appears twice")


def test_not_a_number_names_the_right_line_in_a_later_chunk(files, capsys, monkeypatch):
    from rulekit.commands import predict as predict_cmd

    tmp, _, model = files
    bad = tmp / "big.csv"
    bad.write_text("a,b\n" + "1,2\n" * 25 + "1,oops\n")
    monkeypatch.setattr(predict_cmd, "CHUNK_ROWS", 10)
    code, _, err = run_cli(["predict", model, bad], capsys)
    one_line_error(code, err, f"{bad}:27:", "'oops'")


def test_long_cells_are_data_not_malformed(files, capsys):
    tmp, _, model = files
    wide = tmp / "wide.csv"
    wide.write_text("a,b,note\n1,2," + "x" * 200_000 + "\n")
    code, out, err = run_cli(["predict", model, wide], capsys)
    assert code == 0, err
    assert out.splitlines()[1] in ("yes", "no")


# --- fit ----------------------------------------------------------------------------------------

def test_fit_quiet_leaves_out_rows_without_a_target(tmp_path, capsys):
    """-q used to skip the leaving-out itself: a class 'None' was learned (or a crash, numeric y)."""
    text = tmp_path / "t.csv"
    text.write_text(TRAIN + "3,3,\n4,4,\n")
    num = tmp_path / "n.csv"
    num.write_text("a,y\n1,1\n2,2\n3,\n4,1\n5,2\n")
    for data in (text, num):
        out = tmp_path / "m.json"
        code, stdout, err = run_cli(["fit", data, "--target", "y", "-o", out, "-q"], capsys)
        assert code == 0 and stdout == "" and err == "", err
        classes = json.loads(out.read_text())["classes"]
        assert None not in classes and "None" not in classes and len(classes) == 2


@pytest.mark.parametrize("value,task", [("nan", "regression"), ("inf", "regression"),
                                        ("abc", "regression"), ("nan", "classification")])
def test_fit_rejects_a_non_finite_numeric_target_with_its_line(tmp_path, capsys, value, task):
    data = tmp_path / "t.csv"
    data.write_text(f"a,y\n1,1.5\n2,2.5\n3,{value}\n")
    # 'nan' is one of pandas' NA strings (a missing target, left out): read it as text here
    code, _, err = run_cli(["fit", data, "--target", "y", "--task", task, "-o", tmp_path / "m.json",
                            "--na-values", ""], capsys)
    one_line_error(code, err, f"{data}:4:", repr(value))
    assert not (tmp_path / "m.json").exists()


def test_fit_learner_errors_name_the_file(tmp_path, capsys):
    data = tmp_path / "one.csv"
    data.write_text("a,y\n1,yes\n2,yes\n")
    code, _, err = run_cli(["fit", data, "--target", "y", "-o", tmp_path / "m.json"], capsys)
    one_line_error(code, err, f"{data}: ", "two classes")


# --- rules --prune-data -------------------------------------------------------------------------

@pytest.mark.parametrize("content,needle", [
    ("a,b,y\n", "no data rows"),
    ("a,b,y\n1,2,\n3,4,\n", "the target column 'y' is empty"),  # a blank target alone: left out (test_prune_data_rows)
    ("a,b,y\n1,2,maybe\n", ":2: target 'y' is 'maybe', not one of the model's classes (no, yes)"),
    ("a,b,id,z\n1,2,1,3\n", "no target column 'y'"),
])
def test_prune_data_targets_are_checked(files, capsys, content, needle):
    tmp, _, model = files
    bad = tmp / "p.csv"
    bad.write_text(content)
    code, _, err = run_cli(["rules", model, "--prune-data", bad, "-o", tmp / "r.rules"], capsys)
    one_line_error(code, err, needle)
    assert not (tmp / "r.rules").exists()


# --- usage and messages -------------------------------------------------------------------------

@pytest.mark.parametrize("args,needle", [
    (["predict"], "rulekit predict: missing argument 'source'"),
    (["fit", "x.csv", "-o", "m.json"], "rulekit fit: missing option '--target'"),
    (["export", "m.json", "--to", "xml", "-o", "x"], "'xml' is not one of 'python', 'sql'"),
    (["fit", "x.csv", "--target", "y", "--max-depth", "abc", "-o", "m.json"], "'--max-depth'"),
    (["predict", "m.json", "d.csv", "--bogus"], "no such option: --bogus"),
    (["no-such-command"], "no such command 'no-such-command'"),
])
def test_usage_errors_are_one_line(capsys, args, needle):
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert needle in err and "--help" in err and "Value error" not in err


def test_multi_line_error_messages_print_on_one_line(monkeypatch, capsys):
    from rulekit.commands import show
    from rulekit.errors import RulekitError

    def fails(**_):
        raise RulekitError("first line\n\n  second line\n")

    monkeypatch.setattr(show, "run", fails)
    code, _, err = run_cli(["show", "x.json"], capsys)
    assert code == 2 and err == "rulekit: first line | second line\n"


@pytest.mark.parametrize("option", [["--dialect", "mysql"], ["--table", "t"], ["--key", "k"], ["--proba"],
                                    ["--dtype", "double"], ["--opset", "3"]])
def test_export_options_for_another_target_are_refused(files, capsys, option):
    tmp, _, model = files
    to = "sql" if option[0] in ("--dtype", "--opset") else "onnx"
    code, _, err = run_cli(["export", model, "--to", to, *option, "-o", tmp / "x"], capsys)
    one_line_error(code, err, f"{option[0]} applies to")
    assert not (tmp / "x").exists()


@pytest.mark.parametrize("backends", [",", "", " , "])
def test_verify_with_no_backend_named_is_an_error_not_a_pass(files, capsys, backends):
    _, data, model = files
    code, _, err = run_cli(["verify", model, data, "--backends", backends], capsys)
    one_line_error(code, err, "names no backend")


def test_import_of_a_rulekit_model_file_says_so(files, capsys):
    tmp, _, model = files
    code, _, err = run_cli(["import", model, "-o", tmp / "x.json"], capsys)
    one_line_error(code, err, "already a rulekit model file")


def test_import_errors_name_the_file(tmp_path, capsys):
    import pickle

    bad = tmp_path / "not-a-model.pkl"
    bad.write_bytes(pickle.dumps({"a": 1}))
    code, _, err = run_cli(["import", bad, "--allow-pickle", "-o", tmp_path / "x.json"], capsys)
    one_line_error(code, err, f"{bad}: ")


@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_empty_source_says_empty(tmp_path, capsys, content):
    src = tmp_path / "m.json"
    src.write_text(content)
    for args in (["show", src], ["export", src, "--to", "python", "-o", tmp_path / "x.py"]):
        code, _, err = run_cli(args, capsys)
        one_line_error(code, err, "empty file")


def test_verify_report_prints_statuses_with_brackets_verbatim(capsys):
    from rulekit.commands.verify import Report, print_reports

    print_reports([Report("sqlite", 0, 0, 0.0, 0.0, "failed: near \"[/x]\": syntax error")], 1, False)
    assert '[/x]' in capsys.readouterr().out


@pytest.mark.parametrize("command", [["check"], ["fmt"], ["fmt", "--check"]])
def test_check_and_fmt_on_a_model_file_say_what_it_is(files, capsys, command):
    _, _, model = files
    before = model.read_bytes()
    code, out, err = run_cli([*command, model], capsys)
    one_line_error(code, err, "a rulekit model file, not a rules file")
    assert out == "" and model.read_bytes() == before


# --- fit --prune-data ---------------------------------------------------------------------------

@pytest.mark.parametrize("content,needle", [
    ("a,b,y\n1,2,yes\n3,x,no\n", ":3: column 'b' holds numbers in DATA; 'x' is not a number"),
    ("a,b,y\n1,2,maybe\n", ":2: target 'y' is 'maybe', not a class of DATA (no, yes)"),
    ("a,y\n1,yes\n", ":1: no column 'b', which DATA has"),
])
@pytest.mark.parametrize("method", ["reduced-error", "cost-complexity"])
def test_fit_prune_data_is_checked_against_data(files, capsys, content, needle, method):
    tmp, data, _ = files
    prune = tmp / "p.csv"
    prune.write_text(content)
    out = tmp / "pruned.json"
    code, _, err = run_cli(["fit", data, "--target", "y", "--prune", method, "--prune-data", prune,
                            "-o", out], capsys)
    one_line_error(code, err, str(prune), needle)
    assert not out.exists()


def test_fit_prune_data_columns_follow_data_kinds(tmp_path):
    """A column of text in DATA stays text in the prune data even where the prune file holds only
    numbers (read on its own it became float64 and its values no longer matched DATA's labels)."""
    from rulekit.commands.fit import _split

    data = tmp_path / "d.csv"
    data.write_text("c,y\n1,a\n2,b\nx,a\n")
    prune = tmp_path / "p.csv"
    prune.write_text("c,y\n1,a\n2,b\n")
    X, y, task = _split(data, "y", None)
    Xp, yp, _ = _split(prune, "y", task, like=(X, y))
    assert Xp["c"].tolist() == ["1", "2"] and yp.tolist() == ["a", "b"]


def test_trailing_empty_columns_are_not_duplicates(files, capsys):
    tmp, _, model = files
    csv_file = tmp / "excel.csv"
    csv_file.write_text("a,b,,\n1,2,,\n")
    code, out, err = run_cli(["predict", model, csv_file], capsys)
    assert code == 0 and len(out.splitlines()) == 2, err


@pytest.mark.parametrize("cell", ["1_5", "\u0661\u0662", "\uff11\uff12"])
def test_numbers_python_alone_would_read_are_refused(files, capsys, cell):
    """float('1_5') is 15 and float('١٢') is 12: a CSV cell like that is text, never a number."""
    tmp, _, model = files
    bad = tmp / "u.csv"
    bad.write_text(f"a,b,y\n1,2,no\n{cell},2,yes\n", encoding="utf-8")
    for args in (["predict", model, bad], ["verify", model, bad, "--backends", "python"],
                 ["rules", model, "--prune-data", bad, "-o", tmp / "r.rules"],
                 ["fit", tmp / "train.csv", "--target", "y", "--prune", "reduced-error",
                  "--prune-data", bad, "-o", tmp / "p.json"]):
        code, _, err = run_cli(args, capsys)
        one_line_error(code, err, f"{bad}:3:", repr(cell))


def test_fit_reads_such_a_column_as_text(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("a,y\n1_5,yes\n2,no\n3,yes\n4,no\n")
    out = tmp_path / "m.json"
    assert run_cli(["fit", data, "--target", "y", "-o", out, "-q"], capsys)[0] == 0
    assert json.loads(out.read_text())["features"][0]["kind"] == "nominal"


def test_output_to_a_fifo_or_device_writes_through_it(files, capsys):
    """-o /dev/null, /dev/stdout or a FIFO: written to, never renamed over (as root, the atomic
    rename replaced the device node itself with a regular file)."""
    import threading
    import time

    tmp, _, model = files
    fifo = tmp / "pipe"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so the writer's open succeeds
    got = bytearray()
    done = threading.Event()

    def drain():  # until the command has returned and the pipe is empty
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                chunk = None
            if chunk:
                got.extend(chunk)
            elif done.is_set():
                return
            else:
                time.sleep(0.01)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        code, _, err = run_cli(["export", model, "--to", "python", "-o", fifo, "-q"], capsys)
    finally:
        done.set()
        reader.join(10)
        os.close(fd)
    assert code == 0, err
    assert stat.S_ISFIFO(fifo.stat().st_mode) and b"def predict" in got


@pytest.mark.parametrize("header,shown", [("A,b", "'A'"), ("a\u0301x,b", None)])
def test_a_near_miss_column_name_is_pointed_out(tmp_path, capsys, header, shown):
    data = tmp_path / "t.csv"
    data.write_text("\u00e1x,b,y\n1,2,no\n3,4,yes\n5,1,yes\n0,0,no\n" if shown is None else TRAIN)
    model = tmp_path / "m.json"
    assert run_cli(["fit", data, "--target", "y", "-o", model, "-q"], capsys)[0] == 0
    bad = tmp_path / "bad.csv"
    bad.write_text(f"{header}\n1,2\n")
    code, _, err = run_cli(["predict", model, bad], capsys)
    one_line_error(code, err, "names must match exactly", shown or "'a\u0301x'")
