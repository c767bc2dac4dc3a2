"""A file of the wrong kind (audit item 10): a data CSV where a model or rules file belongs, and a
model JSON or rules file given as DATA, are refused in one line saying what the file looks like and
what was expected, instead of an error from the wrong parser."""

from __future__ import annotations

import pytest

from rulekit.cli import main
from rulekit.input_kind import looks_like

CSV = "a,b,y\n1,2,p\n3,4,q\n5,6,p\n"
RULES = """# a comment, with a comma
rulebase r
target y: classes {p, q}
feature a: numeric
default p
r1: if a > 2 then q
"""


def run(argv) -> int:
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in argv])
    return ex.value.code


@pytest.fixture
def files(tmp_path):
    (tmp_path / "d.csv").write_text(CSV)
    (tmp_path / "r.rules").write_text(RULES)
    assert run(["fit", tmp_path / "d.csv", "--target", "y", "-o", tmp_path / "m.json", "-q"]) == 0
    return tmp_path


def test_looks_like():
    assert looks_like(CSV) == "csv" and looks_like(RULES) == "rules"
    assert looks_like('\ufeff  {"format": "rulekit-model"}') == "json"
    assert looks_like("r1: if a > 2 then q\n") == "rules"
    assert looks_like("target,x\n1,2\n") == "csv"  # a header word as a column name: still a table
    assert looks_like("if,a\n1,2\n") == "csv"
    for unclear in ("", "a\n1\n", "a,b\n1,2,3\n", "# note\na,b\n1,2\n"):
        assert looks_like(unclear) is None, unclear


@pytest.mark.parametrize("argv,expected", [
    (["rules", "{d}/d.csv", "-o", "{d}/x.rules"], "expected a model file (JSON) or a rules file"),
    (["predict", "{d}/d.csv", "{d}/d.csv", "-o", "-"], "expected a model file (JSON) or a rules file"),
    (["check", "{d}/d.csv"], "expected a rules file"),
])
def test_a_csv_where_a_model_belongs(files, capsys, argv, expected):
    assert run([a.format(d=files) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{files / 'd.csv'}: looks like a CSV data file (header: a, b, y), {expected}" in err


@pytest.mark.parametrize("argv,what", [
    (["rules", "{d}/m.json", "--induce", "--target", "y", "-o", "{d}/x.rules"], "m.json: looks like JSON"),
    (["fit", "{d}/m.json", "--target", "y", "-o", "{d}/x.json"], "m.json: looks like JSON"),
    (["predict", "{d}/m.json", "{d}/r.rules", "-o", "-"], "r.rules: looks like a rules file"),
])
def test_a_model_or_rules_file_as_data(files, capsys, argv, what):
    assert run([a.format(d=files) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and what in err and "expected a CSV data file with a header row" in err
