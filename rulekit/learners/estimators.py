"""Single-tree estimators: ID3, C4.5 and CART (classification and regression), scikit-learn style.

=================  ===========================  ===================  =====================  ===========
estimator          split criterion              nominal features     missing values         pruning
=================  ===========================  ===================  =====================  ===========
ID3Classifier      information gain             multiway, used up    join the heavier side  optional
C45Classifier      gain ratio, average-gain      multiway, used up    fractional instances   pessimistic
                   guard
CARTClassifier     Gini or entropy              subset ``x in B``    learned direction      ccp_alpha
CARTRegressor      MSE or SD reduction          subset ``x in B``    learned direction      ccp_alpha
=================  ===========================  ===================  =====================  ===========

Numeric features are split by binary thresholds at midpoints of consecutive distinct values (every
candidate) in every algorithm, and may be reused along a path; CART cuts ordinal features (ordered
pandas categoricals) at a point of their order; ID3 on numeric columns is the textbook
"numeric attributes" extension with information gain. Pre-pruning: ``max_depth``,
``min_samples_split``, ``min_samples_leaf`` (rows; weight for C4.5), ``impurity_threshold`` (θ: a node whose impurity
is at most θ becomes a leaf), ``min_impurity_decrease`` (scikit-learn's weighted decrease). Post-
pruning: ``prune="reduced-error"`` (pruning set from ``fit(X_prune=, y_prune=)`` or a held-out
``prune_fraction`` of the data), ``"pessimistic"`` (C4.5, ``confidence``), ``"cost-complexity"``
(alpha chosen on the pruning set, or by ``cv``-fold cross-validation); ``ccp_alpha`` prunes at a
given alpha like scikit-learn.

Missing values at prediction go down the node's ``missing`` branch: C4.5 trains with fractional
instances and predicts with the branch that received the most training weight (the IR routes a
missing value down one branch); ID3 sends missing values, in training and prediction, to the heavier
branch; CART learns the direction per split (the heavier branch when training had none). A nominal
value never seen in training follows the "other" branch: for ID3/C4.5 a leaf holding the parent's
distribution; for CART subset splits the heavier side.

``sample_weight`` weighs every count (an integer weight acts as that many repeated rows; zero
removes the row). All estimators pass ``sklearn.utils.estimator_checks.check_estimator``; the
bootstrap ensembles fail only ``check_sample_weight_equivalence_on_dense_data`` (a bootstrap draws
rows, so weight 2 is not a repeated row), as scikit-learn's own forests do.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin

from rulekit.learners import pruning
from rulekit.learners._base import ClassifierOutputs, RegressorOutputs, RulekitEstimator, resolve_seed
from rulekit.learners._input import LearnerInputError, encode
from rulekit.learners.builder import Settings, build
from rulekit.learners.flat_tree import FlatTree, route_unseen

PRUNE_METHODS = (None, "none", "reduced-error", "pessimistic", "cost-complexity")


class _TreeEstimator(RulekitEstimator):
    """Shared fit for the single-tree estimators."""

    _nominal_split = "subset"
    _missing_default = "learned"
    _require_positive_gain = False
    _leaf_by_weight = False

    def _settings(self, n_features: int) -> Settings:
        crit = self.criterion
        if self._task == "classification":
            if crit not in ("gini", "entropy", "gain_ratio"):
                raise LearnerInputError(f"criterion {crit!r}: expected gini, entropy or gain_ratio")
        elif crit in ("squared_error",):
            crit = "mse"
        elif crit not in ("mse", "sdr"):
            raise LearnerInputError(f"criterion {crit!r}: expected mse or sdr")
        for name in ("min_samples_split", "min_samples_leaf"):
            v = getattr(self, name)
            if not isinstance(v, numbers_int) or v < 1:
                raise LearnerInputError(f"{name} must be a positive integer, got {v!r}")
        if self.max_depth is not None and (not isinstance(self.max_depth, numbers_int) or self.max_depth < 0):
            raise LearnerInputError(f"max_depth must be None or a non-negative integer, got {self.max_depth!r}")
        missing = getattr(self, "missing", self._missing_default)
        if missing not in ("majority", "learned", "fractional"):
            raise LearnerInputError(f"missing {missing!r}: expected majority, learned or fractional")
        oblique = getattr(self, "oblique", None)
        if oblique not in (None, "lda", "logistic"):
            raise LearnerInputError(f"oblique {oblique!r}: expected None, 'lda' or 'logistic'")
        return Settings(
            task=self._task, criterion=crit, nominal_split=self._nominal_split, missing=missing,
            max_depth=self.max_depth, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            min_impurity_decrease=float(self.min_impurity_decrease),
            impurity_threshold=float(getattr(self, "impurity_threshold", 0.0)),
            max_features=max_features_count(getattr(self, "max_features", None), n_features),
            random_thresholds=getattr(self, "splitter", "best") == "random",
            oblique=oblique,
            average_gain_guard=bool(getattr(self, "average_gain_guard", True)),
            require_positive_gain=self._require_positive_gain,
            max_exhaustive_categories=int(getattr(self, "max_exhaustive_categories", 10)),
            leaf_by_weight=self._leaf_by_weight)

    def fit(self, X: Any, y: Any, sample_weight: Any = None, *, X_prune: Any = None, y_prune: Any = None,
            sample_weight_prune: Any = None):
        """Grow (and post-prune) the tree. ``X_prune``/``y_prune``: the pruning set for
        ``prune="reduced-error"`` or ``"cost-complexity"``."""
        M, feats = self._fit_X(X)
        y_enc = self._fit_y(y, M.shape[0])
        w = self._fit_weights(sample_weight, M)
        self.features_ = feats
        settings = self._settings(M.shape[1])
        prune = getattr(self, "prune", None)
        if prune not in PRUNE_METHODS:
            raise LearnerInputError(f"prune {prune!r}: expected one of none, reduced-error, "
                                    f"pessimistic, cost-complexity")
        if prune == "pessimistic" and self._task != "classification":
            raise LearnerInputError("pessimistic pruning needs a classification tree")
        seed = resolve_seed(getattr(self, "random_state", None))
        rng = np.random.default_rng(seed)
        clf = self._task == "classification"

        prune_set = None
        if prune in ("reduced-error", "cost-complexity") and X_prune is not None:
            if y_prune is None:
                raise LearnerInputError("X_prune given without y_prune")
            Mp = encode(X_prune, feats)
            yp = self._encode_target(y_prune)
            wp = np.ones(Mp.shape[0]) if sample_weight_prune is None else np.asarray(sample_weight_prune, float)
            prune_set = (Mp, yp, wp)
        elif prune == "reduced-error" and M.shape[0] >= 4:
            hold = rng.permutation(M.shape[0])
            k = max(1, int(round(float(getattr(self, "prune_fraction", 0.25)) * M.shape[0])))
            pr, gr = hold[:k], hold[k:]
            prune_set = (M[pr], y_enc[pr], w[pr])
            M, y_enc, w = M[gr], y_enc[gr], w[gr]

        tree = build(self._problem(M, y_enc, w), settings, rng)
        sizes = self.domain_sizes_
        if prune == "reduced-error" and prune_set is not None:
            totals = pruning.example_totals(tree, *prune_set, clf, getattr(self, "n_classes_", 0), sizes)
            tree = pruning.reduced_error(tree, totals, clf)
        elif prune == "pessimistic":
            tree = pruning.pessimistic(tree, float(getattr(self, "confidence", 0.25)))
        elif prune == "cost-complexity":
            if prune_set is not None:
                totals = pruning.example_totals(tree, *prune_set, clf, getattr(self, "n_classes_", 0), sizes)
                alpha = pruning.best_alpha_on(tree, totals, clf)
            else:
                alpha = self._cv_alpha(tree, M, y_enc, w, settings, rng)
            self.ccp_alpha_ = alpha
            tree = pruning.prune_at(tree, alpha, clf)
        ccp = float(getattr(self, "ccp_alpha", 0.0) or 0.0)
        if ccp < 0:
            raise LearnerInputError(f"ccp_alpha must be >= 0, got {ccp}")
        if ccp > 0:
            tree = pruning.prune_at(tree, ccp, clf)
        unseen = getattr(self, "unseen", "parent")
        if unseen not in ("parent", "missing"):
            raise LearnerInputError(f"unseen {unseen!r}: expected parent or missing")
        if unseen == "missing":
            tree = route_unseen(tree)
        self._finish([tree], "single")
        return self

    def _encode_target(self, y: Any) -> np.ndarray:
        y = np.asarray(y).ravel()
        if self._task != "classification":
            return y.astype(np.float64)
        idx = np.searchsorted(self.classes_, y)
        idx = np.clip(idx, 0, self.classes_.size - 1)
        if not np.all(self.classes_[idx] == y):
            raise LearnerInputError("y_prune has a class that is not in y")
        return idx.astype(np.int64)

    def _cv_alpha(self, tree: FlatTree, M, y, w, settings: Settings, rng) -> float:
        """Breiman's choice of alpha: k-fold cross-validated error at the geometric means of the
        main path's consecutive alphas; the largest alpha with the smallest error."""
        clf = self._task == "classification"
        alphas, _ = pruning.ccp_path(tree, clf)
        alphas = np.unique(alphas)
        cands = np.sqrt(alphas[:-1] * alphas[1:]) if alphas.size > 1 else alphas
        cands = np.append(cands, alphas[-1:])
        k = int(getattr(self, "cv", 5))
        n = M.shape[0]
        if k < 2 or n < 2 * k:
            return 0.0
        fold = rng.permutation(n) % k
        errors = np.zeros(cands.size)
        sizes = self.domain_sizes_
        for i in range(k):
            tr, te = fold != i, fold == i
            t = build(self._problem(M[tr], y[tr], w[tr]), settings, rng)
            steps = pruning.weakest_links(t, clf, pruning.leaf_errors(
                t, pruning.example_totals(t, M[te], y[te], w[te], clf, getattr(self, "n_classes_", 0),
                                          sizes), clf))
            step_a = np.array([s[0] for s in steps])
            step_e = np.array([s[3] for s in steps])
            # the fold tree pruned at alpha = after every step with step alpha <= alpha
            pos = np.searchsorted(np.maximum.accumulate(step_a), cands, side="right") - 1
            errors += step_e[np.maximum(pos, 0)]
        best = errors.min()
        pick = np.flatnonzero(errors <= best + 1e-12 * max(1.0, abs(best)))[-1]
        return float(cands[pick])

    def cost_complexity_pruning_path(self, X: Any, y: Any, sample_weight: Any = None):
        """``Bunch(ccp_alphas, impurities)`` of the unpruned tree, as scikit-learn defines them."""
        from sklearn.base import clone  # noqa: PLC0415
        from sklearn.utils import Bunch  # noqa: PLC0415

        est = clone(self)
        params = {"ccp_alpha": 0.0} if "ccp_alpha" in est.get_params() else {}
        if "prune" in est.get_params():
            params["prune"] = None
        est.set_params(**params).fit(X, y, sample_weight)
        alphas, imps = pruning.ccp_path(est.flat_trees_[0], self._task == "classification")
        return Bunch(ccp_alphas=alphas, impurities=imps)

    # --- inspection ----------------------------------------------------------------------------------
    @property
    def flat_tree_(self) -> FlatTree:
        return self.flat_trees_[0]

    def get_depth(self) -> int:
        return self.flat_tree_.depth()

    def get_n_leaves(self) -> int:
        return self.flat_tree_.n_leaves()


