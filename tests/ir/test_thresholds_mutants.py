"""semantics.thresholds: what its mutation run (docs/testing.md) found untested.

``x < -inf`` refused by the array boundaries too (the scalar and array paths raise the same
MinusInfinityTest, with its one-line message), ``f32_round_down`` (reached by no test of tests/ir),
and the refusal messages of the scalar and array functions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rulekit.semantics import thresholds
from rulekit.semantics.thresholds import MinusInfinityTest

MESSAGE = ("a threshold test 'x < -inf' (true for no value) or 'x >= -inf' (true for every non-missing "
           "value) cannot be evaluated exactly: drop it or write 'x is missing' / 'x is not missing'")


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_less_than_minus_inf_is_refused_by_scalar_and_array(precision):
    with pytest.raises(MinusInfinityTest) as scalar:
        thresholds.boundary("<", -math.inf, precision)
    assert str(scalar.value) == MESSAGE
    with pytest.raises(MinusInfinityTest) as array:
        thresholds.boundary_array("<", np.array([1.0, -math.inf]), precision)
    assert str(array.value) == MESSAGE
    # '<=' -inf has a boundary, scalar and array alike
    assert thresholds.boundary_array("<=", np.array([-math.inf]), precision)[0] == \
        thresholds.boundary("<=", -math.inf, precision)


def test_f32_round_down_is_the_float32_floor():
    for b in (0.1, -0.1, 1.0, 3.4e38, 3.5e38, -3.5e38, 1e-46, -1e-46, math.inf, -math.inf):
        assert thresholds.f32_round_down(b) == thresholds.f32_floor(b)
        assert thresholds.f32_round_down(b) <= b
    assert thresholds.f32_round_down(0.1) == float(np.nextafter(np.float32(0.1), np.float32(-np.inf)))


def test_refusal_messages():
    with pytest.raises(ValueError, match=r"^threshold is NaN$"):
        thresholds.f32_floor(math.nan)
    with pytest.raises(ValueError, match=r"^threshold is NaN$"):
        thresholds.boundary_array("<=", np.array([0.0, math.nan]), "float64")
    with pytest.raises(ValueError, match=r"^unsupported threshold operator '>'$"):
        thresholds.boundary(">", 1.0, "float64")
    with pytest.raises(ValueError, match=r"^unsupported threshold operator '>='$"):
        thresholds.boundary_array(">=", np.array([1.0]), "float64")
    for x in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match=r"^infinite or NaN literal needs dialect-specific handling$"):
            thresholds.exact17(x)
