"""`rulekit rules DATA.csv` without --induce: the refusal names the two ways to rules from a CSV. It
said 'expected a model file (JSON) or a rules file', and `rules` refuses a rules file (audit 3, #8)."""

from __future__ import annotations

import shlex

from tests.commands.cli import run_cli


def test_the_refusal_says_how_to_get_rules_from_a_csv(tmp_path, capsys):
    data = tmp_path / "my data.csv"
    data.write_text("x,y\n1,a\n2,b\n3,a\n")
    code, out, err = run_cli(["rules", data, "-o", tmp_path / "x.rules"], capsys)
    assert code == 2
    assert err.count("\n") == 1, err
    assert "or a rules file" not in err
    assert "--induce --target COL" in err and "--scorecard --target COL" in err
    fit = err.split("fit a tree first: ")[1].strip()
    assert shlex.split(fit)[:3] == ["rulekit", "fit", str(data)], fit
