"""scikit-learn ``GradientBoosting{Classifier,Regressor}`` -> rulekit Model, exactly.

scikit-learn predicts with ``raw = init(X)`` and then, stage by stage and class by class,
``raw[:, k] += learning_rate * tree.value[leaf]`` (``predict_stages``), comparing
``float32(x) <= threshold``. So each leaf becomes the float64 product ``learning_rate * value``,
the init estimator's (constant) raw prediction becomes ``base_score``, and the trees are kept in
stage order with ``tree_output`` naming their class. Links: identity (regression), sigmoid
(binary ``log_loss``), softmax (multiclass). The ``exponential`` loss predicts
``expit(2 * raw)``; doubling is exact in float64, so its leaves and base score are doubled.

NaN: ``GradientBoosting*`` refuses NaN at predict time, but its ``predict_stages`` evaluates
``x <= t`` with NaN false, i.e. NaN goes right on every split whatever the trees'
``missing_go_to_left`` says. The converted model does the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.importers.sklearn_tree import (check_fitted, class_labels, feature_names, sklearn_version,
                                            tree_graph)
from rulekit.ir.model import Combiner, Feature, Model

_CONSTANT_DUMMY_CLASSIFIER = ("prior", "most_frequent", "uniform", "constant")


def init_raw_prediction(est: Any) -> np.ndarray:
    """The init estimator's raw prediction (shape (K,)), refusing inits that depend on X."""
    init = est.init_
    k = est.estimators_.shape[1]
    if isinstance(init, str) and init == "zero":
        return np.zeros(k)
    kind = type(init).__name__
    constant = (kind == "DummyRegressor"
                or (kind == "DummyClassifier" and init.strategy in _CONSTANT_DUMMY_CLASSIFIER))
    if not constant:
        detail = f"{kind}(strategy={init.strategy!r})" if kind == "DummyClassifier" else kind
        raise RulekitError(f"cannot convert {type(est).__name__} with init={detail}: its initial "
                           f"prediction depends on the input; only init='zero' or a constant "
                           f"Dummy estimator (the default) converts exactly")
    # scikit-learn's own code path, on one row: the dummy ignores X, the link is row-wise.
    row = np.zeros((1, est.n_features_in_), dtype=np.float32)
    try:
        raw = np.asarray(est._raw_predict_init(row), dtype=np.float64)
    except AttributeError:
        raise RulekitError(f"{type(est).__name__} from scikit-learn {sklearn_version()}: no "
                           f"_raw_predict_init; this version is not supported") from None
    return raw[0]


def from_gradient_boosting(est: Any) -> Model:
    """Convert a fitted ``GradientBoostingClassifier`` or ``GradientBoostingRegressor``."""
    check_fitted(est)
    name = type(est).__name__
    if not hasattr(est, "estimators_"):
        raise RulekitError(f"{name} is not fitted")
    stages = est.estimators_  # (n_stages, K) of DecisionTreeRegressor
    n_stages, k = stages.shape
    lr = float(est.learning_rate)
    base = init_raw_prediction(est)
    classifier = hasattr(est, "classes_")
    double = classifier and est.loss == "exponential"
    if double:
        base = base * 2.0
    trees, outputs = [], []
    for i in range(n_stages):
        for j in range(k):
            trees.append(tree_graph(stages[i, j].tree_, classifier=False, scale=lr, double=double,
                                    nan_right=True))
            outputs.append(j)
    features = [Feature(name=s) for s in feature_names(est, est.n_features_in_)]
    source = {"library": "scikit-learn", "estimator": name, "version": sklearn_version(),
              "loss": str(est.loss), "learning_rate": lr}
    base_score = tuple(float(b) for b in base)
    if not classifier:
        return Model(trees, features, task="regression", source=source,
                     combiner=Combiner(kind="sum", base_score=base_score, link="identity"))
    classes = class_labels(est)
    link = "sigmoid" if len(classes) == 2 else "softmax"
    if (link == "sigmoid") != (k == 1):
        raise RulekitError(f"{name}: {len(classes)} classes but {k} tree(s) per stage")
    combiner = Combiner(kind="sum", base_score=base_score, link=link, decision="raw>=0",
                        tree_output=tuple(outputs) if k > 1 else None)
    return Model(trees, features, task="classification", classes=classes, combiner=combiner,
                 source=source)