numbers_int = (int, np.integer)


def max_features_count(spec: Any, p: int) -> int | None:
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec == "sqrt":
            return max(1, int(math.sqrt(p)))
        if spec == "log2":
            return max(1, int(math.log2(p))) if p > 1 else 1
        raise LearnerInputError(f"max_features {spec!r}: expected sqrt, log2, an int or a fraction")
    if isinstance(spec, (bool, np.bool_)):
        raise LearnerInputError("max_features must be a number or 'sqrt'/'log2'")
    if isinstance(spec, numbers_int):
        if spec < 1:
            raise LearnerInputError(f"max_features must be >= 1, got {spec}")
        return min(int(spec), p)
    f = float(spec)
    if not 0 < f <= 1:
        raise LearnerInputError(f"max_features as a fraction must be in (0, 1], got {f}")
    return max(1, int(f * p))


class ID3Classifier(ClassifierOutputs, ClassifierMixin, _TreeEstimator):
    """ID3 (Quinlan 1986): multiway splits over a nominal feature's whole domain by information gain;
    the feature is not used again below its split; an empty branch becomes a leaf with the parent's
    distribution. Values outside a feature's domain take an "other" branch with the parent's
    distribution (``unseen="parent"``) or the branch missing values take (``unseen="missing"``, which a
    rules file says once: ``unseen wind counts as weak``). Splitting stops when a node is pure or no feature is left (or a pre-pruning limit).

    >>> import pandas as pd
    >>> from rulekit.learners import ID3Classifier
    >>> X = pd.DataFrame({"outlook": ["sunny", "rainy", "sunny"], "windy": ["no", "yes", "yes"]})
    >>> ID3Classifier().fit(X, ["no", "yes", "no"]).predict(X).tolist()
    ['no', 'yes', 'no']
    """

    _nominal_split = "multiway"
    _missing_default = "majority"

    def __init__(self, *, criterion="entropy", max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, impurity_threshold=0.0, prune=None, prune_fraction=0.25,
                 confidence=0.25, nominal_features="auto", random_state=None, unseen="parent"):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.impurity_threshold = impurity_threshold
        self.prune = prune
        self.prune_fraction = prune_fraction
        self.confidence = confidence
        self.nominal_features = nominal_features
        self.random_state = random_state
        self.unseen = unseen


