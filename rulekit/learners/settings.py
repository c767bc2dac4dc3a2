"""What the tree grower (:mod:`rulekit.learners.builder`) is given: :class:`Settings` (how to grow,
translated from an estimator's parameters) and :class:`Problem` (the encoded training data).
Their own module so the grower's helpers can name them without importing the grower.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Settings:
    """How to grow a tree (the estimators translate their parameters into this)."""

    task: str = "classification"
    criterion: str = "gini"  # gini | entropy | gain_ratio | mse | sdr
    nominal_split: str = "subset"  # subset (CART) | multiway (ID3, C4.5)
    missing: str = "learned"  # majority | learned | fractional
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_impurity_decrease: float = 0.0
    impurity_threshold: float = 0.0
    max_features: int | None = None
    random_thresholds: bool = False
    oblique: str | None = None  # None | lda | logistic
    oblique_min_samples: int = 8
    average_gain_guard: bool = True
    require_positive_gain: bool = False
    max_exhaustive_categories: int = 10
    leaf_by_weight: bool = False  # min_samples_leaf counts weight (C4.5's MINOBJS) instead of rows


@dataclass
class Problem:
    """The training data as the grower reads it (the estimators encode their input into this)."""

    X: np.ndarray  # (n, p) float64, nominal features as codes, NaN missing
    y: np.ndarray  # class index (int64) or target (float64)
    w: np.ndarray  # sample weights
    nominal: np.ndarray  # bool per feature
    sizes: np.ndarray  # domain size per feature (0 for numeric)
    n_classes: int = 0  # 0 for regression
    ordinal: np.ndarray | None = None  # bool per feature: nominal codes in a meaningful order
