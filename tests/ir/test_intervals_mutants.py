"""semantics.intervals: what its mutation run (docs/testing.md) found untested.

The signed zero kept out of the remembered boundaries, ``remember``/``bounds`` (reached by no test of
tests/ir), the NaN refusal's message, the literals a complement carries into the gaps between
intervals, which literal an intersection or a merge keeps on a tie, and ``contains`` past the
second interval (the mutant that loops there shows as a hang).
"""

from __future__ import annotations

import math

import pytest

from rulekit.semantics import intervals, thresholds
from rulekit.semantics.intervals import Bound


def _sign(x: float) -> float:
    return math.copysign(1.0, x)


@pytest.mark.parametrize("op", ["<=", ">"])
def test_signed_zero_is_not_remembered_as_the_other_zero(op):
    intervals.forget()
    for first, second in ((0.0, -0.0), (-0.0, 0.0)):
        want = thresholds.canonical(op, second, "float64")
        intervals.canonical(op, first, "float64")
        got = intervals.canonical(op, second, "float64")
        assert got == want and _sign(got[1]) == _sign(want[1]) == _sign(second)


def test_remember_is_what_canonical_answers():
    intervals.forget()
    fake = ("<=", 12.5)  # not what thresholds says for 3.0: the remembered entry is returned
    intervals.remember([(("<=", 3.0, "float64"), fake)])
    try:
        assert intervals.known() == 1
        assert intervals.canonical("<=", 3.0, "float64") == fake
        assert intervals.upper("<=", 3.0, "float64") == 12.5
    finally:
        intervals.forget()
    assert intervals.known() == 0
    assert intervals.canonical("<=", 3.0, "float64") == thresholds.canonical("<=", 3.0, "float64")


def test_bounds_are_the_pairs():
    got = intervals.bounds([(-1.0, 2.0), (3.0, math.inf)])
    assert [(lo.at, hi.at) for lo, hi in got] == [(-1.0, 2.0), (3.0, math.inf)]
    assert all(lo.lit is None and hi.lit is None for lo, hi in got)
    assert intervals.bounds([]) == ()


def test_nan_refusal_names_is_missing():
    with pytest.raises(ValueError, match=r"^comparison with NaN \(use 'is missing'\)$"):
        intervals.closed("<=", math.nan, "float64")


def test_complement_negates_the_literals_next_to_each_gap():
    a = ((Bound(0.0, "lo0"), Bound(1.0, "hi0")), (Bound(2.0, "lo1"), Bound(3.0, "hi1")))
    got = intervals.complement(a, lambda lit: f"not {lit}")
    assert [(lo.at, hi.at) for lo, hi in got] == [
        (-math.inf, intervals.next_down(0.0)), (intervals.next_up(1.0), intervals.next_down(2.0)),
        (intervals.next_up(3.0), math.inf)]
    assert [(lo.lit, hi.lit) for lo, hi in got] == [
        (None, "not lo0"), ("not hi0", "not lo1"), ("not hi1", None)]


def test_intersect_keeps_the_first_sets_literal_on_a_tie():
    a = ((Bound(0.0, "a_lo"), Bound(5.0, "a_hi")),)
    b = ((Bound(0.0, "b_lo"), Bound(5.0, "b_hi")),)
    (lo, hi), = intervals.intersect(a, b)
    assert (lo.lit, hi.lit) == ("a_lo", "a_hi")
    (lo, hi), = intervals.intersect(b, a)
    assert (lo.lit, hi.lit) == ("b_lo", "b_hi")


def test_contains_past_the_second_interval():
    a = intervals.bounds([(0.0, 1.0), (2.0, 3.0), (4.0, 5.0), (6.0, 7.0)])
    assert intervals.contains(a, intervals.bounds([(0.5, 0.6), (4.5, 4.6), (6.0, 7.0)]))
    assert not intervals.contains(a, intervals.bounds([(4.5, 6.5)]))
    assert not intervals.contains(a, intervals.bounds([(7.5, 8.0)]))


def test_merge_keeps_the_first_upper_literal_on_a_tie():
    got = intervals.merge([(Bound(1.0, "b_lo"), Bound(5.0, "b_hi")), (Bound(0.0, "a_lo"), Bound(5.0, "a_hi")),
                           (Bound(2.0, "c_lo"), Bound(4.0, "c_hi"))])
    assert [(lo.at, hi.at, lo.lit, hi.lit) for lo, hi in got] == [(0.0, 5.0, "a_lo", "a_hi")]