class C45Classifier(ClassifierOutputs, ClassifierMixin, _TreeEstimator):
    """C4.5 (Quinlan 1993): gain ratio among the tests whose gain is at least average, multiway nominal
    splits, binary thresholds on numeric features (chosen by gain, every midpoint), fractional
    instances for missing values, a leaf when no test has positive gain, and pessimistic (error-based)
    post-pruning at confidence 0.25. Like C4.5's MINOBJS, ``min_samples_leaf`` (default 2) and
    ``min_samples_split`` count weight (fractional instances included), and a multiway split needs two
    branches with at least that much."""

    _nominal_split = "multiway"
    _missing_default = "fractional"
    _require_positive_gain = True
    _leaf_by_weight = True

    def __init__(self, *, criterion="gain_ratio", max_depth=None, min_samples_split=2, min_samples_leaf=2,
                 min_impurity_decrease=0.0, impurity_threshold=0.0, prune="pessimistic", confidence=0.25,
                 prune_fraction=0.25, average_gain_guard=True, missing="fractional", oblique=None,
                 nominal_features="auto", random_state=None, unseen="parent"):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.impurity_threshold = impurity_threshold
        self.prune = prune
        self.confidence = confidence
        self.prune_fraction = prune_fraction
        self.average_gain_guard = average_gain_guard
        self.missing = missing
        self.oblique = oblique
        self.nominal_features = nominal_features
        self.random_state = random_state
        self.unseen = unseen


