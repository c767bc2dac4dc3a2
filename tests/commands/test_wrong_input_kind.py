"""A file of the wrong kind (audit item 10): a data CSV where a model or rules file belongs, and a
model JSON or rules file given as DATA, are refused in one line saying what the file looks like and
what was expected, instead of an error from the wrong parser."""

from __future__ import annotations

import pytest

from rulekit.input_kind import looks_like
from tests.commands.cli import exit_code as run

CSV = "a,b,y\n1,2,p\n3,4,q\n5,6,p\n"
RULES = """# a comment, with a comma
rulebase r
target y: classes {p, q}
feature a: numeric
default p
r1: if a > 2 then q
"""


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
    (["rules", "{d}/d.csv", "-o", "{d}/x.rules"], "expected a model file (JSON): learn rules from the data "
     "with --induce --target COL (or --scorecard --target COL), or fit a tree first: rulekit fit "),
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


@pytest.mark.parametrize("header", ["feature 1,feature 2,label", "group id,score,label", "target group,x,label",
                                    "default rate,x,label", "rulebase x,y,label", "if,a,label",
                                    "[mm] length,x,label", "{mm} length,x,label"])
def test_a_data_csv_whose_first_name_starts_like_rules_or_json_is_read(files, capsys, header):
    (files / "h.csv").write_text(f"{header}\n1,2,a\n3,4,b\n5,6,a\n7,8,b\n")
    assert looks_like((files / "h.csv").read_text()) == "csv"
    (files / "any.rules").write_text("rulebase r\ntarget label: classes {a, b}\ndefault a\n")
    assert run(["predict", files / "any.rules", files / "h.csv", "-o", "-"]) == 0
    assert run(["fit", files / "h.csv", "--target", "label", "-o", files / "h.json", "-q"]) == 0
    assert "looks like" not in capsys.readouterr().err


def test_rules_and_json_by_their_full_shape():
    for rules in ("rulebase r\n", "target y: classes {p, q}\n", "feature a: numeric\n", "default p\n",
                  "default p {p: 3, q: 1}\n", "group 3\n", "semantics first-hit\n", "if a > 2 then q\n",
                  '"r 1": if a > 2 then q\n', "missing c counts as p\n", "combiner sum link sigmoid\n"):
        assert looks_like(rules + "r1: if a > 2 then q\n") == "rules", rules
    for js in ('{"format": "rulekit-model"', '[{"a": 1}, {"a": 2}]', "[1, 2]\n", "{}"):
        assert looks_like(js) == "json", js
    assert looks_like("[1, 2\n") is None  # not JSON, one line: unclear


def test_a_broken_rules_file_gets_the_parser_error_not_csv(tmp_path, capsys):
    (tmp_path / "t.rules").write_text("r1 if c in {p, q} then b\nr2: if c in {q, r} then a\n")
    assert run(["check", tmp_path / "t.rules"]) != 0
    out = "".join(capsys.readouterr())
    assert "t.rules:1:4:" in out and "expected ':'" in out and "CSV" not in out


def test_the_csv_header_shown_has_single_spaces(tmp_path, capsys):
    (tmp_path / "s.csv").write_text("a, b, y\n1, 2, p\n3, 4, q\n")
    assert run(["check", tmp_path / "s.csv"]) == 2
    assert "(header: a, b, y)" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["default rate\n0.2\n0.7\n", "group 1\n3\n4\n", "rulebase name\nx\ny\n",
                                  "feature x: numeric,feature y: numeric,label\n1,2,a\n3,4,b\n"])
def test_a_one_statement_look_is_not_a_rules_file(text):
    """A table whose header has a statement's shape once (second review: one-column data refused)."""
    assert looks_like(text) != "rules"


def test_a_text_cell_saying_then_does_not_make_a_csv_a_rules_file(tmp_path, capsys):
    (tmp_path / "text.csv").write_text("id,comment,y\n1,if hot then cold,a\n2,x,b\n")
    assert run(["check", tmp_path / "text.csv"]) == 2
    assert "looks like a CSV data file" in "".join(capsys.readouterr())
