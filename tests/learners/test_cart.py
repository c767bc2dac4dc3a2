"""CART: agreement with scikit-learn on numeric data, subset splits, learned missing direction,
midpoint thresholds, pre-pruning parameters."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from rulekit.learners import CARTClassifier, CARTRegressor
from rulekit.learners import criteria as C
from rulekit.learners import pruning
from rulekit.learners.flat_tree import LEAF


def _numeric(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    # float32-representable values, so scikit-learn's float32 cast changes nothing
    X = (rng.integers(0, 50, (n, 5)) + rng.normal(0, 0.01, (n, 5))).astype(np.float32).astype(np.float64)
    y = ((X[:, 0] + X[:, 1] * 0.5 - X[:, 2] + rng.normal(0, 10, n)) > 10).astype(int)
    yr = X[:, 0] * 2 + np.sin(X[:, 1]) + rng.normal(0, 1, n)
    return X, y, yr


def test_same_tree_as_sklearn_and_same_pruning_path():
    X, y, _ = _numeric()
    ours = CARTClassifier(min_samples_leaf=20).fit(X, y)
    theirs = DecisionTreeClassifier(min_samples_leaf=20, random_state=0).fit(X, y)
    assert ours.flat_tree_.n_nodes == theirs.tree_.node_count
    assert np.array_equal(ours.predict_proba(X), theirs.predict_proba(X))
    alphas, imps = pruning.ccp_path(ours.flat_tree_, True)
    path = theirs.cost_complexity_pruning_path(X, y)
    assert np.allclose(np.unique(alphas.round(12)), np.unique(path.ccp_alphas.round(12)), rtol=1e-9, atol=1e-15)
    assert imps[-1] == pytest.approx(path.impurities[-1])
    for alpha in (0.001, 0.003, 0.01):
        a = CARTClassifier(min_samples_leaf=20, ccp_alpha=alpha).fit(X, y)
        b = DecisionTreeClassifier(min_samples_leaf=20, ccp_alpha=alpha, random_state=0).fit(X, y)
        assert a.get_n_leaves() == b.get_n_leaves()
        assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    bunch = ours.cost_complexity_pruning_path(X, y)
    assert np.array_equal(bunch.ccp_alphas, alphas)


def test_same_regression_tree_as_sklearn():
    X, _, yr = _numeric(seed=1)
    for msl in (5, 20):
        ours = CARTRegressor(min_samples_leaf=msl).fit(X, yr)
        theirs = DecisionTreeRegressor(min_samples_leaf=msl, random_state=0).fit(X, yr)
        assert ours.flat_tree_.n_nodes == theirs.tree_.node_count
        assert np.allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=1e-9)


def _best_subset_gain(codes, y, K, crit="gini"):
    """Brute force over every binary partition of the present categories."""
    cats = sorted(set(codes))
    counts = np.zeros((len(cats), K))
    for c, label in zip(codes, y):
        counts[cats.index(c), label] += 1
    total = counts.sum(axis=0)
    parent = C.weighted_impurity(total, crit)
    best = -np.inf
    for r in range(1, len(cats)):
        for left in itertools.combinations(range(len(cats)), r):
            L = counts[list(left)].sum(axis=0)
            best = max(best, parent - C.weighted_impurity(L, crit) - C.weighted_impurity(total - L, crit))
    return best


@pytest.mark.parametrize("K,D,crit", [(2, 9, "gini"), (2, 12, "entropy"), (3, 6, "gini"), (4, 8, "entropy")])
def test_subset_split_is_the_best_partition(K, D, crit):
    rng = np.random.default_rng(K * 10 + D)
    n = 500
    codes = rng.integers(0, D, n)
    probs = rng.dirichlet(np.ones(K), D)
    y = np.array([rng.choice(K, p=probs[c]) for c in codes])
    X = pd.DataFrame({"cat": pd.Categorical([f"c{c}" for c in codes], categories=[f"c{i}" for i in range(D)])})
    est = CARTClassifier(max_depth=1, criterion=crit).fit(X, y)
    t = est.flat_tree_
    assert t.kind[0] == 2  # a nominal (subset) split
    assert t.gain[0] == pytest.approx(_best_subset_gain(codes, y, K, crit), rel=1e-12)
    edges = t.edge_values[0]
    assert len(edges) == 2 and edges.count(None) == 1


@pytest.mark.slow
def test_subset_heuristic_for_many_categories_and_classes():
    rng = np.random.default_rng(3)
    n, D, K = 600, 14, 3
    codes = rng.integers(0, D, n)
    y = (codes % K + (rng.random(n) < 0.2)) % K
    X = pd.DataFrame({"cat": [f"v{c:02d}" for c in codes]})
    est = CARTClassifier(max_depth=1, max_exhaustive_categories=10).fit(X, y)
    exact = CARTClassifier(max_depth=1, max_exhaustive_categories=14).fit(X, y)
    assert 0 < est.flat_tree_.gain[0] <= exact.flat_tree_.gain[0] * (1 + 1e-12)
    assert exact.flat_tree_.gain[0] == pytest.approx(_best_subset_gain(codes, y, K), rel=1e-12)


def test_subset_split_routes_unseen_and_absent_categories_to_the_heavier_side():
    X = pd.DataFrame({"c": ["a"] * 30 + ["b"] * 10 + ["c"] * 5})
    y = [0] * 30 + [1] * 10 + [1] * 5
    est = CARTClassifier(max_depth=1).fit(X, y)
    heavy = est.predict(pd.DataFrame({"c": ["a"]}))[0]
    assert est.predict(pd.DataFrame({"c": ["zzz"]}))[0] == heavy
    assert est.predict(pd.DataFrame({"c": [None]}))[0] == heavy


def test_learned_missing_direction():
    rng = np.random.default_rng(0)
    n = 400
    x = rng.normal(size=n)
    y = (x > 0).astype(int)
    x_nan = x.copy()
    x_nan[(y == 1) & (rng.random(n) < 0.5)] = np.nan  # missing means class 1
    est = CARTClassifier(max_depth=1).fit(x_nan.reshape(-1, 1), y)
    t = est.flat_tree_
    assert t.threshold[0] == pytest.approx(0.0, abs=0.05)
    assert t.missing[0] == 1  # the side of class 1, although it is the lighter side
    assert est.predict([[np.nan]])[0] == 1
    # without missing values in training, NaN goes to the heavier child
    heavy = CARTClassifier(max_depth=1).fit(np.r_[x, 5.0 + np.arange(200)].reshape(-1, 1),
                                            np.r_[y, np.ones(200, int)])
    t = heavy.flat_tree_
    assert t.missing[0] == int(np.argmax(t.weight[t.child_start[0]:t.child_start[0] + 2]))


def test_midpoint_thresholds_separate_neighbouring_and_huge_values():
    a = 1.0
    b = float(np.nextafter(a, 2.0))
    assert C.midpoint(a, b) == a  # (a+b)/2 rounds to b: use a
    assert C.midpoint(1e308, 1.7e308) == pytest.approx(1.35e308)  # the sum overflows
    assert C.midpoint(1.0, np.inf) == 1.0
    assert C.midpoint(-np.inf, 0.0) == -np.inf
    assert C.midpoint(2.0, 3.0) == 2.5
    X = np.array([[a], [b], [1e308], [1.7e308]])
    est = CARTClassifier().fit(X, [0, 1, 0, 1])
    assert est.score(X, [0, 1, 0, 1]) == 1.0
    assert est.model_.predict(X).tolist() == [0, 1, 0, 1]


def test_pre_pruning_parameters():
    X, y, _ = _numeric(1500, seed=2)
    full = CARTClassifier().fit(X, y)
    assert CARTClassifier(max_depth=3).fit(X, y).get_depth() == 3
    t = CARTClassifier(min_samples_leaf=40).fit(X, y).flat_tree_
    assert t.n_samples[t.kind == LEAF].min() >= 40
    t = CARTClassifier(min_samples_split=200).fit(X, y).flat_tree_
    assert t.n_samples[t.kind != LEAF].min() >= 200
    t = CARTClassifier(impurity_threshold=0.3).fit(X, y).flat_tree_
    assert t.impurity[t.kind != LEAF].min() > 0.3
    t = CARTClassifier(min_impurity_decrease=0.002).fit(X, y).flat_tree_
    assert (t.gain[t.kind != LEAF] / t.weight[0]).min() >= 0.002 - 1e-12
    assert full.get_n_leaves() > CARTClassifier(min_impurity_decrease=0.002).fit(X, y).get_n_leaves()


def test_ordinal_feature_split_at_a_point_of_its_order():
    """An ordered categorical is cut in category order; codes absent from the node still fall on
    their side of the cut, unseen values go right."""
    levels = ["XS", "S", "M", "L", "XL", "XXL"]
    rng = np.random.default_rng(0)
    size = rng.choice(["XS", "M", "L", "XXL"], 400)  # S and XL never seen
    y = np.isin(size, ["XS", "M"]) ^ (rng.random(400) < 0.05)
    y = np.where(y, "small", "big")
    X = pd.DataFrame({"size": pd.Categorical(size, categories=levels, ordered=True)})
    est = CARTClassifier(max_depth=1).fit(X, y)
    t = est.flat_tree_
    assert t.edge_values[0] == [(0, 1, 2), None]  # XS, S, M | L, XL, XXL and anything unseen
    q = pd.DataFrame({"size": pd.Categorical(["S", "XL", "M"], categories=levels, ordered=True)})
    assert est.predict(q).tolist() == ["small", "big", "small"]
    unordered = CARTClassifier(max_depth=1).fit(X.astype({"size": pd.CategoricalDtype(levels)}), y)
    assert unordered.flat_tree_.edge_values[0] != [(0, 1, 2), None]  # a subset of the seen codes
