"""Sample weights (integer weights = repeated rows, zero = removed), determinism, and deep trees
grown, saved, loaded and evaluated without recursion."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.ir.modelfile import dumps_model
from rulekit.ir.tree import depth
from rulekit.learners import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier


def _mixed(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 20, n).astype(float), "b": rng.choice(list("pqrs"), n),
                      "c": rng.normal(size=n).round(2)})
    y = np.where((X.a > 9) ^ X.b.isin(["p", "q"]) ^ (rng.random(n) < 0.1), "x", "y")
    return X, y


ESTIMATORS = [lambda: ID3Classifier(max_depth=4), lambda: C45Classifier(),
              lambda: CARTClassifier(max_depth=6), lambda: CARTRegressor(max_depth=6)]


@pytest.mark.parametrize("make", ESTIMATORS, ids=["id3", "c45", "cart", "regressor"])
def test_integer_weights_equal_repeated_rows_and_zero_weights_removed_rows(make):
    X, y = _mixed()
    target = X.c.to_numpy() * 3 + (y == "x") if make()._task == "regression" else y
    rng = np.random.default_rng(1)
    w = rng.integers(0, 4, len(y)).astype(float)
    weighted = make().fit(X, target, sample_weight=w)
    rep = np.repeat(np.arange(len(y)), w.astype(int))
    repeated = make().fit(X.iloc[rep].reset_index(drop=True), target[rep])
    a, b = weighted.flat_tree_, repeated.flat_tree_
    assert a.n_nodes == b.n_nodes
    assert np.array_equal(a.threshold, b.threshold) and np.array_equal(a.feature, b.feature)
    assert np.allclose(a.value, b.value, rtol=1e-12, atol=1e-12)
    assert np.allclose(weighted.predict(X) if make()._task == "regression" else weighted.predict_proba(X),
                       repeated.predict(X) if make()._task == "regression" else repeated.predict_proba(X),
                       rtol=1e-12, atol=1e-12)


def test_weights_change_the_split():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = [0, 1, 0, 1]
    heavy = CARTClassifier(max_depth=1).fit(X, y, sample_weight=[10, 10, 1, 1])
    assert heavy.flat_tree_.threshold[0] == 0.5
    heavy = CARTClassifier(max_depth=1).fit(X, y, sample_weight=[1, 1, 10, 10])
    assert heavy.flat_tree_.threshold[0] == 2.5


def test_fitting_twice_gives_the_same_model_file():
    X, y = _mixed()
    for make in ESTIMATORS[:3]:
        assert dumps_model(make().fit(X, y).model_) == dumps_model(make().fit(X, y).model_)


@pytest.mark.slow
def test_deep_tree_without_recursion(tmp_path):
    # alternating labels: every best split peels one row off the end, a chain as deep as the data
    n = 1500
    X = np.arange(n, dtype=np.float64).reshape(-1, 1)
    y = np.arange(n) % 2
    est = CARTClassifier().fit(X, y)
    assert est.get_depth() >= n // 2
    model = est.model_
    assert depth(model.graph) == est.get_depth()
    path = tmp_path / "deep.json"
    model.save(path)
    loaded = rulekit.load(path)
    probe = np.r_[X[:, 0], X[:-1, 0] + 0.5, [np.nan, -1.0, n + 1.0]].reshape(-1, 1)
    assert np.array_equal(est.predict(probe), loaded.predict(probe))
    assert est.score(X, y) == 1.0


@pytest.mark.parametrize("make", [lambda: CARTClassifier(max_depth=6), lambda: C45Classifier(prune=None),
                                  lambda: CARTRegressor(max_depth=5)], ids=["cart", "c45", "regressor"])
def test_memory_chunks_do_not_change_the_tree(make, monkeypatch):
    from rulekit.learners import builder

    X, y = _mixed()
    X = X.assign(d=np.where(np.arange(len(X)) % 7 == 0, np.nan, X.c * 2), e=X.a / 3)
    target = X.a.to_numpy() + (y == "x") if make()._task == "regression" else y
    whole = dumps_model(make().fit(X, target).model_)
    monkeypatch.setattr(builder, "_CHUNK", 50)  # one numeric feature per pass
    assert dumps_model(make().fit(X, target).model_) == whole
