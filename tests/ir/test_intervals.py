"""rulekit.semantics.intervals: a comparison's TRUE interval and the set operations, against brute force.

The brute force is the comparison itself, ``cast(x) op t`` with ``cast`` the rule base's precision
(float32: numpy's rounding of the double), on the float64 neighbours of ``t``, of its float32
neighbours and of the interval's own ends (where an off-by-one-ulp bound shows), plus the extremes.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.semantics import intervals
from rulekit.semantics.intervals import Bound

from tests.marks import lane_examples

OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "=": operator.eq,
       "!=": operator.ne}
DMAX = 1.7976931348623157e308
F32MAX = float(np.finfo(np.float32).max)
EXTREMES = [-math.inf, -DMAX, -F32MAX, -0.0, 0.0, 5e-324, F32MAX, DMAX, math.inf]


def cast(x: float, precision: str) -> float:
    if precision == "float64":
        return x
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def around(v: float, k: int = 2) -> list[float]:
    """``v`` and its ``k`` float64 neighbours on each side."""
    out = [v]
    lo = hi = v
    for _ in range(k):
        lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
        out += [lo, hi]
    return out


def probes(t: float, pairs) -> list[float]:
    xs = around(t) + EXTREMES
    if math.isfinite(t) and abs(t) <= F32MAX:
        f = float(np.float32(t))
        xs += around(f)
        with np.errstate(over="ignore"):
            f32 = np.float32(f)
            for g in (np.nextafter(f32, np.float32(math.inf)), np.nextafter(f32, np.float32(-math.inf))):
                xs += around(float(g))
                xs += around((f + float(g)) / 2)  # the midpoints where float32 rounding turns
    for lo, hi in pairs:
        xs += around(lo) + around(hi)
    return [x for x in xs if not math.isnan(x)]


# -inf is left out: ``x < -inf`` holds for no value, which a canonical ``x <= b`` cannot say
# (thresholds.canonical gives b = -inf); every finite threshold and +inf are exact.
thresholds = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from([math.inf, -0.0, 0.0, DMAX, -DMAX, F32MAX, -F32MAX, 5e-324, 0.1, 1.5, 2.5, 1e38, 3.5e38]),
)


@settings(max_examples=lane_examples(400), deadline=None)
@given(t=thresholds, op=st.sampled_from(list(OPS)), precision=st.sampled_from(["float32", "float64"]))
def test_closed_equals_brute_force(t, op, precision):
    pairs = intervals.closed(op, t, precision)
    for (lo, hi), nxt in zip(pairs, pairs[1:]):
        assert lo <= hi < nxt[0]  # sorted, disjoint
    for lo, hi in pairs:
        assert lo <= hi
    for x in probes(t, pairs):
        want = OPS[op](cast(x, precision), t)
        assert intervals.member(pairs, x) == want, (op, t, precision, x, pairs)


@pytest.mark.parametrize("precision", ["float32", "float64"])
@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_one_sided_bounds(op, precision):
    for t in [0.1, -2.5, 1e-40, 3.5e38, DMAX, math.inf]:
        pairs = intervals.closed(op, t, precision)
        if op in ("<", "<="):
            assert pairs == ((-math.inf, intervals.upper(op, t, precision)),)
        else:
            a = intervals.lower(op, t, precision)
            assert pairs == (() if a is None else ((a, math.inf),))


def test_greater_than_the_largest_double_holds_at_infinity():
    # the one value above 1.797e308 is +inf (rules.boxes and the ONNX rule export said: no value)
    assert intervals.closed(">", DMAX, "float64") == ((math.inf, math.inf),)
    assert intervals.closed(">", math.inf, "float64") == ()
    assert intervals.closed(">=", math.inf, "float64") == ((math.inf, math.inf),)


def test_nan_and_unknown_operator_refused():
    with pytest.raises(ValueError, match="is missing"):
        intervals.closed("<=", math.nan, "float64")
    with pytest.raises(ValueError, match="operator"):
        intervals.closed("<>", 1.0, "float64")


# --- set operations ------------------------------------------------------------------------------

GRID = [-math.inf, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, math.inf]


@st.composite
def sets(draw):
    """A set as raw closed intervals on GRID values and their neighbours (overlapping, adjacent,
    empty ones included), normalised by ``merge``."""
    ends = st.sampled_from(GRID).flatmap(lambda v: st.sampled_from(around(v, 1)))
    raw = draw(st.lists(st.tuples(ends, ends), max_size=4))
    return raw, intervals.merge((Bound(lo), Bound(hi)) for lo, hi in raw)


def inside(s, x) -> bool:
    return intervals.member([(lo.at, hi.at) for lo, hi in s], x)


def points(*sets_) -> list[float]:
    xs = [x for v in GRID for x in around(v, 2)]
    for s in sets_:
        for lo, hi in s:
            xs += around(lo.at, 1) + around(hi.at, 1)
    return xs


def well_formed(s) -> bool:
    """Sorted, non-empty intervals with a gap of at least one double between neighbours."""
    return all(lo.at <= hi.at for lo, hi in s) and all(
        math.nextafter(a[1].at, math.inf) < b[0].at for a, b in zip(s, s[1:]))


@settings(max_examples=lane_examples(300), deadline=None)
@given(a=sets(), b=sets())
def test_set_operations_equal_brute_force(a, b):
    raw_a, A = a
    _, B = b
    for s in (A, B):
        assert well_formed(s)
    I, U, C = intervals.intersect(A, B), intervals.union(A, B), intervals.complement(A)
    for s in (I, U, C):
        assert well_formed(s)
    for x in points(A, B):
        in_raw = any(lo <= x <= hi for lo, hi in raw_a)
        assert inside(A, x) == in_raw
        assert inside(I, x) == (inside(A, x) and inside(B, x))
        assert inside(U, x) == (inside(A, x) or inside(B, x))
        assert inside(C, x) == (not inside(A, x))
    subset = all(inside(A, x) for x in points(A, B) if inside(B, x))
    assert intervals.contains(A, B) == subset
    assert intervals.is_universe(A) == (A == intervals.ALL)
    assert intervals.complement(C) == A


def test_complement_carries_negated_literals():
    s = ((Bound(1.0, "lo"), Bound(2.0, "hi")),)
    out = intervals.complement(s, lambda lit: "not " + lit)
    assert out == ((intervals.LOW, Bound(math.nextafter(1.0, -math.inf))),
                   (Bound(math.nextafter(2.0, math.inf)), intervals.HIGH))
    assert [b.lit for iv in out for b in iv] == [None, "not lo", "not hi", None]


def test_intersect_keeps_the_tighter_bounds_literal():
    a = ((Bound(0.0, "a>=0"), Bound(5.0, "a<=5")),)
    b = ((Bound(1.0, "b>=1"), Bound(9.0, "b<=9")),)
    ((lo, hi),) = intervals.intersect(a, b)
    assert (lo.lit, hi.lit) == ("b>=1", "a<=5")


def test_no_numpy_at_import():
    import subprocess
    import sys

    code = ("import sys; from rulekit.semantics import intervals, values; "
            "intervals.closed('<', 0.5, 'float32'); print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
