"""What the rulekit learners that fit a classification rule base from data share (RuleInducer,
ScorecardLearner): reading ``(X, y)`` into features, labels and classes, the scikit-learn fitted
attributes, and predicting through the fitted ``rule_base_``."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from rulekit.errors import RulekitError
from rulekit.ir.data import is_missing_value
from rulekit.ir.model import Feature
from rulekit.rules.features import infer_features


def sorted_classes(labels: list) -> list:
    """The distinct labels in the learners' class order (by type name, then value)."""
    return sorted(set(labels), key=lambda v: (str(type(v)), v))


class RuleBaseClassifier(ClassifierMixin, BaseEstimator):
    """A scikit-learn classifier whose model is ``rule_base_`` (set by :meth:`_fitted`)."""

    def _read(self, X: Any, y: Any, learner: str) -> tuple[list[Feature], list, list]:
        """(features, labels as Python values, sorted classes); ``learner`` names the learner in the
        error for fewer than two classes."""
        feats = infer_features(X, getattr(self, "nominal_features", "auto"))
        labels = [v.item() if isinstance(v, np.generic) else v for v in np.asarray(y, dtype=object).tolist()]
        if any(is_missing_value(v) for v in labels):
            raise RulekitError("y has missing labels")
        classes = sorted_classes(labels)
        if len(classes) < 2:
            raise RulekitError(f"{learner} needs at least two classes")
        return feats, labels, classes

    def _fitted(self, rb: Any, classes: list, feats: list[Feature]) -> RuleBaseClassifier:
        self.rule_base_ = rb
        self.classes_ = np.asarray(classes, dtype=object if len({type(c) for c in classes}) > 1 else None)
        self.n_features_in_ = len(feats)
        self.feature_names_in_ = np.asarray([f.name for f in feats], dtype=object)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return self.rule_base_.predict(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        return self.rule_base_.predict_proba(X)
