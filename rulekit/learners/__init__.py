"""Tree learners from the lecture notes, as scikit-learn estimators producing rulekit models.

ID3, C4.5, CART (classification and regression trees), reduced-error / pessimistic / cost-complexity
pruning, bagging, random forests, extra trees and oblique (linear) splits. Every fitted estimator
exposes ``model_``, the learned tree(s) as a :class:`rulekit.Model`.
"""

from __future__ import annotations

from rulekit.learners.ensembles import (
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from rulekit.learners.estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier

__all__ = ["BaggingClassifier", "BaggingRegressor", "C45Classifier", "CARTClassifier", "CARTRegressor",
           "ExtraTreesClassifier", "ExtraTreesRegressor", "ID3Classifier", "RandomForestClassifier",
           "RandomForestRegressor"]
