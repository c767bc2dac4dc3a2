"""The canonical float64 boundary equals the source comparison on every probed value."""

import math

import numpy as np
import pytest

from rulekit import semantics


def _probe(t):
    vals = [t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)]
    with np.errstate(over="ignore"):  # thresholds beyond float32's range round to +-inf: expected
        f = np.float32(t)
        if np.isfinite(f):
            vals += [float(f), float(np.nextafter(f, np.float32(np.inf))), float(np.nextafter(f, np.float32(-np.inf)))]
    return [float(v) for v in vals]


def _thresholds(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    ts = rng.normal(size=n) * 10.0 ** rng.integers(-30, 30, size=n).astype(float)
    # midpoints of adjacent float32 values, as scikit-learn produces them
    f = rng.normal(size=n).astype(np.float32)
    mids = (f.astype(np.float64) + np.nextafter(f, np.float32(np.inf)).astype(np.float64)) / 2
    return list(ts) + list(mids) + [0.0, -0.0, 1e-45, 3.4028234663852886e38, 1e39, -1e39]


@pytest.mark.slow
def test_float32_le_boundary_matches_cast_then_compare():
    bad = []
    for t in _thresholds():
        b = semantics.boundary("<=", t, "float32")
        for x in _probe(t) + _probe(b):
            with np.errstate(over="ignore"):
                want = bool(np.float32(x) <= np.float64(t))
            if (x <= b) != want:
                bad.append((t, x))
    assert not bad


@pytest.mark.slow
def test_float32_lt_boundary_matches_xgboost():
    bad = []
    for t in _thresholds():
        with np.errstate(over="ignore"):
            t32 = float(np.float32(t))  # XGBoost thresholds are float32 values
        if not math.isfinite(t32):
            continue
        b = semantics.boundary("<", t32, "float32")
        for x in _probe(t32) + _probe(b):
            with np.errstate(over="ignore"):
                want = bool(np.float32(x) < np.float32(t32))
            if (x <= b) != want:
                bad.append((t32, x))
    assert not bad


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_canonical_float64(op):
    for t in _thresholds(500):
        cop, b = semantics.canonical(op, t, "float64")
        for x in _probe(t):
            want = {"<": x < t, "<=": x <= t, ">": x > t, ">=": x >= t}[op]
            got = x <= b if cop == "<=" else x > b
            assert got == want, (op, t, x)


def test_infinite_thresholds():
    assert semantics.boundary("<=", math.inf, "float32") == math.inf
    b = semantics.boundary("<=", -math.inf, "float32")
    assert not (-3.4028234663852886e38 <= b) and (-math.inf <= b)


def test_literals_round_trip():
    rng = np.random.default_rng(3)
    for x in rng.normal(size=2000) * 10.0 ** rng.integers(-300, 300, size=2000).astype(float):
        assert float(semantics.shortest_repr(x)) == x
        text = semantics.exact17(x)
        assert "e" in text and float(text) == x
