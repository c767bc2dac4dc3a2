"""`rulekit stats` says when target values of DATA are no class of the rules (a class renamed by hand,
or the wrong file): every such row counts as wrong, and 'with 73 rows, 0 correct' came with no word
(audit 3, #3). Values that are a class's text ('1.0' for class 1) are classes, and no note is made."""

from __future__ import annotations

from tests.commands.cli import run_cli

RULES = ("rulebase t\ntarget y: classes {no, approved}\nfeature x: numeric\nsemantics first-hit\n"
         "default no {no: 1, approved: 0}\n\nr1: if x > 2 then approved {no: 0, approved: 1}\n")
NUMERIC = ("rulebase t\ntarget y: classes {0, 1}\nfeature x: numeric\nsemantics first-hit\n"
           "default 0 {0: 1, 1: 0}\n\nr1: if x > 2 then 1 {0: 0, 1: 1}\n")


def test_a_renamed_class_is_named_with_its_rows(tmp_path, capsys):
    (tmp_path / "r.rules").write_text(RULES)
    (tmp_path / "d.csv").write_text("x,y\n1,no\n3,yes\n4,yes\n5,approved\n")
    code, out, err = run_cli(["stats", tmp_path / "r.rules", tmp_path / "d.csv", "-o", tmp_path / "s.rules"],
                             capsys)
    assert code == 0, err
    assert (f"rulekit: note: 2 rows of {tmp_path / 'd.csv'} have a 'y' value that is no class of the rules "
            "(no, approved): 'yes' (2); they count as wrong wherever a rule meets them") in err, err
    assert "with 3 rows, 1 correct" in (tmp_path / "s.rules").read_text()


def test_quiet_when_every_value_is_a_class(tmp_path, capsys):
    (tmp_path / "r.rules").write_text(NUMERIC)
    (tmp_path / "d.csv").write_text("x,y\n1,0.0\n3,1.0\n4,1\n")
    code, out, err = run_cli(["stats", tmp_path / "r.rules", tmp_path / "d.csv", "-o", tmp_path / "s.rules"],
                             capsys)
    assert code == 0, err
    assert "note" not in err, err
    assert "with 2 rows, 2 correct" in (tmp_path / "s.rules").read_text()
