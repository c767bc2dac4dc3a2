"""Input data for the Python API: strings that Python's float() reads too generously are refused."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.errors import DataError
from rulekit.ir.data import to_matrix
from rulekit.ir.model import Feature

FEATURES = [Feature(name="a")]


@pytest.mark.parametrize("cell", ["1_5", "١٢", "１２", "1e_3"])
def test_non_plain_numbers_are_errors(cell):
    with pytest.raises(DataError, match="is not a number"):
        to_matrix({"a": ["1.5", cell]}, FEATURES)


def test_plain_numbers_and_missing_values_read_exactly():
    M = to_matrix({"a": ["1.5", " -2e-3 ", "", None, "nan", "inf", 7]}, FEATURES)
    assert M[:, 0].tolist()[:2] == [1.5, -0.002] and np.isnan(M[2:5, 0]).all()
    assert M[5, 0] == np.inf and M[6, 0] == 7.0
