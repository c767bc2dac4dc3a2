"""Everyday CLI friction (issue 25): flags shown as flags, --version, one `wrote PATH (...)` line
on stderr from every command that writes a file, text outputs end with a newline, counts in the
right number."""

import re

import pytest

from rulekit.util import count
from tests.commands.test_cli_basics import CONTRACT_COMMANDS, run_cli

TRAIN = "a,b,y\n" + "".join(f"{i},{i % 3},{'yes' if i > 4 else 'no'}\n" for i in range(10))


@pytest.fixture
def files(tmp_path, capsys):
    data = tmp_path / "train.csv"
    data.write_text(TRAIN)
    model = tmp_path / "m.json"
    code, _, err = run_cli(["fit", data, "--target", "y", "-o", model, "-q"], capsys)
    assert code == 0, err
    return tmp_path, data, model


@pytest.mark.parametrize("command", CONTRACT_COMMANDS + [None])
def test_help_shows_flags_without_a_value(command, capsys):
    code, out, _ = run_cli(([command] if command else []) + ["--help"], capsys)
    assert code == 0 and "Usage" in out
    assert "<bool>" not in out and "BOOLEAN" not in out, out
    if command:
        assert re.search(r"^\s+-q, --quiet\s+no progress", out, re.M), out


def test_version(capsys):
    from importlib.metadata import version

    code, out, err = run_cli(["--version"], capsys)
    assert (code, out, err) == (0, f"rulekit {version('rulekit')}\n", "")


def test_no_arguments_shows_the_help(capsys):
    code, out, err = run_cli([], capsys)
    assert code == 2 and "Usage: rulekit" in out + err and "Traceback" not in err


def _writers(tmp, data, model):
    import_src = None
    try:
        import xgboost

        import_src = tmp / "xgb.json"
        xgboost.XGBClassifier(n_estimators=1, max_depth=1).fit([[0.0], [1.0]], [0, 1]).save_model(import_src)
    except ImportError:
        pass
    cases = {
        "fit": (["fit", data, "--target", "y"], tmp / "f.json", "CARTClassifier: classification"),
        "rules": (["rules", model], tmp / "r.rules", " rule"),
        "export": (["export", model, "--to", "sql", "--dialect", "duckdb"], tmp / "e.sql",
                   "SQL (duckdb), "),
        "predict": (["predict", model, data], tmp / "p.csv", "10 rows"),
        "show": (["show", model, "--format", "dot"], tmp / "s.dot", "a tree as dot"),
    }
    messy = tmp / "messy.rules"
    messy.write_text("rulebase r\ntarget y: classes {no, yes}\nfeature a: numeric\nfeature b: numeric\n"
                     "default no\nr1:   if a >  4.5 then yes\n")
    cases["fmt"] = (["fmt", messy], None, "reformatted")
    cases["stats"] = (["stats", messy, data], tmp / "st.rules", "statistics of 1 rule on 10 rows")
    if import_src is not None:
        cases["import"] = (["import", import_src], tmp / "i.json", "a tree, 1 feature")
    return cases


@pytest.mark.parametrize("command", ["fit", "rules", "export", "predict", "show", "import", "fmt",
                                     "stats"])
def test_every_writer_says_wrote_on_stderr(files, capsys, command):
    tmp, data, model = files
    cases = _writers(tmp, data, model)
    if command not in cases:
        pytest.skip("xgboost is not installed")
    args, out_path, detail = cases[command]
    if out_path is None:  # fmt rewrites its input in place
        out_path, original = args[1], args[1].read_text()
        code, out, err = run_cli(args, capsys)
    else:
        code, out, err = run_cli(args + ["-o", out_path], capsys)
    assert code == 0 and out == "", (out, err)
    lines = [line for line in err.splitlines() if not line.startswith("rulekit: ")]
    assert len(lines) == 1 and lines[0].startswith(f"wrote {out_path} (") and lines[0].endswith(")"), err
    assert detail in lines[0], err
    if command == "fmt":
        out_path.write_text(original)
        code, out, err = run_cli(args + ["-q"], capsys)
    else:
        out_path.unlink()
        code, out, err = run_cli(args + ["-o", out_path, "-q"], capsys)
    assert (code, out, err) == (0, "", "") and out_path.exists()


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "postgres", "mysql", "tsql"])
def test_bare_sql_expression_ends_with_a_newline(files, capsys, dialect):
    tmp, _, model = files
    code, out, err = run_cli(["export", model, "--to", "sql", "--dialect", dialect, "-o", "-"], capsys)
    assert code == 0 and out.endswith("\n") and not out.endswith("\n\n"), repr(out[-20:])
    path = tmp / "bare.sql"
    code, _, err = run_cli(["export", model, "--to", "sql", "--dialect", dialect, "-o", path, "-q"],
                           capsys)
    assert code == 0 and path.read_text() == out


def test_counts_in_the_right_number():
    assert [count(n, "rule") for n in (0, 1, 2, 12000)] == ["0 rules", "1 rule", "2 rules",
                                                             "12,000 rules"]
    assert count(1, "leaf", "leaves") == "1 leaf" and count(3, "leaf", "leaves") == "3 leaves"


def test_one_rule_is_one_rule(tmp_path, capsys):
    """A rule base of one rule (a stump merged per class) says '1 rule', not '1 rules'."""
    data = tmp_path / "d.csv"
    data.write_text("a,y\n" + "".join(f"{i},{'yes' if i > 4 else 'no'}\n" for i in range(10)))
    model = tmp_path / "m.json"
    assert run_cli(["fit", data, "--target", "y", "-o", model, "-q"], capsys)[0] == 0
    code, _, err = run_cli(["rules", model, "--dnf", "-o", tmp_path / "m.rules"], capsys)
    assert code == 0 and re.search(r"wrote \S+ \(\d+ rules?, \d+ conditions?\)", err), err
    assert not re.search(r"\b1 rules\b|\b1 conditions\b", err), err


def test_model_repr_counts_features():
    from rulekit.ir.model import Model
    from rulekit.ir.tree import TreeBuilder

    b = TreeBuilder()
    b.leaf((1.0,))
    assert repr(Model([b.graph], ["x"], task="regression")).endswith(", 1 feature>")
    assert repr(Model([b.graph], ["x", "z"], task="regression")).endswith(", 2 features>")
