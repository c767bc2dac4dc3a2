"""Learned thresholds read well (shortest decimal in the middle fifth of the gap) and split the
training rows exactly as the midpoint does."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit.learners import criteria as C
from rulekit.learners.estimators import CARTClassifier

from tests.marks import lane_examples

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15)


def _digits(x: float) -> int:
    return len(Decimal(repr(x)).normalize().as_tuple().digits)


@settings(max_examples=lane_examples(2000), deadline=None, suppress_health_check=list(HealthCheck))
@given(finite, finite)
def test_between_the_neighbours_near_the_middle_and_never_longer(a, b):
    if a == b:
        return
    a, b = min(a, b), max(a, b)
    t = float(C.readable_threshold(a, b)[0])
    m = float(C.midpoint(a, b))
    assert a <= t < b
    assert _digits(t) <= _digits(m)
    if t != m:
        assert a + (b - a) * 0.4 <= t <= b - (b - a) * 0.4


def test_examples():
    got = C.readable_threshold([3, 2.3817, -0.5, 1234, 60, 2383.9, 1.0],
                               [4, 2.4152, 0.5, 1300, 70, 2383.96, float(np.nextafter(1.0, 2))])
    assert got.tolist() == [3.5, 2.4, 0.0, 1270.0, 65.0, 2383.93, 1.0]
    assert repr(float(got[2])) == "0.0"  # never -0.0


def test_learned_tree_splits_training_rows_as_the_midpoint_would():
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(3000, 4)) * 1000, 3)
    y = (X[:, 0] + 0.5 * X[:, 1] > 100).astype(int)
    est = CARTClassifier(max_depth=6).fit(X, y)
    t = est.flat_tree_
    thr = t.threshold[t.kind == 1]
    assert max(_digits(float(v)) for v in thr) <= 6  # the midpoints of 3-decimal values take up to 8
    for f, v in zip(t.feature[t.kind == 1], thr):
        col = np.sort(np.unique(X[:, f]))
        i = np.searchsorted(col, v, side="right")  # rows <= v: the same as at the midpoint of the gap
        assert 0 < i < len(col) and col[i - 1] <= v < col[i]
        assert C.midpoint(col[i - 1], col[i]) >= col[i - 1]
