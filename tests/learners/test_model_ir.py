"""Learned models in the IR: valid graphs, exact agreement estimator == model == saved-and-loaded
model on training, threshold-probe, missing and unseen-category rows; training rows land in the leaf
the learner counted them in (thresholds and oblique sums separate exactly as predicted)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.ir.tree import depth
from rulekit.learners import (
    BaggingRegressor,
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    ExtraTreesClassifier,
    ID3Classifier,
    RandomForestClassifier,
)
from rulekit.learners.flat_tree import LEAF
from rulekit.probe import probe_rows


def mixed_frame(n=400, seed=0, missing=0.08):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 80, n).astype(float),
        "it's \"odd\"": rng.normal(0, 1, n).round(2),
        "colour": rng.choice(["red", "green", "blue", "ünï"], n).astype(object),
        "size": pd.Categorical(rng.choice(["S", "M", "L"], n), categories=["S", "M", "L"]),
        "w": rng.uniform(-5, 5, n),
    })
    score = (X.age > 45).astype(int) + (X.colour == "red") + (X["it's \"odd\""] + X.w / 3 > 0.2)
    y = np.array(["lo", "mid", "hi", "hi"], dtype=object)[score]
    reg = X.age / 10 + np.where(X.colour == "blue", 3.0, 0.0) + X.w
    Xm = X.copy()
    mask = rng.random((n, X.shape[1])) < missing
    for j, c in enumerate(X.columns):
        Xm.loc[mask[:, j], c] = None if X[c].dtype == object else np.nan
    return X, Xm, y, reg.to_numpy()


def labels_frame(model, M, like: pd.DataFrame) -> pd.DataFrame:
    """A frame of user values for a code matrix (codes -> labels; -1 -> an unseen label)."""
    cols = {}
    for j, f in enumerate(model.features):
        col = M[:, j]
        if f.kind == "nominal":
            vals = [None if np.isnan(c) else ("never seen" if c < 0 else f.domain[int(c)]) for c in col]
            cols[f.name] = pd.Series(vals, dtype=object)
        else:
            cols[f.name] = col
    return pd.DataFrame(cols)[list(like.columns)]


CASES = {
    "id3": lambda: ID3Classifier(max_depth=4),
    "c45": lambda: C45Classifier(),
    "cart": lambda: CARTClassifier(max_depth=6),
    "cart_entropy_lda": lambda: CARTClassifier(criterion="entropy", oblique="lda", max_depth=5),
    "cart_logistic": lambda: CARTClassifier(oblique="logistic", max_depth=4),
    "cart_regressor": lambda: CARTRegressor(max_depth=6),
    "sdr_regressor_oblique": lambda: CARTRegressor(criterion="sdr", oblique="lda", max_depth=4),
    "forest_vote": lambda: RandomForestClassifier(7, voting="hard", max_depth=6, random_state=1),
    "extra_trees_id3": lambda: ExtraTreesClassifier(5, algorithm="id3", random_state=2),
    "bagging_regressor": lambda: BaggingRegressor(4, max_depth=5, random_state=3),
}


@pytest.mark.parametrize("name", list(CASES))
def test_estimator_model_and_file_agree_exactly(name, tmp_path):
    X, Xm, y, reg = mixed_frame()
    est = CASES[name]()
    target = reg if est._task == "regression" else y
    est.fit(Xm, target)
    model = est.model_
    model.validate()
    for t in model.trees:
        for _, a in t.nodes(data=True):
            if a["kind"] in ("numeric", "linear"):
                assert a["op"] == "<=" and a["precision"] == "float64"
    path = tmp_path / "model.json"
    model.save(path)
    loaded = rulekit.load(path)
    M = model.matrix(Xm)
    M = probe_rows(model, M, n_missing=60)
    M[:15, [2, 3]] = -1  # unseen categories
    rows = labels_frame(model, M, Xm)
    if est._task == "classification":
        p = est.predict_proba(rows)
        assert np.array_equal(p, model.predict_proba(rows))
        assert np.array_equal(p, loaded.predict_proba(rows))
        assert np.allclose(p.sum(axis=1), 1.0)
    assert np.array_equal(est.predict(rows), model.predict(rows))
    assert np.array_equal(est.predict(rows), loaded.predict(rows))
    assert np.array_equal(est.apply(rows), model.apply(rows))


@pytest.mark.parametrize("est", [CARTClassifier(), CARTClassifier(oblique="lda"), ID3Classifier(),
                                 CARTRegressor(oblique="logistic", max_depth=8)],
                         ids=["cart", "cart_lda", "id3", "reg_oblique"])
def test_training_rows_reach_the_leaf_they_were_counted_in(est):
    X, _, y, reg = mixed_frame(seed=4)
    est.fit(X, reg if est._task == "regression" else y)
    t = est.flat_tree_
    leaves = est.apply(X)[:, 0]
    counts = np.bincount(leaves, minlength=t.n_nodes)
    is_leaf = t.kind == LEAF
    assert np.array_equal(counts[is_leaf], t.n_samples[is_leaf].astype(int))
    if est._task == "classification":
        assert est.score(X, y) == 1.0  # grown until pure
    if getattr(est, "oblique", None):
        assert t.linear  # the oblique splits are exercised


def test_multiway_nodes_have_other_edge_and_parent_distribution():
    X, _, y, _ = mixed_frame(seed=5)
    est = ID3Classifier(max_depth=2).fit(X[["colour", "size"]], y)
    g = est.model_.graph
    for node, a in g.nodes(data=True):
        if a["kind"] != "nominal":
            continue
        edges = [d["values"] for _, _, d in g.out_edges(node, data=True)]
        domain = est.model_.features[a["feature"]].domain
        assert sorted(v for e in edges if e is not None for v in e) == list(range(len(domain)))
        other = [c for c in g.succ[node] if g.edges[node, c]["values"] is None]
        assert len(other) == 1
        assert g.nodes[other[0]]["value"] == pytest.approx(a["value"])
    unseen = pd.DataFrame({"colour": ["purple"], "size": ["XXL"]})
    root = g.graph["root"]
    assert est.predict_proba(unseen)[0] == pytest.approx(g.nodes[root]["value"])


def test_model_metadata():
    X, _, y, _ = mixed_frame()
    est = CARTClassifier(max_depth=3).fit(X, pd.Series(y, name="risk"))
    m = est.model_
    assert m.target == "risk"
    assert m.classes == ["hi", "lo", "mid"]
    assert m.source["learner"] == "rulekit.learners.CARTClassifier"
    assert m.source["params"]["max_depth"] == 3
    assert depth(m.graph) == est.get_depth() <= 3
    assert est.model_ is m  # built once
