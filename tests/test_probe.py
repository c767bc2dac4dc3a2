"""Probe rows: the vectorized boundary values and probe matrix equal a plain loop, bit for bit (the
zoo's data sets are made with them, so they must not drift)."""

import numpy as np
import pytest

from rulekit import probe
from tests import zoo

EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 3.4028235677973366e38, 1e39, -1e39, 5e-324, 1e-46, 0.1,
         float(np.float32(0.1)), -3.4028234663852886e38, 2.5, 1.0000000000000002]


def _loop_probe_matrix(base, thresholds, *, n_missing=200, max_rows=50_000, seed=0):
    """The row-at-a-time definition (what rulekit.probe did before it was vectorized)."""
    rng = np.random.default_rng(seed)
    base = np.asarray(base, dtype=np.float64)
    rows = []
    for f, t in thresholds:
        for v in probe.threshold_values(t):
            r = base[rng.integers(len(base))].copy()
            r[f] = v
            rows.append(r)
    if len(rows) > max_rows:
        idx = rng.choice(len(rows), size=max_rows, replace=False)
        rows = [rows[i] for i in sorted(idx)]
    for _ in range(n_missing):
        r = base[rng.integers(len(base))].copy()
        k = rng.integers(1, max(2, base.shape[1] // 2) + 1)
        r[rng.choice(base.shape[1], size=min(k, base.shape[1]), replace=False)] = np.nan
        rows.append(r)
    rows.append(np.full(base.shape[1], np.nan))
    return np.vstack([base] + [np.asarray(rows)])


@pytest.mark.slow
def test_boundary_values_match_threshold_values():
    rng = np.random.default_rng(1)
    ts = EDGES + list(rng.normal(size=300) * 10.0 ** rng.integers(-40, 40, size=300))
    pairs = [(i % 4, float(t)) for i, t in enumerate(ts)]
    with np.errstate(over="ignore"):
        want = [(f, v) for f, t in pairs for v in probe.threshold_values(t)]
    feats, vals = probe.boundary_values(pairs)
    got = list(zip(feats.tolist(), vals.tolist()))
    assert [(f, np.float64(v).tobytes()) for f, v in got] == [(f, np.float64(v).tobytes()) for f, v in want]
    assert probe.boundary_values([])[1].size == 0


@pytest.mark.parametrize("name", ["sklearn_tree_multiclass_hostile", "lightgbm_categorical_nan",
                                  "xgboost_multiclass", "handmade_nominal"])
def test_probe_matrix_equals_the_loop(name):
    from rulekit.ir.data import to_matrix

    model, data = zoo.get(name)
    X = to_matrix(data, model.features)
    th = probe.model_thresholds(model)
    for kw in ({}, {"max_rows": 40}, {"n_missing": 0, "seed": 3}):
        want = _loop_probe_matrix(X, th, **kw)
        assert probe.probe_matrix(X, th, **kw).tobytes() == want.tobytes(), kw
