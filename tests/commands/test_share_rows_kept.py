"""Class shares print over the rows they were counted on. `show` and `export --to rules` printed a
file's `default no {no: 516/519, yes: 3/519}` as `{no: 172/173, yes: 1/173}`, and `rules MODEL`
without pruning rows wrote the 600 training rows' 182/242/176 as `91/300, 121/300, 88/300`: under
the header's "classes of the rows each rule decides", a row count the data never had (audit 3, #1
and #20)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tests.commands.cli import run_cli

RULES = ("rulebase t\ntarget y: classes {no, yes}\nfeature x: numeric\nsemantics first-hit\n"
         "default no {no: 516/519, yes: 3/519}\n\nr1: if x > 3 then yes {no: 2/82, yes: 80/82} with 82 rows, "
         "80 correct (97.6%)\n")


def test_show_and_export_keep_the_written_denominators(tmp_path, capsys):
    (tmp_path / "r.rules").write_text(RULES)
    code, out, err = run_cli(["show", tmp_path / "r.rules"], capsys)
    assert code == 0, err
    assert "default no {no: 516/519, yes: 3/519}" in out, out
    assert "{no: 2/82, yes: 80/82}" in out, out
    code, out, err = run_cli(["export", tmp_path / "r.rules", "--to", "rules", "-o", "-"], capsys)
    assert code == 0, err
    assert "default no {no: 516/519, yes: 3/519}" in out, out


def test_rules_without_pruning_rows_write_shares_over_the_training_rows(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, 600)
    pd.DataFrame({"x": x, "grade": np.where(x < 3, 1, np.where(x < 7, 2, 3))}).to_csv(tmp_path / "g.csv",
                                                                                       index=False)
    monkeypatch.chdir(tmp_path)
    assert run_cli(["fit", "g.csv", "--target", "grade", "-o", "g.json", "-q"], capsys)[0] == 0
    assert run_cli(["rules", "g.json", "-o", "g.rules", "-q"], capsys)[0] == 0
    text = (tmp_path / "g.rules").read_text()
    default = next(line for line in text.splitlines() if line.startswith("default "))
    assert default == "default 2 {1: 182/600, 2: 242/600, 3: 176/600}", text
    assert run_cli(["check", "g.rules"], capsys)[0] == 0
