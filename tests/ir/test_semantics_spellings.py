"""``semantics.canonical``'s operator for ``>``/``>=`` and the spellings of non-finite literals:
mutants of these survived the mutation run of docs/testing.md."""

import math

import numpy as np
import pytest

from rulekit import semantics


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_canonical_turns_every_operator_into_le_or_gt(precision):
    t = 0.1
    assert semantics.canonical("<=", t, precision) == ("<=", semantics.le_boundary(t, precision))
    assert semantics.canonical("<", t, precision) == ("<=", semantics.lt_boundary(t, precision))
    assert semantics.canonical(">", t, precision) == (">", semantics.le_boundary(t, precision))
    assert semantics.canonical(">=", t, precision) == (">", semantics.lt_boundary(t, precision))
    with pytest.raises(ValueError, match="=="):
        semantics.canonical("==", t, precision)


def test_canonical_tests_agree_with_the_source_comparison_on_float_neighbours():
    for t in (0.1, -2.5, 1e-30, 3.0e38):
        xs = [t, math.nextafter(t, math.inf), math.nextafter(t, -math.inf), float(np.float32(t))]
        for op in ("<", "<=", ">", ">="):
            kind, b = semantics.canonical(op, t, "float64")
            for x in xs:
                want = {"<": x < t, "<=": x <= t, ">": x > t, ">=": x >= t}[op]
                assert ((x <= b) if kind == "<=" else (x > b)) == want, (op, t, x)


def test_shortest_repr_spells_non_finite_values_and_round_trips_finite_ones():
    assert semantics.shortest_repr(math.inf) == "inf"
    assert semantics.shortest_repr(-math.inf) == "-inf"
    assert semantics.shortest_repr(math.nan) == "nan"
    assert semantics.shortest_repr(np.float64(0.1)) == "0.1"  # not np.float64(0.1)
    for x in (0.0, -0.0, 5e-324, 1.7976931348623157e308, 0.30000000000000004):
        assert float(semantics.shortest_repr(x)) == x and str(semantics.shortest_repr(x)) == repr(x)


def test_exact17_writes_doubles_with_an_exponent_and_refuses_non_finite():
    assert semantics.exact17(1.0) == "1e0"
    assert semantics.exact17(0.1) == "0.10000000000000001e0"
    assert float(semantics.exact17(5e-324)) == 5e-324
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match="infinite or NaN"):
            semantics.exact17(bad)


def test_f32_floor_refuses_a_nan_threshold():
    with pytest.raises(ValueError, match="NaN"):
        semantics.f32_floor(math.nan)
    with pytest.raises(ValueError, match="NaN"):
        semantics.boundary("<=", math.nan, "float32")
