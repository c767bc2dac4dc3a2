"""Identifier columns (audit item 2): `fit` and `rules DATA --induce/--scorecard` leave out a text
column with a different value on (nearly) every row, say so in one note, and use it with --keep."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.commands.identifiers import identifiers
from rulekit.dsl import loads
from tests.commands.cli import exit_code as run


def _rows(n: int, seed: int, first: int = 0) -> pd.DataFrame:
    """An account code (one per row), a plan and a count deciding the class, some noise columns."""
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"account": [f"K{first + i:05d}" for i in range(n)],
                      "plan": rng.choice(["a", "b", "c"], n), "uses": rng.integers(0, 40, n),
                      "colour": rng.choice(["red", "blue"], n)})
    d["y"] = np.where((d.plan == "c") & (d.uses > 8), "stay", np.where(d.uses < 4, "quit", "wait"))
    return d


@pytest.fixture
def files(tmp_path):
    _rows(300, 1).to_csv(tmp_path / "train.csv", index=False)
    _rows(150, 2, 300).to_csv(tmp_path / "prune.csv", index=False)
    _rows(300, 3, 450).to_csv(tmp_path / "test.csv", index=False)
    return tmp_path


def _accuracy(pred, test) -> float:
    p = [r["prediction"] for r in csv.DictReader(pred.open())]
    t = [r["y"] for r in csv.DictReader(test.open())]
    return float(np.mean([a == b for a, b in zip(p, t)]))


def test_the_rule_more_than_20_values_more_than_half_distinct():
    text = [f"v{i}" for i in range(40)]
    frame = pd.DataFrame({
        "id": pd.Series(text, dtype=object),  # 40 of 40 distinct
        "half_and_one": pd.Series(text[:21] + ["v0"] * 19, dtype=object),  # 21 of 40: over half
        "exactly_half": pd.Series(text[:20] + text[:20], dtype=object),  # 20 of 40, and only 20
        "twenty": pd.Series([f"w{i % 20}" for i in range(40)], dtype=object),
        "gappy": pd.Series(text[:21] + [None] * 19, dtype=object),  # 21 of 21 non-empty cells
        "number": np.arange(40.0),  # numeric: never an identifier
    })
    assert identifiers(frame) == [("id", 40, 40), ("half_and_one", 21, 40), ("gappy", 21, 21)]
    frame["exactly_half"] = pd.Series(text[:21] + text[:19], dtype=object)  # 21 distinct: over half
    assert [f[0] for f in identifiers(frame)] == ["id", "half_and_one", "exactly_half", "gappy"]
    wide = pd.DataFrame({"c": pd.Series([f"v{i // 2}" for i in range(44)], dtype=object)})
    assert identifiers(wide) == []  # 22 values, each on two rows: exactly half distinct


def test_fit_leaves_the_identifier_out_and_generalises(files, capsys):
    assert run(["fit", files / "train.csv", "--target", "y", "-o", files / "m.json"]) == 0
    err = capsys.readouterr().err
    assert ("rulekit: note: column 'account' has a different value in each of its 300 non-empty cells "
            "(an identifier?): not used, since a test on it cannot reach new rows; --keep account to "
            "use it") in err
    model = rulekit.load(files / "m.json")
    assert [f.name for f in model.features] == ["plan", "uses", "colour"]
    # later files still carry the column: it is ignored like any extra column
    assert run(["predict", files / "m.json", files / "test.csv", "-o", files / "p.csv"]) == 0
    assert _accuracy(files / "p.csv", files / "test.csv") > 0.9
    assert run(["rules", files / "m.json", "--prune-data", files / "prune.csv", "--dnf",
                "-o", files / "m.rules"]) == 0
    assert "training rows recorded by fit" in capsys.readouterr().err
    assert run(["predict", files / "m.rules", files / "test.csv", "-o", files / "r.csv"]) == 0
    assert _accuracy(files / "r.csv", files / "test.csv") > 0.9
    assert run(["export", files / "m.rules", "--to", "sql", "-o", files / "m.sql"]) == 0
    assert "account" not in (files / "m.sql").read_text()


def test_keep_uses_the_column(files, capsys):
    assert run(["fit", files / "train.csv", "--target", "y", "--keep", "account", "-o", files / "k.json"]) == 0
    assert "note" not in capsys.readouterr().err
    assert [f.name for f in rulekit.load(files / "k.json").features][0] == "account"


def test_keep_names_a_column_of_the_data(files, capsys):
    assert run(["fit", files / "train.csv", "--target", "y", "--keep", "acount", "-o", files / "k.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--keep 'acount': no such feature column" in err
    assert "Traceback" not in err


def test_quiet_fit_says_nothing(files, capsys):
    assert run(["fit", files / "train.csv", "--target", "y", "-q", "-o", files / "m.json"]) == 0
    assert capsys.readouterr().err == ""
    assert "account" not in [f.name for f in rulekit.load(files / "m.json").features]


def test_only_identifiers_is_one_clear_error(tmp_path, capsys):
    d = _rows(60, 4)[["account", "y"]]
    d.to_csv(tmp_path / "ids.csv", index=False)
    assert run(["fit", tmp_path / "ids.csv", "--target", "y", "-o", tmp_path / "m.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "every feature column looks like an identifier" in err
    assert "--keep account" in err


@pytest.mark.parametrize("how", ["--induce", "--scorecard"])
def test_rules_from_data_leave_the_identifier_out(files, capsys, how):
    out = files / f"{how[2:]}.rules"
    assert run(["rules", files / "train.csv", "--target", "y", how, "-o", out]) == 0
    assert "column 'account' has a different value" in capsys.readouterr().err
    rb = loads(out.read_text())
    assert "account" not in [f.name for f in rb.features]
    assert run(["predict", out, files / "test.csv", "-o", files / "p.csv"]) == 0
    assert _accuracy(files / "p.csv", files / "test.csv") > 0.85


def _collapse_line(capsys, names, **kw) -> str:
    from rulekit.commands.rules import _warn_collapse
    from rulekit.rules.steps import Step, Steps

    steps = Steps(items=[Step(n, r, r, 0.7) for n, r in names])
    rb = loads("rulebase r\ntarget y: classes {a, b}\nfeature x: numeric\ndefault a\n")
    _warn_collapse(rb, steps, 100, kw.pop("select", "mdl"), None, 0.5, **kw)
    return capsys.readouterr().err


TREE_COLLAPSE = [("tree", 3), ("tree reduced-error pruning", 1), ("rules from the tree", 0),
                 ("classes ordered, default chosen, MDL subset per class", 0)]
CHOICE_COLLAPSE = [("tree", 3), ("tree reduced-error pruning", 3), ("rules from the tree", 3),
                   ("classes ordered, default chosen, MDL subset per class", 0)]


def test_collapse_hints_only_options_that_could_help(capsys):
    # the tree pruned itself to a leaf: choosing among rules (--select, --min-rules) cannot help
    assert "try --prune reduced-error, more pruning rows" in _collapse_line(capsys, TREE_COLLAPSE)
    # the MDL choice removed them: its options help, unless given already
    assert "try --select none, --min-rules 1, --prune" in _collapse_line(capsys, CHOICE_COLLAPSE)
    line = _collapse_line(capsys, CHOICE_COLLAPSE, min_rules=1)
    assert "--min-rules" not in line and "--select none" not in line


def test_a_memorising_model_does_not_suggest_min_rules_given(files, capsys):
    assert run(["fit", files / "train.csv", "--target", "y", "--keep", "account", "-o", files / "k.json"]) == 0
    assert run(["rules", files / "k.json", "--prune-data", files / "prune.csv", "--dnf", "--min-rules", "1",
                "-o", files / "k.rules"]) == 0
    warning = [ln for ln in capsys.readouterr().err.splitlines() if "warning" in ln]
    assert len(warning) == 1 and "only the default class" in warning[0]
    assert "--min-rules 1" not in warning[0] and "--select none" not in warning[0]
