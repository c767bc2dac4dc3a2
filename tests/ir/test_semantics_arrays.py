"""The vectorized boundaries (``semantics.boundary_array``, used by big models) equal the scalar
``semantics.boundary`` bit for bit on every kind of threshold; the scalar one is checked against the
source comparison in test_semantics.py. Added after a mutation run (docs/testing.md) found that no
test of tests/ir reached the array code: flipping its float32 branch or its rounding survived."""

import numpy as np
import pytest

from rulekit import semantics

F32_MAX = float(np.finfo(np.float32).max)
# thresholds beyond float32's range overflow in numpy's float32 nextafter: expected, and exact
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


def _thresholds(seed=0, n=2000):
    rng = np.random.default_rng(seed)
    spread = rng.normal(size=n) * 10.0 ** rng.integers(-40, 40, size=n).astype(float)
    f = rng.normal(size=n).astype(np.float32)
    f32 = f.astype(np.float64)
    mids = (f32 + np.nextafter(f, np.float32(np.inf)).astype(np.float64)) / 2  # scikit-learn's
    edges = [0.0, -0.0, 1e-45, -1e-45, 1.5, -2.5, F32_MAX, -F32_MAX, np.nextafter(F32_MAX, np.inf),
             np.nextafter(-F32_MAX, -np.inf), 1e39, -1e39, np.inf, -np.inf, 1e300, -1e300]
    ts = np.concatenate([spread, f32, mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf),
                         np.asarray(edges, dtype=np.float64)])
    return ts


@pytest.mark.parametrize("precision", ["float32", "float64"])
@pytest.mark.parametrize("op", ["<=", "<"])
def test_boundary_array_equals_the_scalar_boundary(op, precision):
    ts = _thresholds()
    if op == "<":  # 'x < -inf' is refused by both (tests/ir/test_intervals_minus_inf.py)
        ts = ts[ts != -np.inf]
    got = semantics.boundary_array(op, ts, precision)
    want = np.asarray([semantics.boundary(op, float(t), precision) for t in ts])
    assert got.dtype == np.float64
    same = (got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), [(t, g, w) for t, g, w in zip(ts[~same], got[~same], want[~same])][:5]


def test_boundary_array_takes_lists_and_float32_arrays():
    ts = np.asarray([0.1, 0.3, 2.5], dtype=np.float32)
    want = [semantics.boundary("<=", float(t), "float32") for t in ts]
    assert semantics.boundary_array("<=", ts, "float32").tolist() == want
    assert semantics.boundary_array("<=", [0.1, 0.3], "float64").tolist() == [0.1, 0.3]
    for op in ("<=", "<"):  # float32 input, float64 tests: the boundaries are doubles
        got = semantics.boundary_array(op, ts, "float64")
        assert got.dtype == np.float64
        assert got.tolist() == [semantics.boundary(op, float(t), "float64") for t in ts]


def test_boundary_array_refuses_nan_thresholds_and_unknown_operators():
    with pytest.raises(ValueError, match="NaN"):
        semantics.boundary_array("<=", np.asarray([1.0, np.nan]), "float32")
    with pytest.raises(ValueError, match="operator"):
        semantics.boundary_array(">", np.asarray([1.0]), "float32")


def test_float64_boundary_array_does_not_alias_its_input():
    ts = np.asarray([1.0, 2.0])
    out = semantics.boundary_array("<=", ts, "float64")
    out[0] = 5.0
    assert ts[0] == 1.0


def test_scalar_float32_floor_equals_the_array_floor():
    """The scalar functions round with ``struct`` (no numpy at import, for start-up time), the array
    ones with numpy: the same floor on random float32 bit patterns (subnormals, zeros, the largest
    values, infinities) and the doubles next to them."""
    bits = np.random.default_rng(5).integers(0, 2**32, size=20000, dtype=np.uint64).astype(np.uint32)
    f = bits.view(np.float32).astype(np.float64)
    f = f[~np.isnan(f)]
    ts = np.concatenate([_thresholds(), f, np.nextafter(f, np.inf), np.nextafter(f, -np.inf)])
    got = np.asarray([semantics.f32_floor(float(t)) for t in ts])
    want = semantics.f32_floor_array(ts)
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    assert same.all(), [(t, g, w) for t, g, w in zip(ts[~same], got[~same], want[~same])][:5]
    f = f[f != -np.inf]  # 'x < -inf' is refused (tests/ir/test_intervals_minus_inf.py)
    for op in ("<=", "<"):
        got = np.asarray([semantics.boundary(op, float(t), "float32") for t in f])
        want = semantics.boundary_array(op, f, "float32")
        same = (got == want) & (np.signbit(got) == np.signbit(want))
        assert same.all(), [(t, g, w) for t, g, w in zip(f[~same], got[~same], want[~same])][:5]