class CARTClassifier(ClassifierOutputs, ClassifierMixin, _TreeEstimator):
    """CART (Breiman et al. 1984): binary splits by Gini or entropy; nominal features by subsets
    ``x in B``; numeric thresholds at midpoints; cost-complexity pruning (``ccp_alpha``, or
    ``prune="cost-complexity"`` to choose alpha); optional oblique splits (``oblique="lda"`` or
    ``"logistic"``) kept only where they beat the best univariate split."""

    def __init__(self, *, criterion="gini", splitter="best", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_impurity_decrease=0.0, impurity_threshold=0.0, max_features=None,
                 ccp_alpha=0.0, prune=None, prune_fraction=0.25, cv=5, missing="learned", oblique=None,
                 max_exhaustive_categories=10, nominal_features="auto", random_state=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.impurity_threshold = impurity_threshold
        self.max_features = max_features
        self.ccp_alpha = ccp_alpha
        self.prune = prune
        self.prune_fraction = prune_fraction
        self.cv = cv
        self.missing = missing
        self.oblique = oblique
        self.max_exhaustive_categories = max_exhaustive_categories
        self.nominal_features = nominal_features
        self.random_state = random_state


class CARTRegressor(RegressorOutputs, RegressorMixin, _TreeEstimator):
    """Regression tree: splits reduce the squared error (``criterion="mse"``) or the standard
    deviation (``"sdr"``); leaves predict the mean of their rows. Same options as CARTClassifier."""

    _task = "regression"

    def __init__(self, *, criterion="mse", splitter="best", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_impurity_decrease=0.0, impurity_threshold=0.0, max_features=None,
                 ccp_alpha=0.0, prune=None, prune_fraction=0.25, cv=5, missing="learned", oblique=None,
                 nominal_features="auto", random_state=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.impurity_threshold = impurity_threshold
        self.max_features = max_features
        self.ccp_alpha = ccp_alpha
        self.prune = prune
        self.prune_fraction = prune_fraction
        self.cv = cv
        self.missing = missing
        self.oblique = oblique
        self.nominal_features = nominal_features
        self.random_state = random_state
