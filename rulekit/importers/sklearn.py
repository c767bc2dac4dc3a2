"""scikit-learn estimators -> rulekit Model, exactly.

scikit-learn trees test ``float32(x) <= threshold`` (threshold a float64) and send NaN where
``missing_go_to_left`` says, on every split, even for trees trained without NaN. Leaves hold class
fractions (scikit-learn >= 1.4) or regression values; forests sum them in tree order and divide.
Gradient boosting lives in ``sklearn_gb`` and hist gradient boosting in ``sklearn_hist``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.importers.pipeline import from_pipeline, is_pipeline
from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import graph_from_parts

_TREE_LEAF = -1


def _feature_names(est: Any, n: int) -> list[str]:
    names = getattr(est, "feature_names_in_", None)
    if names is not None:
        return [str(s) for s in names]
    return [f"x{i}" for i in range(n)]


def _classes(est: Any) -> list:
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


def _check_fitted(est: Any) -> None:
    if not hasattr(est, "fit") or not hasattr(est, "get_params"):
        raise RulekitError(f"a {type(est).__name__} is not a scikit-learn estimator (expected a fitted "
                           "tree, forest or gradient boosting model)")
    if not hasattr(est, "n_features_in_"):
        raise RulekitError(f"{type(est).__name__} is not fitted")


def from_sklearn(est: Any) -> Model:
    """Convert a fitted scikit-learn tree, forest or boosting model, or a ``Pipeline`` ending in one
    (or in an XGBoost/LightGBM model) whose preprocessing is folded in (:mod:`pipeline`)."""
    if is_pipeline(est):
        return from_pipeline(est, final_estimator)
    return _from_estimator(est)


def final_estimator(est: Any) -> Model:
    """The model of a pipeline's last step: scikit-learn's, or an XGBoost/LightGBM scikit-learn model."""
    module = type(est).__module__.split(".")[0]
    if module == "xgboost":
        from rulekit.importers.xgboost import from_xgboost

        return from_xgboost(est)
    if module == "lightgbm":
        from rulekit.importers.lightgbm import from_lightgbm

        return from_lightgbm(est)
    return _from_estimator(est)


def _from_estimator(est: Any) -> Model:
    name = type(est).__name__
    if name.startswith("HistGradientBoosting"):
        from rulekit.importers.sklearn_hist import from_hist_gradient_boosting

        return from_hist_gradient_boosting(est)
    if name.startswith("GradientBoosting"):
        from rulekit.importers.sklearn_gb import from_gradient_boosting

        return from_gradient_boosting(est)
    _check_fitted(est)
    n = est.n_features_in_
    features = [Feature(name=s) for s in _feature_names(est, n)]
    source = {"library": "scikit-learn", "estimator": name, "version": _sklearn_version()}
    if name in ("DecisionTreeClassifier", "ExtraTreeClassifier"):
        _single_output(est)
        return Model([tree_graph(est.tree_, classifier=True)], features, task="classification",
                     classes=_classes(est), source=source)
    if name in ("DecisionTreeRegressor", "ExtraTreeRegressor"):
        _single_output(est)
        return Model([tree_graph(est.tree_, classifier=False)], features, task="regression",
                     source=source)
    if name in ("RandomForestClassifier", "ExtraTreesClassifier"):
        _single_output(est)
        trees = [tree_graph(t.tree_, classifier=True) for t in est.estimators_]
        return Model(trees, features, task="classification", classes=_classes(est),
                     combiner=Combiner(kind="average"), source=source)
    if name in ("RandomForestRegressor", "ExtraTreesRegressor"):
        _single_output(est)
        trees = [tree_graph(t.tree_, classifier=False) for t in est.estimators_]
        return Model(trees, features, task="regression", combiner=Combiner(kind="average"),
                     source=source)
    raise RulekitError(f"cannot import scikit-learn {name}: supported are decision trees, extra "
                       f"trees, random forests, gradient boosting and hist gradient boosting")


def _single_output(est: Any) -> None:
    if getattr(est, "n_outputs_", 1) != 1:
        raise RulekitError("multi-output trees are not supported")


def _sklearn_version() -> str:
    import sklearn

    return sklearn.__version__


def load_pickled(path: Path) -> Model:
    """Load a pickled/joblib scikit-learn estimator (only called with --allow-pickle)."""
    try:
        import joblib

        est = joblib.load(path)
    except Exception as err:  # a pickle can fail in any way
        raise RulekitError(f"{path}: cannot unpickle ({type(err).__name__}: {err})") from None
    return from_sklearn(est)
