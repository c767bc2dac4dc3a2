"""scikit-learn estimators -> rulekit Model, exactly.

scikit-learn trees test ``float32(x) <= threshold`` (threshold a float64) and send NaN where
``missing_go_to_left`` says, on every split, even for trees trained without NaN. Leaves hold class
fractions (scikit-learn >= 1.4) or regression values; forests sum them in tree order and divide.
Gradient boosting lives in ``sklearn_gb``, hist gradient boosting in ``sklearn_hist``, and what all
three read from a fitted tree in ``sklearn_tree``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rulekit.errors import RulekitError
from rulekit.importers.pipeline import from_pipeline, is_pipeline
from rulekit.importers.sklearn_gb import from_gradient_boosting
from rulekit.importers.sklearn_hist import from_hist_gradient_boosting
from rulekit.importers.sklearn_tree import (check_fitted, class_labels, feature_names, single_output,
                                            sklearn_version, tree_graph)
from rulekit.ir.model import Combiner, Feature, Model

__all__ = ["final_estimator", "from_sklearn", "load_pickled", "tree_graph"]


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
        return from_hist_gradient_boosting(est)
    if name.startswith("GradientBoosting"):
        return from_gradient_boosting(est)
    check_fitted(est)
    n = est.n_features_in_
    features = [Feature(name=s) for s in feature_names(est, n)]
    source = {"library": "scikit-learn", "estimator": name, "version": sklearn_version()}
    if name in ("DecisionTreeClassifier", "ExtraTreeClassifier"):
        single_output(est)
        return Model([tree_graph(est.tree_, classifier=True)], features, task="classification",
                     classes=class_labels(est), source=source)
    if name in ("DecisionTreeRegressor", "ExtraTreeRegressor"):
        single_output(est)
        return Model([tree_graph(est.tree_, classifier=False)], features, task="regression",
                     source=source)
    if name in ("RandomForestClassifier", "ExtraTreesClassifier"):
        single_output(est)
        trees = [tree_graph(t.tree_, classifier=True) for t in est.estimators_]
        return Model(trees, features, task="classification", classes=class_labels(est),
                     combiner=Combiner(kind="average"), source=source)
    if name in ("RandomForestRegressor", "ExtraTreesRegressor"):
        single_output(est)
        trees = [tree_graph(t.tree_, classifier=False) for t in est.estimators_]
        return Model(trees, features, task="regression", combiner=Combiner(kind="average"),
                     source=source)
    raise RulekitError(f"cannot import scikit-learn {name}: supported are decision trees, extra "
                       f"trees, random forests, gradient boosting and hist gradient boosting")


def load_pickled(path: Path) -> Model:
    """Load a pickled/joblib scikit-learn estimator (only called with --allow-pickle)."""
    try:
        import joblib

        est = joblib.load(path)
    except Exception as err:  # a pickle can fail in any way
        raise RulekitError(f"{path}: cannot unpickle ({type(err).__name__}: {err})") from None
    return from_sklearn(est)
