"""Ensembles (bagging, random forest, extra trees; vote or average; seeds) and oblique splits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.ir.modelfile import dumps_model
from rulekit.learners import (
    BaggingClassifier,
    CARTClassifier,
    CARTRegressor,
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from rulekit.learners.flat_tree import LINEAR, NUMERIC


def _data(n=800, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = ((X[:, 0] + X[:, 1] ** 2 - X[:, 2] > 0.5) ^ (rng.random(n) < 0.1)).astype(int)
    return X, y


@pytest.mark.slow
def test_same_seed_same_ensemble_other_seed_other_ensemble():
    X, y = _data()
    for cls in (RandomForestClassifier, ExtraTreesClassifier, BaggingClassifier):
        a = dumps_model(cls(4, max_depth=8, random_state=3).fit(X, y).model_)
        b = dumps_model(cls(4, max_depth=8, random_state=3).fit(X, y).model_)
        c = dumps_model(cls(4, max_depth=8, random_state=4).fit(X, y).model_)
        assert a == b and a != c


@pytest.mark.slow
def test_forest_beats_a_single_tree_and_votes_or_averages():
    X, y = _data(1000)
    Xt, yt = _data(2000, seed=1)
    tree = CARTClassifier().fit(X, y)
    soft = RandomForestClassifier(25, min_samples_leaf=5, random_state=0).fit(X, y)
    hard = RandomForestClassifier(25, min_samples_leaf=5, voting="hard", random_state=0).fit(X, y)
    assert soft.score(Xt, yt) > tree.score(Xt, yt) + 0.02
    assert hard.model_.combiner.kind == "vote" and soft.model_.combiner.kind == "average"
    votes = np.mean([np.argmax(ct.value[_apply(ct, Xt)], axis=1) for ct in hard.compiled_], axis=0)
    assert np.allclose(hard.predict_proba(Xt)[:, 1], votes)
    assert np.array_equal(hard.predict_proba(Xt), hard.model_.predict_proba(Xt))
    probs = soft.predict_proba(Xt)
    assert set(np.unique(probs * 25).round(9)) - set(np.arange(26)) != set()  # fractions, not votes


def _apply(ct, X):
    from rulekit.ir.compiled import apply

    return apply(ct, np.asarray(X, dtype=np.float64))


def test_random_forest_draws_features_and_bootstrap_samples():
    X, y = _data()
    rf = RandomForestClassifier(10, random_state=0).fit(X, y)
    roots = {int(t.feature[0]) for t in rf.flat_trees_}
    assert len(roots) > 1  # different root features: feature subsets at work
    weights = {float(t.weight[0]) for t in rf.flat_trees_}
    assert weights == {float(len(y))}  # bootstrap counts sum to n
    assert all(t.n_samples[0] < len(y) for t in rf.flat_trees_)  # ~63% distinct rows


def test_extra_trees_thresholds_are_random():
    X, y = _data()
    et = ExtraTreesClassifier(5, random_state=0).fit(X, y)
    cart = CARTClassifier().fit(X, y)
    mids = set(cart.flat_tree_.threshold[cart.flat_tree_.kind == NUMERIC])
    t = et.flat_trees_[0]
    assert t.n_samples[0] == len(y)  # no bootstrap
    assert not set(t.threshold[t.kind == NUMERIC]) & mids
    reg = ExtraTreesRegressor(5, random_state=0).fit(X, X[:, 0] * 2)
    assert reg.score(X, X[:, 0] * 2) > 0.9


def test_regression_forest_averages():
    X, _ = _data()
    y = X[:, 0] * 3 + np.sin(X[:, 1])
    rf = RandomForestRegressor(8, random_state=0).fit(X, y)
    each = np.mean([ct.value[_apply(ct, X)][:, 0] for ct in rf.compiled_], axis=0)
    assert np.allclose(rf.predict(X), each, rtol=0, atol=1e-12)
    assert np.array_equal(rf.predict(X), rf.model_.predict(X))


def test_progress_callback():
    X, y = _data(200)
    seen = []
    RandomForestClassifier(5, random_state=0).fit(X, y, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(i, 5) for i in range(1, 6)]


def _rotated(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (0.8 * X[:, 0] + 0.6 * X[:, 1] > 0.1).astype(int)
    return X, y


@pytest.mark.parametrize("method", ["lda", "logistic"])
def test_oblique_split_beats_axis_parallel_ones(method):
    X, y = _rotated()
    stump = CARTClassifier(max_depth=1).fit(X, y)
    oblique = CARTClassifier(max_depth=1, oblique=method).fit(X, y)
    t = oblique.flat_tree_
    assert t.kind[0] == LINEAR
    feats, weights = t.linear[0]
    assert set(feats) == {0, 1, 2}
    w = dict(zip(feats, weights))
    assert w[1] / w[0] == pytest.approx(0.75, abs=0.1) and abs(w[2]) < 0.15
    assert oblique.score(X, y) > 0.97 > stump.score(X, y) + 0.05
    node = oblique.model_.graph.nodes[0]
    assert node["kind"] == "linear" and node["precision"] == "float64"


def test_oblique_split_kept_only_when_better():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 3))
    y = (X[:, 2] > 0.3).astype(int)  # axis-parallel concept: a univariate split is perfect
    t = CARTClassifier(oblique="lda", max_depth=2).fit(X, y).flat_tree_
    assert t.kind[0] == NUMERIC and t.feature[0] == 2
    assert not t.linear


def test_oblique_regression_tree_and_missing_values():
    X, _ = _rotated(seed=2)
    y = X[:, 0] - 2 * X[:, 1]
    X = X.copy()
    X[::17, 1] = np.nan
    est = CARTRegressor(oblique="lda", max_depth=3).fit(X, y)
    assert est.flat_tree_.linear
    assert np.array_equal(est.predict(X), est.model_.predict(X))
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    assert np.array_equal(CARTRegressor(oblique="lda", max_depth=3).fit(frame, y).predict(frame), est.predict(X))
