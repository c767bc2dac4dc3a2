"""How many tests a scorecard keeps: the fewest with which cards grown on four fifths of the rows label
the most held-out rows right (scorecard.held_out_size), up to max_terms; one fold past HOLD_OUT_CELLS."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.rules import engine, scorecard
from rulekit.rules.scorecard import MAX_TERMS, Candidates, ScorecardLearner
from rulekit.rules.stats import class_codes


def noisy_cut(seed: int = 1, n: int = 400):
    """One cut (x0 > 0.2) with 10% of the labels flipped and five noise features: the training rows
    are never all right, so only held-out rows show that one test is enough."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 6)), columns=[f"x{j}" for j in range(6)])
    y = (X.x0 > 0.2).to_numpy().astype(int)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


def weak_signals(seed: int = 1, n: int = 1500, k: int = 16):
    """Labels from the signs of ``k`` features added up: each test helps a little, many are needed."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, k)), columns=[f"x{j}" for j in range(k)])
    score = sum(np.sign(X[f"x{j}"]) * (1 + 0.1 * j) for j in range(k)) + rng.normal(0, 1, n)
    return X, (score > 0).to_numpy().astype(int)


def candidates(X: pd.DataFrame, y: np.ndarray):
    rb = ScorecardLearner(max_terms=1).fit(X, y).rule_base_
    M = engine.matrix(rb, X)
    return Candidates(M, [f.kind == "nominal" for f in rb.features], 64, 2), class_codes(list(y), list(rb.classes))


def test_a_noisy_one_cut_concept_keeps_one_test():
    X, y = noisy_cut()
    rb = ScorecardLearner().fit(X, y).rule_base_
    assert len(rb.rules) == 1
    (rule,) = rb.rules
    assert rule.condition.feature == "x0" and abs(rule.condition.value - 0.2) < 0.15


def test_many_weak_signals_keep_more_tests_than_twelve():
    X, y = weak_signals()
    rb = ScorecardLearner().fit(X, y).rule_base_
    assert 12 < len(rb.rules) <= MAX_TERMS


def test_max_terms_still_bounds_the_card():
    X, y = weak_signals()
    assert len(ScorecardLearner(max_terms=5).fit(X, y).rule_base_.rules) <= 5


@pytest.mark.parametrize("data", [noisy_cut, weak_signals])
def test_the_size_is_the_fewest_with_the_most_held_out_rows_right(data):
    """Against the definition: per size, the held-out errors of the cards grown on the other folds."""
    X, y = data()
    cands, yc = candidates(X, y)
    top = 14
    part = scorecard.fold_of(yc, 5)
    wrong = np.zeros(top + 1, np.int64)
    for f in range(5):
        tr, va = part != f, part == f
        sub = Candidates(cands.M[tr], cands.nominal, 64, 2)
        chosen, coefs, _ = scorecard.grow(sub, yc[tr], 2, top, 1.0)
        for t in range(1, top + 1):
            k = min(t, len(chosen))
            B = scorecard.design(sub.tests, chosen[:k], cands.M[va])
            wrong[t] += int(scorecard.not_right(B, scorecard.targets(yc[va], 2), coefs[k]).sum())
    best = wrong[1:].min()
    assert scorecard.held_out_size(cands, yc, 2, top, 1.0) == 1 + int(np.flatnonzero(wrong[1:] == best)[0])


def test_past_the_cell_limit_one_fold_chooses(monkeypatch):
    """Each fold is grown in turn within HOLD_OUT_CELLS, one fold past it (the cost of large data)."""
    X, y = weak_signals(n=600)
    cands, yc = candidates(X, y)
    grown = []
    real = scorecard.grow

    def counting(sub, *args, **kw):
        grown.append(sub.n)
        return real(sub, *args, **kw)

    monkeypatch.setattr(scorecard, "grow", counting)
    scorecard.held_out_size(cands, yc, 2, 8, 1.0)
    assert len(grown) == 5
    grown.clear()
    monkeypatch.setattr(scorecard, "HOLD_OUT_CELLS", 600 * 16 - 1)
    size = scorecard.held_out_size(cands, yc, 2, 8, 1.0)
    assert len(grown) == 1 and 470 <= grown[0] <= 490 and 1 <= size <= 8  # four fifths of 600
