"""A hard-voting forest of one tree still votes: its probabilities are one-hot, in the estimator, its
``model_`` (combiner ``vote``, not ``single``) and the exports (found in a review: both had become
the leaf's class fractions)."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
from sklearn.datasets import load_iris

import rulekit.export
from rulekit.learners import RandomForestClassifier


def test_one_tree_hard_vote_is_one_hot_everywhere():
    X, y = load_iris(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=1, voting="hard", max_depth=2, random_state=0).fit(X, y)
    proba = forest.predict_proba(X)
    assert forest.model_.combiner.kind == "vote"
    assert set(np.unique(proba)) <= {0.0, 1.0} and np.all(proba.sum(axis=1) == 1.0)
    assert np.array_equal(forest.model_.predict_proba(X), proba)
    onnx_model = rulekit.export.to_onnx(forest.model_)
    sess = ort.InferenceSession(onnx_model.SerializeToString(), providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    dtype = np.float32 if sess.get_inputs()[0].type == "tensor(float)" else np.float64
    labels, probabilities = sess.run(None, {name: X.astype(dtype)})[:2]
    assert list(labels) == list(forest.model_.predict(X))
    assert np.array_equal(np.asarray(probabilities, dtype=np.float64), proba)


def test_one_tree_soft_vote_keeps_the_leaf_fractions():
    X, y = load_iris(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=1, voting="soft", max_depth=2, random_state=0).fit(X, y)
    assert forest.model_.combiner.kind == "single"
    assert not set(np.unique(forest.predict_proba(X))) <= {0.0, 1.0}
