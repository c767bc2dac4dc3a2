"""Regression trees (MSE with mean leaves, standard-deviation reduction, θ_r) and post-pruning
(reduced-error with a pruning set, cost-complexity chosen on data)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.learners import CARTClassifier, CARTRegressor, ID3Classifier
from rulekit.learners import criteria as C
from rulekit.learners import pruning
from rulekit.learners.flat_tree import LEAF


def _regression(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.uniform(0, 10, n), "g": rng.choice(["a", "b", "c"], n)})
    y = np.sin(X.x) * 3 + np.where(X.g == "b", 2.0, 0.0) + rng.normal(0, 0.3, n)
    return X, y.to_numpy()


def test_leaves_predict_the_mean_of_their_rows():
    X, y = _regression()
    est = CARTRegressor(max_depth=4).fit(X, y)
    leaf = est.apply(X)[:, 0]
    t = est.flat_tree_
    for node in np.unique(leaf):
        assert t.value[node, 0] == pytest.approx(y[leaf == node].mean(), rel=1e-12)
    assert est.score(X, y) > 0.8


def test_standard_deviation_reduction_root_split():
    X, y = _regression(seed=1)
    est = CARTRegressor(criterion="sdr", max_depth=1).fit(X[["x"]], y)
    table = C.numeric_split_table(X.x, y, "sdr")  # weighted child standard deviation per threshold
    best = min(table, key=lambda tc: tc[1])
    xs = np.sort(np.unique(X.x))
    i = int(np.searchsorted(xs, best[0], side="right"))  # the table's midpoint lies between xs[i-1] and xs[i]
    assert est.flat_tree_.threshold[0] == C.readable_threshold(xs[i - 1], xs[i])[0]  # same split, short
    sdr = np.std(y) - best[1]  # population standard deviations, as in the notes' SD(D)
    assert est.flat_tree_.gain[0] / len(y) == pytest.approx(sdr, rel=1e-9)


def test_impurity_threshold_theta_r():
    X, y = _regression(seed=2)
    theta = 0.5
    t = CARTRegressor(impurity_threshold=theta).fit(X, y).flat_tree_
    assert (t.impurity[t.kind != LEAF] > theta).all()
    assert t.n_leaves() < CARTRegressor().fit(X, y).get_n_leaves()


def _noisy(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    flip = rng.random(n) < 0.2
    return X, np.where(flip, 1 - y, y)


def test_reduced_error_pruning_with_a_pruning_set():
    X, y = _noisy(1500, 0)
    Xp, yp = _noisy(500, 1)
    grown = CARTClassifier().fit(X, y)
    pruned = CARTClassifier(prune="reduced-error").fit(X, y, X_prune=Xp, y_prune=yp)
    assert pruned.get_n_leaves() < grown.get_n_leaves() / 4
    assert pruned.score(Xp, yp) >= grown.score(Xp, yp)
    # no remaining split can be collapsed without more pruning-set errors
    t = pruned.flat_tree_
    totals = pruning.example_totals(t, Xp, yp, np.ones(len(yp)), True, 2, [0] * 4)
    err_leaf = pruning.leaf_errors(t, totals, True)
    leaves = t.kind == LEAF
    par = t.parents()
    sub = np.where(leaves, err_leaf, 0.0)
    for i in range(t.n_nodes - 1, 0, -1):
        sub[par[i]] += sub[i]
    assert (err_leaf[~leaves] > sub[~leaves]).all()
    Xt, yt = _noisy(2000, 2)
    assert pruned.score(Xt, yt) > grown.score(Xt, yt)


def test_reduced_error_pruning_holds_out_part_of_the_data():
    X, y = _noisy(1200, 3)
    a = CARTClassifier(prune="reduced-error", prune_fraction=0.3, random_state=5).fit(X, y)
    b = CARTClassifier(prune="reduced-error", prune_fraction=0.3, random_state=5).fit(X, y)
    assert a.get_n_leaves() == b.get_n_leaves() < CARTClassifier().fit(X, y).get_n_leaves() / 4
    assert a.flat_tree_.weight[0] == pytest.approx(1200 * 0.7, abs=1)


def test_reduced_error_pruning_regression_and_nominal():
    X, y = _regression(seed=4)
    Xp, yp = _regression(300, seed=5)
    grown = CARTRegressor().fit(X, y)
    pruned = CARTRegressor(prune="reduced-error").fit(X, y, X_prune=Xp, y_prune=yp)
    assert pruned.get_n_leaves() < grown.get_n_leaves()
    assert pruned.score(Xp, yp) >= grown.score(Xp, yp)
    Xc = pd.DataFrame({"a": np.where(X.x > 5, "hi", "lo"), "g": X.g})
    yc = np.where(y > 1, "up", "down")
    id3 = ID3Classifier(prune="reduced-error", random_state=0).fit(Xc, yc)
    id3.model_.validate()


@pytest.mark.slow
def test_cost_complexity_alpha_chosen_on_pruning_set_and_by_cross_validation():
    X, y = _noisy(1500, 6)
    Xp, yp = _noisy(600, 7)
    grown = CARTClassifier().fit(X, y)
    alphas, _ = pruning.ccp_path(grown.flat_tree_, True)
    on_set = CARTClassifier(prune="cost-complexity").fit(X, y, X_prune=Xp, y_prune=yp)
    assert on_set.ccp_alpha_ in set(alphas)
    # the chosen alpha minimizes the pruning-set error along the path
    errs = [1 - CARTClassifier(ccp_alpha=a).fit(X, y).score(Xp, yp) for a in np.unique(alphas)[::8]]
    assert 1 - on_set.score(Xp, yp) <= min(errs) + 1e-12
    cv = CARTClassifier(prune="cost-complexity", cv=4, random_state=0).fit(X, y)
    assert 0 < cv.ccp_alpha_ and cv.get_n_leaves() < grown.get_n_leaves() / 4
    Xt, yt = _noisy(2000, 8)
    assert cv.score(Xt, yt) > grown.score(Xt, yt)
