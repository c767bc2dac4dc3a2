"""`rules --prune-data P` warns when a class of the model has no row in P and the pruned rules never
predict it: pruning had no row to keep its rules for. Pruning rows without 'high' gave rules that
never say 'high' (a fifth of the test rows), with a pruning accuracy of 0.99 and no word (audit 3,
#19)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tests.commands.cli import run_cli

WARNING = "rulekit: warning: the rules never predict 'high': no row of "


def _files(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(0)
    n = 1500
    x1, x2 = rng.uniform(0, 10, n), rng.uniform(0, 10, n)
    y = np.where(x1 < 3, "low", np.where(x2 > 7, "high", "mid"))
    frame = pd.DataFrame({"x1": x1.round(3), "x2": x2.round(3), "cls": y})
    frame[:900].to_csv(tmp_path / "train.csv", index=False)
    frame[900:].to_csv(tmp_path / "prune.csv", index=False)
    frame[900:][frame.cls[900:] != "high"].to_csv(tmp_path / "nohigh.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert run_cli(["fit", "train.csv", "--target", "cls", "-o", "m.json", "-q"], capsys)[0] == 0


def test_a_class_missing_from_the_pruning_rows_is_named(tmp_path, capsys, monkeypatch):
    _files(tmp_path, monkeypatch, capsys)
    code, out, err = run_cli(["rules", "m.json", "--prune-data", "nohigh.csv", "-o", "r.rules", "-q"], capsys)
    assert code == 0, err
    assert WARNING + "nohigh.csv is of that class" in err, err
    assert "high" not in (tmp_path / "r.rules").read_text().split("default")[1].split("{")[0]


def test_quiet_when_every_class_has_pruning_rows(tmp_path, capsys, monkeypatch):
    _files(tmp_path, monkeypatch, capsys)
    code, out, err = run_cli(["rules", "m.json", "--prune-data", "prune.csv", "-o", "r.rules", "-q"], capsys)
    assert code == 0, err
    assert "never predict" not in err, err
