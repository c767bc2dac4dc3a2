"""What every rulekit estimator shares: input checks, encoding, the lazy IR model, prediction.

Estimators keep their trees in flat form (``flat_trees_``) and evaluate them with the IR's compiled
evaluator arrays (``rulekit.ir.compiled``), summing ensemble outputs in tree order exactly as
``Model`` does, so ``est.predict(X)`` equals ``est.model_.predict(X)``. ``model_`` (the networkx IR)
is built on first access: building graphs costs more than growing the trees.
"""

from __future__ import annotations

import json
import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from rulekit.ir import compiled as _compiled
from rulekit.ir.model import Combiner, Feature, Model
from rulekit.learners._input import LearnerInputError, build_schema, encode, is_frame, ordinal_columns
from rulekit.learners.builder import Problem
from rulekit.learners.flat_tree import FlatTree, to_compiled, to_graph
from rulekit.semantics import combiners


def resolve_seed(random_state: Any) -> int | None:
    """An int seed (or None for fresh entropy) from an int, None, RandomState or Generator."""
    if random_state is None:
        return None
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    raise LearnerInputError(f"random_state must be an int, None or a numpy random state, got {random_state!r}")


def _label(c: Any) -> Any:
    return c.item() if isinstance(c, np.generic) else c


def _json_safe(v: Any) -> Any:
    try:
        json.dumps(v)
        return v
    except TypeError:
        return repr(v)


