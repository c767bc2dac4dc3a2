"""Pruning and training CSVs of `rules MODEL --prune-data` (audit item 9): an extra column is
ignored (as predict ignores it), and a row without a target value is left out with one note naming
the file and the count (as fit, --induce and --scorecard leave it out)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.commands.cli import exit_code as run


def _rows(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"a": rng.choice(["p", "q", "r"], n), "x": rng.integers(0, 30, n)})
    y = np.where((d.a == "p") & (d.x > 10), "yes", "no")
    flip = rng.random(n) < 0.05
    d["y"] = np.where(flip, np.where(y == "yes", "no", "yes"), y)
    return d


@pytest.fixture
def files(tmp_path):
    _rows(400, 1).to_csv(tmp_path / "train.csv", index=False)
    prune = _rows(200, 2)
    prune.to_csv(tmp_path / "prune.csv", index=False)
    prune.assign(extra=np.arange(200)).to_csv(tmp_path / "extra.csv", index=False)
    blank = prune.copy()
    blank.loc[:9, "y"] = ""
    blank.to_csv(tmp_path / "blank.csv", index=False)
    blank.iloc[10:].to_csv(tmp_path / "dropped.csv", index=False)
    assert run(["fit", tmp_path / "train.csv", "--target", "y", "-o", tmp_path / "m.json", "-q"]) == 0
    return tmp_path


def _rules(files, prune, out, *more) -> str:
    assert run(["rules", files / "m.json", "--prune-data", files / prune, "--dnf", *more,
                "-o", files / out, "-q"]) == 0
    return (files / out).read_text()


@pytest.mark.parametrize("more", [(), ("--train-data", "none")])
def test_an_extra_pruning_column_is_ignored(files, more):
    assert _rules(files, "extra.csv", "e.rules", *more) == _rules(files, "prune.csv", "p.rules", *more)


def test_extra_training_and_pruning_columns_are_ignored(files):
    _rows(400, 1).assign(note="n").to_csv(files / "train_extra.csv", index=False)
    with_extra = _rules(files, "extra.csv", "e.rules", "--train-data", files / "train_extra.csv")
    assert with_extra == _rules(files, "prune.csv", "p.rules", "--train-data", files / "train.csv")


def test_rows_without_a_target_are_left_out_with_one_note(files, capsys):
    assert run(["rules", files / "m.json", "--prune-data", files / "blank.csv", "--dnf",
                "--train-data", "none", "-o", files / "b.rules"]) == 0
    err = capsys.readouterr().err
    assert err.count(f"10 row(s) of {files / 'blank.csv'} without a 'y' value left out") == 1
    assert (files / "b.rules").read_text() == _rules(files, "dropped.csv", "d.rules", "--train-data", "none")
    assert "200 pruning rows" not in (files / "b.rules").read_text()  # the header counts 190


def test_an_unknown_label_is_still_an_error(files, capsys):
    bad = _rows(50, 3)
    bad.loc[4, "y"] = "maybe"
    bad.to_csv(files / "bad.csv", index=False)
    assert run(["rules", files / "m.json", "--prune-data", files / "bad.csv", "-o", files / "x.rules"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.csv:6" in err and "'maybe', not one of the model's classes" in err
