"""Scorecard edge cases an independent review found (session 9): infinite cells, numeric targets,
many classes, separable data, and the default path's note staying cheap."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.commands import form_notes
from rulekit.rules.scorecard import MAX_CLASSES, ScorecardLearner, short_cut


@pytest.mark.parametrize("lo, hi", [(-np.inf, 0.0), (-np.inf, -5.5), (-np.inf, 3e300), (-np.inf, np.inf),
                                    (5.0, np.inf), (-1e308, np.inf)])
def test_short_cut_with_infinities_is_finite_and_splits(lo, hi):
    t = short_cut(lo, hi)
    assert np.isfinite(t) and lo <= t < hi


def test_minus_infinity_is_a_value_a_test_can_split_off():
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    x[:40] = -np.inf
    x[40] = -sys.float_info.max  # no finite t lies between -inf and it: that cut is not a candidate
    y = np.isinf(x).astype(int)
    rb = ScorecardLearner().fit(pd.DataFrame({"x": x}), y).rule_base_
    assert (rb.predict(pd.DataFrame({"x": x})) == y).mean() >= 0.99
    assert all(np.isfinite(r.condition.value) for r in rb.rules)


def _inf_csv(path):
    rng = np.random.default_rng(1)
    x = rng.normal(size=300)
    x[:20] = -np.inf
    x[20:25] = np.inf
    pd.DataFrame({"x": x, "z": rng.normal(size=300), "y": (x + rng.normal(0, 0.5, 300) > 0).astype(int)}
                 ).to_csv(path, index=False)


def test_infinite_cells_through_the_cli(tmp_path, run):
    """`-inf` cells: the scorecard and the default path (whose note learns one) both finish (a Decimal
    error on -inf was an internal error after the rules file was written)."""
    _inf_csv(tmp_path / "d.csv")
    r = run("rules", "d.csv", "--target", "y", "--scorecard", "-o", "card.rules", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert run("fit", "d.csv", "--target", "y", "-o", "m.json", "-q", cwd=tmp_path).returncode == 0
    r = run("rules", "m.json", "--prune-data", "d.csv", "-o", "r.rules", cwd=tmp_path)
    assert r.returncode == 0 and "internal error" not in r.stderr, r.stderr


def test_a_numeric_target_is_refused_in_one_line(tmp_path, run):
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.normal(size=500), "y": rng.normal(size=500)}).to_csv(tmp_path / "c.csv", index=False)
    r = run("rules", "c.csv", "--target", "y", "--scorecard", "-o", "o.rules", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "holds numbers (500 distinct values)" in r.stderr
    assert not (tmp_path / "o.rules").exists()


def test_too_many_classes_is_an_error_not_a_hang():
    X = pd.DataFrame({"a": np.arange(300.0)})
    with pytest.raises(rulekit.RulekitError, match=f"at most {MAX_CLASSES} classes"):
        ScorecardLearner().fit(X, [f"c{i % (MAX_CLASSES + 1)}" for i in range(300)])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_separable_data_gets_one_rule(seed):
    """One cut separates the classes, values on a 0.001 grid: one rule, not twelve near-copies."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(300, 3)).round(3), columns=["f0", "f1", "f2"])
    y = np.where(X.f0 > 0, "b", "a")
    rb = ScorecardLearner().fit(X, y).rule_base_
    assert len(rb.rules) == 1 and rb.rules[0].condition.feature == "f0"
    assert (rb.predict(X) == y).all()


def test_the_note_is_skipped_past_its_size_bound(tmp_path, monkeypatch):
    """The note learns a scorecard only while rows x features x (classes - 1)^2 stays under NOTE_CELLS."""
    from rulekit.table import read_csv

    _inf_csv(tmp_path / "d.csv")
    rb = ScorecardLearner().fit(pd.read_csv(tmp_path / "d.csv").drop(columns="y"),
                                pd.read_csv(tmp_path / "d.csv").y).rule_base_
    rb = rb.model_copy(update={"semantics": "first-hit", "rules": rb.rules[:1], "target": "y"})
    cols = read_csv(tmp_path / "d.csv")
    learned = []
    from rulekit.rules import scorecard

    monkeypatch.setattr(scorecard, "learn", lambda *a, **k: learned.append(1))
    monkeypatch.setattr(form_notes, "NOTE_CELLS", 300 * 2 - 1)
    assert form_notes.scorecard_note(rb, cols, cols, tmp_path / "d.csv") is None and learned == []