class RulekitEstimator(BaseEstimator):
    """Base class: subclasses set ``_task`` and implement ``fit``."""

    _task = "classification"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags

    # --- inputs ------------------------------------------------------------------------------------
    def _fit_X(self, X: Any) -> tuple[np.ndarray, list[Feature]]:
        spec = getattr(self, "nominal_features", "auto")
        self.ordinal_ = None
        if is_frame(X):
            validate_data(self, X, skip_check_array=True)
            if X.shape[0] < 1 or X.shape[1] < 1:
                raise LearnerInputError(f"X has shape {X.shape}: need at least one row and one column")
            M, feats = build_schema(X, spec)
            self.ordinal_ = ordinal_columns(X)
        else:
            X = validate_data(self, X, dtype=None, ensure_all_finite=False)
            if X.dtype.kind in "fiub" and (spec is None or (isinstance(spec, str) and spec == "auto")):
                M = X.astype(np.float64)
                feats = [Feature(name=f"x{j}") for j in range(M.shape[1])]
            else:
                M, feats = build_schema(X, spec)
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            feats = [Feature(name=f"x{j}", kind=f.kind, domain=f.domain) for j, f in enumerate(feats)]
        return M, feats

    def _fit_y(self, y: Any, n_rows: int) -> np.ndarray:
        self.target_name_ = str(y.name) if getattr(y, "name", None) is not None else None
        if y is None:
            raise LearnerInputError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        if self._task == "classification":
            y = column_or_1d(y, warn=True)
            check_classification_targets(y)
            try:
                classes, codes = np.unique(y, return_inverse=True)
            except TypeError as err:
                raise LearnerInputError(f"class labels cannot be compared: {err}") from None
            if classes.size < 2:
                raise LearnerInputError(f"{type(self).__name__} needs at least two classes in y, "
                                        f"got one class: {classes.tolist()}")
            self.classes_ = classes
            self.n_classes_ = int(classes.size)
            check_consistent_length(np.empty(n_rows), codes)
            return codes.astype(np.int64)
        y = column_or_1d(y, warn=True)
        try:
            y = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise LearnerInputError("a regressor needs a numeric target y") from None
        if not np.all(np.isfinite(y)):
            raise LearnerInputError("Input y contains NaN or infinity.")
        check_consistent_length(np.empty(n_rows), y)
        return y

    def _fit_weights(self, sample_weight: Any, M: np.ndarray) -> np.ndarray:
        w = _check_sample_weight(sample_weight, M, dtype=np.float64, ensure_non_negative=True)
        if not np.any(w > 0):
            raise LearnerInputError("sample weights are all zero")
        return np.asarray(w, dtype=np.float64)

    def _problem(self, M: np.ndarray, y: np.ndarray, w: np.ndarray) -> Problem:
        nominal = np.array([f.kind == "nominal" for f in self.features_], bool)
        sizes = np.array([len(f.domain or ()) for f in self.features_], np.int64)
        ordinal = np.array(self.ordinal_ if getattr(self, "ordinal_", None) else [False] * len(nominal), bool)
        return Problem(M, y, w, nominal, sizes, self.n_classes_ if self._task == "classification" else 0,
                       ordinal=ordinal & nominal)

    def _matrix(self, X: Any) -> np.ndarray:
        """``X`` encoded with the fitted schema (nominal values as domain codes, -1 unseen)."""
        check_is_fitted(self, "flat_trees_")
        if is_frame(X):
            validate_data(self, X, reset=False, skip_check_array=True)
            return encode(X, self.features_)
        X = validate_data(self, X, reset=False, dtype=None, ensure_all_finite=False)
        if X.dtype.kind in "fiub" and all(f.kind == "numeric" for f in self.features_):
            return X.astype(np.float64)
        return encode(X, self.features_)

    @property
    def domain_sizes_(self) -> list[int]:
        return [len(f.domain or ()) for f in self.features_]

    # --- the fitted model ----------------------------------------------------------------------------
    def _finish(self, trees: list[FlatTree], combiner: str) -> None:
        self.flat_trees_ = trees
        self.combiner_ = combiner
        sizes = self.domain_sizes_
        self.compiled_ = [to_compiled(t, sizes) for t in trees]
        self._model_cache = None
        imp = np.zeros(len(self.features_))
        for t in trees:
            for i in np.flatnonzero(t.kind != 0):
                if t.feature[i] >= 0:
                    imp[t.feature[i]] += t.gain[i]
                elif int(i) in t.linear:
                    feats = t.linear[int(i)][0]
                    for f in feats:
                        imp[f] += t.gain[i] / len(feats)
        total = imp.sum()
        self.feature_importances_ = imp / total if total > 0 else imp

    @property
    def model_(self) -> Model:
        """The fitted model as a rulekit ``Model`` (networkx IR), built on first access."""
        check_is_fitted(self, "flat_trees_")
        cached = self.__dict__.get("_model_cache")
        if cached is None:
            cached = self._build_model()
            self.__dict__["_model_cache"] = cached
        return cached

    def _build_model(self) -> Model:
        from rulekit.util import gc_paused  # noqa: PLC0415

        clf = self._task == "classification"
        with gc_paused():
            graphs = [to_graph(t, classification=clf) for t in self.flat_trees_]
        params = {k: _json_safe(v) for k, v in self.get_params(deep=False).items()}
        source = {"learner": f"rulekit.learners.{type(self).__name__}", "params": params}
        kind = self._combiner_kind(len(graphs))
        return Model(graphs, self.features_, task=self._task,
                     classes=[_label(c) for c in self.classes_] if clf else None,
                     combiner=Combiner(kind=kind), target=getattr(self, "target_name_", None),
                     source=source, validate=True)

    def _combiner_kind(self, n_trees: int) -> str:
        """``model_``'s combiner: one tree is ``single`` (its leaf's class fractions), except for a
        hard-voting forest, whose one tree still casts one vote (probabilities one-hot)."""
        return "single" if n_trees == 1 and self.combiner_ != "vote" else self.combiner_

    def _raw(self, M: np.ndarray) -> np.ndarray:
        """Tree outputs combined by the combiner reference (:mod:`rulekit.semantics.combiners`) that
        ``Model.raw_output`` calls, with ``model_``'s combiner."""
        n_trees = len(self.compiled_)
        clf = self._task == "classification"
        red = combiners.reduction(Combiner(kind=self._combiner_kind(n_trees)), n_trees,
                                  task=self._task, value_size=self.n_classes_ if clf else 1)
        return combiners.aggregate(red, (ct.value[_compiled.apply(ct, M)] for ct in self.compiled_), M.shape[0])

    def apply(self, X: Any) -> np.ndarray:
        """Id of the leaf each row reaches (one column per tree; the ids of ``model_``'s graphs)."""
        M = self._matrix(X)
        return np.column_stack([_compiled.apply(ct, M) for ct in self.compiled_])


class ClassifierOutputs:
    """predict / predict_proba for classifiers."""

    def predict_proba(self, X: Any) -> np.ndarray:
        return self._raw(self._matrix(X))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X: Any) -> np.ndarray:
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class RegressorOutputs:
    def predict(self, X: Any) -> np.ndarray:
        return self._raw(self._matrix(X))[:, 0]
