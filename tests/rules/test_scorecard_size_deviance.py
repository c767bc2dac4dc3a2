"""The scorecard's size against its definition (scorecard.held_out_size): the fewest tests with the
least held-out deviance of the cards grown on four fifths of the rows, each fifth in turn; the fewest
with the fewest held-out errors where those are at most NEAR_EXACT of the rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.rules import scorecard
from rulekit.rules.logistic import deviance, probabilities
from tests.rules.test_scorecard_size import candidates, weak_signals

TOP = 14


def held_out_curves(cands, yc, K):
    """Per size 0..TOP: held-out errors and deviance, summed over the five folds, computed here."""
    part = scorecard.fold_of(yc, 5)
    wrong, loss = np.zeros(TOP + 1, np.int64), np.zeros(TOP + 1)
    for f in range(5):
        tr, va = part != f, part == f
        sub = scorecard.Candidates(cands.M[tr], cands.nominal, cands.max_cuts, cands.min_rows)
        chosen, coefs, _ = scorecard.grow(sub, yc[tr], K, TOP, 1.0)
        Y = scorecard.targets(yc[va], K)
        for t in range(TOP + 1):
            k = min(t, len(chosen))
            B = scorecard.design(sub.tests, chosen[:k], cands.M[va])
            wrong[t] += int(scorecard.not_right(B, Y, coefs[k]).sum())
            loss[t] += deviance(probabilities(B, coefs[k]), Y)
    return wrong, loss


def three_classes(seed: int = 2, n: int = 240):
    """Three classes from weak signals: the class is the largest of three noisy sums of signs."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 9)), columns=[f"x{j}" for j in range(9)])
    sums = [sum(np.sign(X[f"x{3 * c + j}"]) for j in range(3)) + rng.normal(0, 1.2, n) for c in range(3)]
    return X, np.argmax(np.column_stack(sums), axis=1)


@pytest.mark.parametrize("data, K", [(lambda: weak_signals(3, n=250, k=8), 2), (three_classes, 3)])
def test_noisy_small_data_keeps_the_least_held_out_deviance(data, K):
    """Where held-out errors are many, the size is the first least deviance, here not the fewest-error
    size (the count of wrong rows is flat and noisy on a few hundred rows)."""
    X, y = data()
    cands, yc = candidates(X, y)
    wrong, loss = held_out_curves(cands, yc, K)
    assert wrong[1:].min() > scorecard.NEAR_EXACT * yc.size
    least = 1 + int(np.flatnonzero(loss[1:] == loss[1:].min())[0])
    fewest_errors = 1 + int(np.flatnonzero(wrong[1:] == wrong[1:].min())[0])
    assert least != fewest_errors  # the data tells the two rules apart
    assert scorecard.held_out_size(cands, yc, K, TOP, 1.0) == least


def test_separable_data_keeps_the_fewest_tests_that_label_held_out_rows_right():
    """A clean one-cut concept: more tests lower the held-out deviance (surer right labels), yet one is kept."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(300, 4)).round(3), columns=[f"x{j}" for j in range(4)])
    y = (X.x1 > 0.3).to_numpy().astype(int)
    cands, yc = candidates(X, y)
    wrong, loss = held_out_curves(cands, yc, 2)
    assert wrong[1:].min() <= scorecard.NEAR_EXACT * yc.size
    assert int(np.argmin(loss[1:])) + 1 > 1
    assert scorecard.held_out_size(cands, yc, 2, TOP, 1.0) == 1 + int(np.argmin(wrong[1:]))
