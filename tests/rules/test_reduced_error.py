"""Reduced-error pruning never makes more errors on its own pruning set (issue #17): the tree pass
and the rule pass (with the ordering that follows it), over many random trees and pruning sets."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.learners import CARTClassifier
from rulekit.rules.tree_prune import reduced_error as tree_rep


def _data(seed: int, n: int, nominal: bool, classes: int):
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(4):
        if nominal and j % 2 == 0:
            cols[f"n{j}"] = pd.Series(rng.choice(["a", "b", "c"], n), dtype=object)
        else:
            x = rng.integers(0, 8, n).astype(float)
            x[rng.random(n) < 0.05] = np.nan
            cols[f"x{j}"] = x
    X = pd.DataFrame(cols)
    signal = (X.iloc[:, 1].fillna(0).to_numpy() > 3).astype(int)
    y = np.where(rng.random(n) < 0.3, rng.integers(0, classes, n), signal % classes)
    return X, y


def _acc(pred, y) -> float:
    return float(np.mean(np.asarray(pred) == np.asarray(y)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(30, 300), m=st.integers(1, 120),
       nominal=st.booleans(), classes=st.integers(2, 3))
def test_tree_reduced_error_never_loses_pruning_accuracy(seed, n, m, nominal, classes):
    X, y = _data(seed, n, nominal, classes)
    Xp, yp = _data(seed + 1, m, nominal, classes)
    model = CARTClassifier(random_state=0).fit(X, y).model_
    pruned, removed = tree_rep(model, Xp, yp)
    assert _acc(pruned.predict(Xp), yp) >= _acc(model.predict(Xp), yp)
    assert removed >= 0 and len(pruned.graph) <= len(model.graph)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(30, 300), m=st.integers(1, 120),
       nominal=st.booleans(), classes=st.integers(2, 3), select=st.booleans())
def test_rule_reduced_error_never_loses_pruning_accuracy(seed, n, m, nominal, classes, select):
    X, y = _data(seed, n, nominal, classes)
    Xp, yp = _data(seed + 1, m, nominal, classes)
    model = CARTClassifier(random_state=0, max_depth=6).fit(X, y).model_
    before = _acc(rulekit.to_rules(model).predict(Xp), yp)
    rb = rulekit.to_rules(model, prune="reduced-error", prune_data=(Xp, yp), mdl=select)
    assert _acc(rb.predict(Xp), yp) >= before
