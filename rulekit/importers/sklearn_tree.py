"""What every scikit-learn importer reads from a fitted estimator: one ``sklearn.tree._tree.Tree``
as a rulekit tree graph (``tree_graph``), its feature names and classes, and the checks that it is a
fitted single-output model.

A module of its own so that ``sklearn`` (the dispatcher), ``sklearn_gb`` and ``sklearn_hist`` import
it at the top; it imports none of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.ir.tree import graph_from_parts

_TREE_LEAF = -1


def feature_names(est: Any, n: int) -> list[str]:
    """The names the estimator was fitted with, else ``x0 .. x{n-1}``."""
    names = getattr(est, "feature_names_in_", None)
    if names is not None:
        return [str(s) for s in names]
    return [f"x{i}" for i in range(n)]


def class_labels(est: Any) -> list:
    """``est.classes_`` as plain Python values (numpy scalars unwrapped), in the estimator's order."""
    return [c.item() if isinstance(c, np.generic) else c for c in est.classes_]


def tree_graph(tree_: Any, *, classifier: bool, scale: float | None = None,
               double: bool = False, nan_right: bool = False):
    """One fitted ``sklearn.tree._tree.Tree`` as a rulekit tree graph (node ids kept).

    Regression leaves become ``value * scale`` (then ``* 2`` when ``double``), the float64 products
    gradient boosting adds. ``nan_right`` sends NaN right on every split, ignoring
    ``missing_go_to_left`` (what gradient boosting's ``predict_stages`` does).
    """
    left, right = tree_.children_left, tree_.children_right
    n = tree_.node_count
    is_leaf = left == _TREE_LEAF
    n_samples = tree_.weighted_n_node_samples.tolist()
    impurity = tree_.impurity.tolist()
    if classifier:
        v = tree_.value[:, 0, :]
        total = v.sum(axis=1)  # predict_proba renormalises each row, exactly like this
        values = np.where(total[:, None] > 0, v / np.where(total > 0, total, 1.0)[:, None], v).tolist()
    else:
        v = tree_.value[:, 0, 0].astype(np.float64)
        if scale is not None:
            v = v * scale
        if double:
            v = v * 2.0
        values = v[:, None].tolist()
    mgl = getattr(tree_, "missing_go_to_left", None)
    if mgl is None or nan_right:
        missing = np.ones(n, np.int64)
    else:
        missing = np.where(np.asarray(mgl, dtype=bool), 0, 1)
    feature, threshold, missing = tree_.feature.tolist(), tree_.threshold.tolist(), missing.tolist()
    leaf = is_leaf.tolist()
    nodes = [
        {"kind": "leaf", "value": tuple(values[i]), "n_samples": n_samples[i], "impurity": impurity[i]}
        if leaf[i] else
        {"kind": "numeric", "feature": feature[i], "threshold": threshold[i], "op": "<=",
         "precision": "float32", "missing": missing[i], "n_samples": n_samples[i], "impurity": impurity[i]}
        for i in range(n)]
    inner = np.flatnonzero(~is_leaf).tolist()
    lt, rt = left.tolist(), right.tolist()
    edges = [(i, lt[i], {"branch": 0}) for i in inner] + [(i, rt[i], {"branch": 1}) for i in inner]
    g = graph_from_parts(nodes, edges)
    return g


def check_fitted(est: Any) -> None:
    if not hasattr(est, "fit") or not hasattr(est, "get_params"):
        raise RulekitError(f"a {type(est).__name__} is not a scikit-learn estimator (expected a fitted "
                           "tree, forest or gradient boosting model)")
    if not hasattr(est, "n_features_in_"):
        raise RulekitError(f"{type(est).__name__} is not fitted")


def single_output(est: Any) -> None:
    if getattr(est, "n_outputs_", 1) != 1:
        raise RulekitError("multi-output trees are not supported")


def sklearn_version() -> str:
    import sklearn

    return sklearn.__version__
