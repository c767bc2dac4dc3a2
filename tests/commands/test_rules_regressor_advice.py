"""`rules REGRESSOR --prune-data P` is refused with the command that prunes a regression tree, which
works as printed. The line said only '--prune-data prunes classification rules; this model is a
regressor', and without --prune-data a step concept came out as 1,192 rules (audit 3, #4)."""

from __future__ import annotations

import shlex

import numpy as np
import pandas as pd

from tests.commands.cli import run_cli


def test_the_refusal_names_a_command_that_prunes_the_tree(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 10, 400)
    frame = pd.DataFrame({"x": x, "unit price": np.where(x > 5, 10.0, 2.0) + rng.normal(0, 0.3, 400).round(2)})
    frame[:300].to_csv(tmp_path / "train.csv", index=False)
    frame[300:].to_csv(tmp_path / "my prune.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert run_cli(["fit", "train.csv", "--target", "unit price", "-o", "m.json", "-q"], capsys)[0] == 0
    code, out, err = run_cli(["rules", "m.json", "--prune-data", "my prune.csv", "-o", "r.rules"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "this model is a regressor: prune the tree instead (" in err
    cmd = shlex.split(err.split("instead (")[1].split("), then")[0])
    assert cmd[:2] == ["rulekit", "fit"] and "my prune.csv" in cmd and "unit price" in cmd, cmd
    assert run_cli(cmd[1:] + ["-q"], capsys)[0] == 0
    assert run_cli(["rules", "model.json", "-o", "r.rules", "-q"], capsys)[0] == 0
    assert (tmp_path / "r.rules").read_text().count(" then ") <= 4
