"""Ensembles of rulekit trees (seed 003): bagging, random forests and extra trees.

* Bagging: every tree grows on a bootstrap sample (drawn with replacement, as sample weights equal
  to the draw counts) with all features.
* Random forest: bagging plus a random subset of ``max_features`` features drawn at every node
  (features that are constant in the node are skipped, as scikit-learn does).
* Extra trees: no bootstrap by default, and one random threshold per candidate feature and node,
  drawn uniformly between the feature's minimum and maximum in the node.

The base trees are CART by default (``algorithm="id3"``/``"c45"`` grows multiway nominal splits and
their criteria instead). Trees are not pruned. Classifiers average the trees' class distributions
(``voting="soft"``, combiner ``average``) or count their votes (``voting="hard"``, combiner
``vote``); regressors average. The same ``random_state`` gives the same ensemble: tree ``i`` draws
from the ``i``-th child of ``numpy.random.SeedSequence(random_state)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin

from rulekit.learners._base import ClassifierOutputs, RegressorOutputs, RulekitEstimator, resolve_seed
from rulekit.learners._input import LearnerInputError
from rulekit.learners.builder import Settings, build
from rulekit.learners.estimators import max_features_count, numbers_int

_ALGORITHMS = {
    # algorithm: (nominal split, missing handling, classification criterion)
    "cart": ("subset", "learned", "gini"),
    "id3": ("multiway", "majority", "entropy"),
    "c45": ("multiway", "fractional", "gain_ratio"),
}


class _Ensemble(RulekitEstimator):
    _bootstrap_default = True
    _random_thresholds = False

    def _settings(self, p: int) -> Settings:
        if self.algorithm not in _ALGORITHMS:
            raise LearnerInputError(f"algorithm {self.algorithm!r}: expected cart, id3 or c45")
        nominal_split, missing, default_crit = _ALGORITHMS[self.algorithm]
        crit = self.criterion or (default_crit if self._task == "classification" else "mse")
        if crit == "squared_error":
            crit = "mse"
        allowed = ("gini", "entropy", "gain_ratio") if self._task == "classification" else ("mse", "sdr")
        if crit not in allowed:
            raise LearnerInputError(f"criterion {crit!r}: expected one of {', '.join(allowed)}")
        for name in ("min_samples_split", "min_samples_leaf", "n_estimators"):
            v = getattr(self, name)
            if not isinstance(v, numbers_int) or v < 1:
                raise LearnerInputError(f"{name} must be a positive integer, got {v!r}")
        if self.max_depth is not None and (not isinstance(self.max_depth, numbers_int) or self.max_depth < 0):
            raise LearnerInputError(f"max_depth must be None or a non-negative integer, got {self.max_depth!r}")
        return Settings(task=self._task, criterion=crit, nominal_split=nominal_split, missing=missing,
                        max_depth=self.max_depth, min_samples_split=self.min_samples_split,
                        min_samples_leaf=self.min_samples_leaf,
                        min_impurity_decrease=float(self.min_impurity_decrease),
                        max_features=max_features_count(self.max_features, p),
                        random_thresholds=self._random_thresholds,
                        require_positive_gain=self.algorithm == "c45")

    def fit(self, X: Any, y: Any, sample_weight: Any = None, *,
            progress: Callable[[int, int], None] | None = None):
        """Grow ``n_estimators`` trees; ``progress(done, total)`` is called after each one."""
        M, feats = self._fit_X(X)
        y_enc = self._fit_y(y, M.shape[0])
        w = self._fit_weights(sample_weight, M)
        self.features_ = feats
        settings = self._settings(M.shape[1])
        voting = getattr(self, "voting", "soft")
        if voting not in ("soft", "hard"):
            raise LearnerInputError(f"voting {voting!r}: expected soft or hard")
        if self._task == "regression" and voting != "soft":
            raise LearnerInputError("a regressor averages its trees (voting='soft')")
        seeds = np.random.SeedSequence(resolve_seed(self.random_state)).spawn(self.n_estimators)
        n = M.shape[0]
        problem = self._problem(M, y_enc, w)
        trees = []
        for i, ss in enumerate(seeds):
            rng = np.random.default_rng(ss)
            if self.bootstrap:
                counts = np.bincount(rng.integers(0, n, n), minlength=n).astype(np.float64)
                if not np.any(counts * w > 0):
                    counts[:] = 1.0
                problem.w = w * counts
            else:
                problem.w = w
            trees.append(build(problem, settings, rng))
            if progress is not None:
                progress(i + 1, self.n_estimators)
        self.n_estimators_ = len(trees)
        self._finish(trees, "vote" if voting == "hard" else "average")
        return self

    @property
    def estimators_(self):
        """The trees in flat form (``model_.trees`` holds them as graphs)."""
        return self.flat_trees_


def _init(self, n_estimators, algorithm, criterion, max_depth, min_samples_split, min_samples_leaf,
          min_impurity_decrease, max_features, bootstrap, nominal_features, random_state):
    self.n_estimators = n_estimators
    self.algorithm = algorithm
    self.criterion = criterion
    self.max_depth = max_depth
    self.min_samples_split = min_samples_split
    self.min_samples_leaf = min_samples_leaf
    self.min_impurity_decrease = min_impurity_decrease
    self.max_features = max_features
    self.bootstrap = bootstrap
    self.nominal_features = nominal_features
    self.random_state = random_state


class RandomForestClassifier(ClassifierOutputs, ClassifierMixin, _Ensemble):
    """Random forest: bootstrap samples and ``max_features`` random features per node."""

    def __init__(self, n_estimators=100, *, algorithm="cart", criterion=None, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0, max_features="sqrt",
                 bootstrap=True, voting="soft", nominal_features="auto", random_state=None):
        _init(self, n_estimators, algorithm, criterion, max_depth, min_samples_split, min_samples_leaf,
              min_impurity_decrease, max_features, bootstrap, nominal_features, random_state)
        self.voting = voting


class RandomForestRegressor(RegressorOutputs, RegressorMixin, _Ensemble):
    _task = "regression"

    def __init__(self, n_estimators=100, *, algorithm="cart", criterion=None, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0, max_features=1.0,
                 bootstrap=True, nominal_features="auto", random_state=None):
        _init(self, n_estimators, algorithm, criterion, max_depth, min_samples_split, min_samples_leaf,
              min_impurity_decrease, max_features, bootstrap, nominal_features, random_state)


class ExtraTreesClassifier(ClassifierOutputs, ClassifierMixin, _Ensemble):
    """Extremely randomized trees: random thresholds, random feature subsets, no bootstrap."""

    _random_thresholds = True

    def __init__(self, n_estimators=100, *, algorithm="cart", criterion=None, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0, max_features="sqrt",
                 bootstrap=False, voting="soft", nominal_features="auto", random_state=None):
        _init(self, n_estimators, algorithm, criterion, max_depth, min_samples_split, min_samples_leaf,
              min_impurity_decrease, max_features, bootstrap, nominal_features, random_state)
        self.voting = voting


class ExtraTreesRegressor(RegressorOutputs, RegressorMixin, _Ensemble):
    _task = "regression"
    _random_thresholds = True

    def __init__(self, n_estimators=100, *, algorithm="cart", criterion=None, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0, max_features=1.0,
                 bootstrap=False, nominal_features="auto", random_state=None):
        _init(self, n_estimators, algorithm, criterion, max_depth, min_samples_split, min_samples_leaf,
              min_impurity_decrease, max_features, bootstrap, nominal_features, random_state)


class BaggingClassifier(ClassifierOutputs, ClassifierMixin, _Ensemble):
    """Bagged trees: bootstrap samples, all features at every node."""

    def __init__(self, n_estimators=100, *, algorithm="cart", criterion=None, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0, max_features=None,
                 bootstrap=True, voting="soft", nominal_features="auto", random_state=None):
        _init(self, n_estimators, algorithm, criterion, max_depth, min_samples_split, min_samples_leaf,
              min_impurity_decrease, max_features, bootstrap, nominal_features, random_state)
        self.voting = voting


class BaggingRegressor(RegressorOutputs, RegressorMixin, _Ensemble):
    _task = "regression"

    def __init__(self, n_estimators=100, *, algorithm="cart", criterion=None, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0, max_features=None,
                 bootstrap=True, nominal_features="auto", random_state=None):
        _init(self, n_estimators, algorithm, criterion, max_depth, min_samples_split, min_samples_leaf,
              min_impurity_decrease, max_features, bootstrap, nominal_features, random_state)
