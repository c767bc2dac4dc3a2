"""`diff --data` reads the target as `stats` does: a 0/1 target written 0.0/1.0 (a CSV from a float
column) is classes 0 and 1. diff compared the cell text '1.0' with class 1 and called all 4,000
rows 'an unknown target', printing 'accuracy: 0.0000 -> 0.0000' over an all-zero table (audit 3,
#17). When no row's target is a class, no accuracy is printed as if measured."""

from __future__ import annotations

from tests.commands.cli import run_cli

HEAD = "rulebase t\ntarget y: classes {0, 1}\nfeature a: numeric\nsemantics first-hit\n"
A = HEAD + "default 0 {0: 1, 1: 0}\n\nr1: if a > 2 then 1 {0: 0, 1: 1}\n"
B = HEAD + "default 0 {0: 1, 1: 0}\n\nr1: if a > 3 then 1 {0: 0, 1: 1}\n"


def _files(tmp_path, cells):
    (tmp_path / "a.rules").write_text(A)
    (tmp_path / "b.rules").write_text(B)
    rows = [(1, cells[0]), (2.5, cells[1]), (2.6, cells[0]), (4, cells[1])]
    (tmp_path / "d.csv").write_text("a,y\n" + "".join(f"{a},{y}\n" for a, y in rows))
    return [tmp_path / "a.rules", tmp_path / "b.rules", "--data", tmp_path / "d.csv"]


def test_a_target_written_as_floats_is_read_as_its_classes(tmp_path, capsys):
    code, out, err = run_cli(["diff", *_files(tmp_path, ("0.0", "1.0"))], capsys)
    assert code == 1, err
    assert "accuracy: 0.7500 -> 0.7500" in out, out
    assert "unknown target" not in out


def test_no_accuracy_when_no_target_is_a_class(tmp_path, capsys):
    code, out, err = run_cli(["diff", *_files(tmp_path, ("no", "yes"))], capsys)
    assert code == 1, err
    assert "accuracy: not measured: no row's target is one of the classes (0, 1)" in out, out
    assert "0.0000" not in out
