"""--quiet on every command (silent on success, errors still print) and progress that only ever
goes to stderr: never into stdout, which users pipe."""

import io
import os
import pickle
import subprocess
import sys

import pytest
from rich.console import Console

from rulekit import progress
from rulekit.export import to_sql
from rulekit.runtimes import load_python_module
from tests import zoo
from tests.commands.cli import run_cli

ENV_PROGRESS = {**os.environ, "RULEKIT_PROGRESS": "1", "COLUMNS": "120"}


@pytest.fixture
def files(tmp_path):
    model, data = zoo.get("sklearn_tree_multiclass_hostile")
    mpath = tmp_path / "m.json"
    model.save(mpath)
    dpath = tmp_path / "d.csv"
    data.head(80).to_csv(dpath, index=False, float_format="%.17g")
    return model, data.head(80), mpath, dpath


# --- the helper ---------------------------------------------------------------------------------


def _forced_console(buf):
    return Console(file=buf, force_terminal=True, width=120, color_system=None)


def test_reporter_draws_tasks_on_a_forced_terminal():
    buf = io.StringIO()
    with progress.reporter(console=_forced_console(buf)) as rep:
        assert rep.enabled
        with progress.bar("counting trees", total=3) as bar:
            for _ in range(3):
                bar.advance()
            progress.note("counting trees: the last one")
            rep._progress.refresh()
        with progress.phase("exporting SQL"):
            rep._progress.refresh()
        assert not rep._progress.live.is_started  # no live display between tasks
    text = buf.getvalue()
    assert "counting trees: the last one" in text and "3/3" in text and "exporting SQL" in text


def test_quiet_reporter_draws_nothing():
    buf = io.StringIO()
    with progress.reporter(quiet=True, console=_forced_console(buf)) as rep:
        assert not rep.enabled
        with progress.bar("counting", total=2) as bar, progress.phase("working"):
            bar.advance()
            progress.note("still working")
    assert buf.getvalue() == ""


def test_without_a_reporter_progress_calls_do_nothing(capsys):
    assert progress.current() is None
    with progress.phase("p") as task, progress.bar("b", total=5) as bar:
        task.describe("x")
        bar.advance(2)
        progress.note("n")
    assert capsys.readouterr() == ("", "")


def test_not_a_terminal_means_no_progress(monkeypatch):
    monkeypatch.delenv("RULEKIT_PROGRESS", raising=False)
    with progress.reporter() as rep:  # pytest's captured stderr is not a terminal
        assert not rep.enabled
    monkeypatch.setenv("RULEKIT_PROGRESS", "1")
    with progress.reporter() as rep:
        assert rep.enabled
    with progress.reporter(quiet=True) as rep:
        assert not rep.enabled


# --- --quiet on every command -------------------------------------------------------------------


def test_quiet_fit_single_tree_and_ensemble(tmp_path, capsys):
    _, data = zoo.get("sklearn_tree_binary")
    frame = data.head(60).copy()
    frame["target"] = ["a" if i % 3 else "b" for i in range(len(frame))]
    frame.loc[frame.index[0], "target"] = None  # a row without a target: a note, silenced by -q
    dpath = tmp_path / "train.csv"
    frame.to_csv(dpath, index=False)
    for extra in ([], ["--ensemble", "random-forest", "--n-trees", "3"]):
        code, out, err = run_cli(["fit", dpath, "--target", "target", "-o", tmp_path / "m.json", "-q",
                                  *extra], capsys)
        assert (code, out, err) == (0, "", "")
        assert (tmp_path / "m.json").stat().st_size > 0
    code, out, err = run_cli(["fit", dpath, "--target", "target", "-o", tmp_path / "m.json"], capsys)
    assert code == 0 and out == "" and f"wrote {tmp_path / 'm.json'} (" in err  # says what it did


def test_quiet_import(tmp_path, capsys):
    from sklearn.tree import DecisionTreeClassifier

    est = DecisionTreeClassifier(max_depth=3, random_state=0).fit([[0, 1], [1, 0], [1, 1], [0, 0]],
                                                                  [0, 1, 1, 0])
    pkl = tmp_path / "est.pkl"
    pkl.write_bytes(pickle.dumps(est))
    code, out, err = run_cli(["import", pkl, "--allow-pickle", "-o", tmp_path / "m.json", "-q"], capsys)
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "m.json").stat().st_size > 0


def test_quiet_rules_export_check_fmt_verify(files, tmp_path, capsys):
    _, _, mpath, dpath = files
    rpath = tmp_path / "m.rules"
    for args in (["rules", mpath, "-o", rpath],
                 ["export", mpath, "--to", "sql", "--table", "t", "-o", tmp_path / "m.sql"],
                 ["export", rpath, "--to", "onnx", "-o", tmp_path / "m.onnx"],
                 ["check", rpath],
                 ["fmt", rpath],
                 ["verify", mpath, dpath, "--backends", "python,python-batch,sqlite,duckdb,onnx"]):
        code, out, err = run_cli([*args, "-q"], capsys)
        assert (code, out, err) == (0, "", ""), args
    assert (tmp_path / "m.sql").stat().st_size > 0 and (tmp_path / "m.onnx").stat().st_size > 0


def test_quiet_keeps_the_artefact_on_stdout(files, capsys):
    model, data, mpath, dpath = files
    code, out, err = run_cli(["predict", mpath, dpath, "-q"], capsys)
    assert code == 0 and err == "" and out.splitlines()[0] == "prediction"
    assert len(out.splitlines()) == len(data) + 1
    code, out, err = run_cli(["show", mpath, "--format", "mermaid", "-q"], capsys)
    assert code == 0 and err == "" and out.startswith("flowchart")
    code, out, err = run_cli(["export", mpath, "--to", "sql", "--table", "t", "-o", "-", "-q"], capsys)
    assert (code, err) == (0, "") and out == to_sql(model, dialect="sqlite", table="t")


