"""Callers of the combiner reference that are neither ``Model`` nor an exporter: rulekit's own
estimators (``learners._base``: ``est.predict_proba`` without building ``model_``) and the row
differ (``diffing.rows.scores``: one scoring pass per side). Each must give ``Model``'s numbers
and follow :mod:`rulekit.semantics.combiners` itself, not a copy of it: the tests swap the
reference for a variant (ties to the last class, a scaled aggregate) and expect the caller to follow.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.diffing import rows
from rulekit.learners import BaggingClassifier, RandomForestClassifier, RandomForestRegressor
from rulekit.semantics import combiners
from tests.ir.test_combiners import MODELS, XS

_rng = np.random.default_rng(0)
X = _rng.normal(size=(160, 4))
Y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 0.8)
ESTIMATORS = {
    "forest-1-hard": lambda: RandomForestClassifier(n_estimators=1, voting="hard", max_depth=2, random_state=0),
    "forest-4-hard": lambda: RandomForestClassifier(n_estimators=4, voting="hard", max_depth=2, random_state=0),
    "forest-4-soft": lambda: RandomForestClassifier(n_estimators=4, random_state=0),
    "bagging-3": lambda: BaggingClassifier(n_estimators=3, random_state=1),
    "regressor-3": lambda: RandomForestRegressor(n_estimators=3, random_state=0),
}


def _fit(name):
    est = ESTIMATORS[name]()
    return est.fit(X, X[:, 0] * 2 + X[:, 3] if name.startswith("regressor") else Y)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_estimator_equals_its_model(name):
    """One hard-voting tree: ``model_`` is a ``single`` tree (its leaf's class fractions); the
    estimator's own copy of the averaging and voting gave one-hot votes there."""
    est = _fit(name)
    if name.startswith("regressor"):
        assert est.predict(X).tolist() == est.model_.predict(X).tolist()
        return
    assert est.predict_proba(X).tolist() == est.model_.predict_proba(X).tolist()
    assert est.predict(X).tolist() == est.model_.predict(X).tolist()


@pytest.mark.parametrize("name", ["forest-4-hard", "forest-4-soft", "regressor-3"])
def test_estimator_follows_the_reference(name, monkeypatch):
    est = _fit(name)
    want = combiners.aggregate

    def scaled(red, values, n):
        return want(red, values, n) * 3.0

    monkeypatch.setattr(combiners, "aggregate", scaled)
    got = est.predict(X) if name.startswith("regressor") else est.predict_proba(X)
    ref = est.model_.predict(X) if name.startswith("regressor") else est.model_.predict_proba(X)
    assert got.tolist() == ref.tolist()


def _data():
    return pd.DataFrame({"x": XS})


@pytest.mark.parametrize("name", [n for n, m in MODELS.items() if m.task == "classification"])
def test_row_scores_equal_the_model(name):
    m = MODELS[name]
    labels, P = rows.scores(m, _data())
    assert labels.tolist() == m.predict(_data()).tolist()
    assert P.tolist() == m.predict_proba(_data()).tolist()


def _last_largest(red, raw, proba=None):
    """label_index with ties to the last class (a variant the callers must follow, not a fix)."""
    p = combiners.probabilities(red, raw) if proba is None else proba
    if red.label != "argmax":
        return _first_largest(red, raw, proba)
    return p.shape[1] - 1 - np.argmax(p[:, ::-1], axis=1)


_first_largest = combiners.label_index


@pytest.mark.parametrize("name", ["average-f32", "vote", "sigmoid-raw>0", "sigmoid-f32-raw>0"])
def test_row_scores_follow_the_reference(name, monkeypatch):
    m = MODELS[name]
    monkeypatch.setattr(combiners, "label_index", _last_largest)
    labels, _ = rows.scores(m, _data())
    assert labels.tolist() == m.predict(_data()).tolist()
    if name in ("average-f32", "vote"):  # the fixtures tie there: the variant does change labels
        monkeypatch.setattr(combiners, "label_index", _first_largest)
        assert labels.tolist() != m.predict(_data()).tolist()
