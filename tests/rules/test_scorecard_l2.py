"""The scorecard's ``l2`` is checked where it enters (Python API): a non-positive, NaN, infinite or
non-number value is one clear RulekitError, not a ZeroDivisionError, NaN scores or an empty card."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.errors import RulekitError
from rulekit.rules import scorecard
from rulekit.rules.scorecard import ScorecardLearner

BAD = [0.0, -1.0, float("nan"), float("inf"), "strong", None]


def _data():
    x = np.random.default_rng(0).normal(size=200)
    return pd.DataFrame({"x": x}), (x > 0).astype(int)


@pytest.mark.parametrize("l2", BAD)
def test_a_bad_l2_is_one_clear_error(l2):
    X, y = _data()
    with pytest.raises(RulekitError, match=r"l2 must be a positive finite number"):
        ScorecardLearner(l2=l2).fit(X, y)


@pytest.mark.parametrize("l2", BAD)
def test_learn_checks_l2_too(l2):
    X, y = _data()
    shell = scorecard.shell_of(ScorecardLearner().fit(X, y).rule_base_)
    with pytest.raises(RulekitError, match=r"l2 must be a positive finite number"):
        scorecard.learn(shell, X.to_numpy(float), y, l2=l2)


@pytest.mark.parametrize("l2", [1e-3, 1.0, 1e6])
def test_a_positive_l2_learns_a_card(l2):
    X, y = _data()
    rb = ScorecardLearner(l2=l2).fit(X, y).rule_base_
    assert rb.rules and (np.asarray(rb.predict(X)).astype(int) == y).mean() > 0.9
