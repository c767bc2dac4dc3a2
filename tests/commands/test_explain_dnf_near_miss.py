"""`predict --explain` on a rule of one 'or' (the --dnf path's one rule per class): the near miss
names the one test the row fails on its nearest way into the rule (the whole 'or' where every way
fails two or more). It restated the whole rule for
every row the rule missed ("near miss: r1 -> yes fails (city = Zürich and age > 60.5) or income >
80100"), which said nothing about the row (audit 3, #25)."""

from __future__ import annotations

import csv
import io

from tests.commands.cli import run_cli

RULES = ("rulebase t\ntarget y: classes {no, yes}\nfeature city: nominal {Köln, Zürich}\nfeature age: numeric\n"
         "feature income: numeric\nsemantics first-hit\ndefault no\n\n"
         "r1: if (city = Zürich and age > 60.5) or income > 80100 then yes\n")


def test_the_near_miss_is_the_one_failing_test(tmp_path, capsys):
    (tmp_path / "r.rules").write_text(RULES)
    (tmp_path / "d.csv").write_text("city,age,income\nKöln,70,50000\nZürich,40,50000\nKöln,30,50000\n"
                                    "Köln,30,90000\n")
    code, out, err = run_cli(["predict", tmp_path / "r.rules", tmp_path / "d.csv", "--explain", "-o", "-"], capsys)
    assert code == 0, err
    got = [r["explanation"] for r in csv.DictReader(io.StringIO(out))]
    assert got == [
        "default -> no (no rule matched) | near miss: r1 -> yes fails city = Zürich",
        "default -> no (no rule matched) | near miss: r1 -> yes fails age > 60.5",
        "default -> no (no rule matched) | near miss: r1 -> yes fails income > 80100",
        "r1: if (city = Zürich and age > 60.5) or income > 80100 then yes",
    ], got


def test_the_whole_or_when_every_way_in_fails_two_tests(tmp_path, capsys):
    rules = RULES.replace("or income > 80100", "or (income > 80100 and age < 20)")
    (tmp_path / "r.rules").write_text(rules)
    (tmp_path / "d.csv").write_text("city,age,income\nKöln,30,50000\n")
    code, out, err = run_cli(["predict", tmp_path / "r.rules", tmp_path / "d.csv", "--explain", "-o", "-"], capsys)
    assert code == 0, err
    assert list(csv.DictReader(io.StringIO(out)))[0]["explanation"] == (
        "default -> no (no rule matched) | near miss: r1 -> yes fails (city = Zürich and age > 60.5) or "
        "(income > 80100 and age < 20)")