def test_quiet_demo(tmp_path, capsys, monkeypatch):
    from rulekit.commands import demo

    monkeypatch.setattr(demo, "BACKENDS", ["python", "sqlite"])  # the full demo is test_demo's job
    code, out, err = run_cli(["demo", "--out", tmp_path / "demo", "-q"], capsys)
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "demo" / "model.rules").stat().st_size > 0


def test_quiet_still_prints_errors_and_findings(files, tmp_path, capsys):
    _, _, mpath, dpath = files
    code, out, err = run_cli(["predict", mpath, tmp_path / "nope.csv", "-q"], capsys)
    assert code == 2 and out == "" and "nope.csv" in err and err.count("\n") == 1
    bad = tmp_path / "bad.rules"
    bad.write_text("rule r: if x >\n")
    code, out, _ = run_cli(["check", bad, "-q"], capsys)
    assert code == 1 and f"{bad}:" in out
    code, out, err = run_cli(["verify", mpath, dpath, "--backends", "python,oracle", "-q"], capsys)
    assert code == 2 and "oracle" in err


def test_quiet_verify_still_reports_a_disagreement(files, capsys, monkeypatch):
    from rulekit import runtimes

    _, _, mpath, dpath = files
    real = runtimes.RUNNERS["python-batch"]

    def one_wrong_label(obj, data):
        out = real(obj, data)
        out.prediction[5] = obj.classes[0] if out.prediction[5] != obj.classes[0] else obj.classes[1]
        return out

    monkeypatch.setitem(runtimes.RUNNERS, "python-batch", one_wrong_label)
    code, out, _ = run_cli(["verify", mpath, dpath, "--backends", "python,python-batch", "-q"], capsys)
    assert code == 1 and "DISAGREES" in out


# --- progress never reaches stdout --------------------------------------------------------------


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "rulekit", *map(str, args)], capture_output=True,
                          env=ENV_PROGRESS, timeout=300)


@pytest.mark.slow  # ~20 s on a loaded machine
def test_forced_progress_goes_to_stderr_never_to_piped_stdout(files, tmp_path):
    model, data, mpath, dpath = files
    res = _cli("predict", mpath, dpath, "--proba")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.decode().splitlines()
    assert lines[0].startswith("prediction,") and len(lines) == len(data) + 1
    assert all("\x1b" not in line and "scoring" not in line for line in lines)
    assert f"reading {mpath}".encode() in res.stderr  # the progress was drawn, on stderr

    res = _cli("export", mpath, "--to", "python", "-o", "-")
    assert res.returncode == 0, res.stderr
    module = load_python_module(res.stdout.decode())  # the module alone, nothing around it
    assert list(module.predict_batch(data)) == list(model.predict(data))
    assert b"\x1b[" in res.stderr

    res = _cli("export", mpath, "--to", "onnx", "-o", "-")
    assert res.returncode == 0 and res.stdout[:1] == b"\x08"  # a protobuf, nothing in front of it
    import onnx

    assert onnx.load_from_string(res.stdout).graph.input[0].name == "X"

    res = _cli("verify", mpath, dpath, "--backends", "python,python-batch,sqlite")
    assert res.returncode == 0 and b"\x1b[?25l" not in res.stdout and b"verifying" not in res.stdout
    assert b"python-batch" in res.stdout and b"reading" in res.stderr

    res = _cli("verify", mpath, dpath, "--backends", "python", "-q")
    assert (res.returncode, res.stdout, res.stderr) == (0, b"", b"")


@pytest.mark.slow
def test_output_to_dev_stdout_is_the_artefact_alone(files):
    """`-o /dev/stdout`: no 'wrote ...' line inside the artefact (export, rules, import)."""
    model, data, mpath, dpath = files
    plain = {**os.environ, "RULEKIT_PROGRESS": "0"}
    for args in (["export", mpath, "--to", "python"], ["rules", mpath]):
        res = subprocess.run([sys.executable, "-m", "rulekit", *map(str, args), "-o", "/dev/stdout"],
                             capture_output=True, env=plain, timeout=300)
        assert res.returncode == 0, res.stderr
        assert b"wrote " not in res.stdout and len(res.stdout) > 100
    out = mpath.parent / "m.py"  # to a file it still says what it wrote
    res = subprocess.run([sys.executable, "-m", "rulekit", "export", str(mpath), "--to", "python", "-o",
                          str(out)], capture_output=True, env=plain, timeout=300)
    assert res.returncode == 0 and res.stdout == b""
    assert res.stderr.decode().splitlines()[-1].startswith(f"wrote {out} (a Python module, ")


def test_threads_note_their_own_task():
    import contextvars
    import threading

    buf = io.StringIO()
    with progress.reporter(console=_forced_console(buf)) as rep:
        ready = threading.Barrier(2)
        names = {}

        def work(name):
            with progress.phase(name) as task:
                ready.wait()
                progress.note(f"{name}: busy")
                ready.wait()
                names[name] = {t.id: t.description for t in rep._progress.tasks}[task._id]

        threads = [threading.Thread(target=contextvars.copy_context().run, args=(work, n))
                   for n in ("alpha", "beta")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert names == {"alpha": "alpha: busy", "beta": "beta: busy"}
