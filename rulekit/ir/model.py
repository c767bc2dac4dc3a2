"""A Model: one tree or an ensemble of tree graphs, their feature schema, classes and combiner.

Combiners (how tree outputs become a prediction, in the source's arithmetic order):

``single``   one tree; its leaf value is the class distribution or the regression value.
``average``  leaf values summed in tree order, divided by the number of trees at the end
             (scikit-learn forests, rulekit bagging): probabilities or regression values.
``vote``     each tree votes for its leaf's argmax class; probabilities are vote fractions.
``sum``      raw = base_score, then each tree's leaf value added to output ``tree_output[t]`` in
             tree order; then ``link``: identity (regression), sigmoid (binary, P(class 1)) or
             softmax (multiclass). Gradient boosting from scikit-learn, XGBoost, LightGBM.
             ``arithmetic="float32"`` (XGBoost): base, sums and link in float32, as XGBoost
             computes them (:mod:`rulekit.ir.float32`); unset: float64.
``average`` with ``arithmetic="float32"`` (classifiers from float ONNX files, e.g. skl2onnx
             forests): each leaf value divided by the number of trees and rounded to float32, the
             quotients added in tree order in float32; two classes: ``[1 - s, s]`` in float32
             (:func:`rulekit.ir.float32.average32`), bit for bit what onnxruntime computes.

A classifier's label is the argmax of its probabilities (first class on a tie), unless a ``sum``
combiner sets ``decision``: then it comes from the raw scores, as scikit-learn's boosting does —
sigmoid: ``classes[1]`` iff ``raw >= 0`` (``"raw>=0"``, GradientBoosting) or ``raw > 0``
(``"raw>0"``, HistGradientBoosting); softmax: argmax of the raw scores (first on a tie).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import numpy as np

from rulekit.errors import RulekitError
from rulekit.ir import compiled as _compiled
from rulekit.ir import float32 as _f32
from rulekit.ir.data import to_matrix
from rulekit.ir.links import sigmoid, softmax
from rulekit.ir.modelfile_format import model_to_file, save_model
from rulekit.ir.schema import Combiner, Feature, Label  # noqa: F401 - re-exported: their old home
from rulekit.ir.tree import validate_tree
from rulekit.util import gc_paused


class Model:
    """A learned or imported tree model. ``trees`` are networkx DiGraphs (see :mod:`rulekit.ir.tree`).

    Treat the graphs as immutable once wrapped: the evaluator caches a compiled form. Build a new
    ``Model`` after editing a graph.
    """

    def __init__(self, trees: Sequence[nx.DiGraph], features: Sequence[Feature | str], *,
                 task: Literal["classification", "regression"], classes: Sequence[Label] | None = None,
                 combiner: Combiner | None = None, target: str | None = None,
                 source: dict[str, Any] | None = None, validate: bool = True):
        self.trees = list(trees)
        self.features = [f if isinstance(f, Feature) else Feature(name=f) for f in features]
        self.task = task
        self.classes = list(classes) if classes is not None else None
        self.combiner = combiner or Combiner(kind="single" if len(self.trees) == 1 else "average")
        self.target = target
        self.source = dict(source or {})
        self._compiled: list[_compiled.CompiledTree] | None = None
        self._forest: _compiled.Forest | None = None
        if validate:
            self.validate()

    # --- shape -----------------------------------------------------------------------------------
    @property
    def graph(self) -> nx.DiGraph:
        """The tree of a single-tree model (use ``trees`` for an ensemble)."""
        if len(self.trees) != 1:
            raise RulekitError(f"this model is an ensemble of {len(self.trees)} trees: use model.trees")
        return self.trees[0]

    @property
    def feature_names(self) -> list[str]:
        return [f.name for f in self.features]

    @property
    def n_features(self) -> int:
        return len(self.features)

    @property
    def n_classes(self) -> int:
        return len(self.classes or ())

    @property
    def leaf_value_size(self) -> int:
        """Length of every leaf's ``value`` tuple."""
        if self.combiner.kind == "sum" or self.task == "regression":
            return 1
        return self.n_classes

    def validate(self) -> None:
        if not self.trees:
            raise RulekitError("a model needs at least one tree")
        names = self.feature_names
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise RulekitError(f"feature name {dup!r} appears twice")
        if self.task == "classification":
            if not self.classes or len(self.classes) < 2:
                raise RulekitError("a classifier needs at least two classes")
            dup = [c for i, c in enumerate(self.classes) if c in self.classes[:i]]
            if dup:
                raise RulekitError(f"class {dup[0]!r} is listed twice in classes {self.classes!r}")
        c = self.combiner
        if c.kind == "single" and len(self.trees) != 1:
            raise RulekitError("combiner 'single' needs exactly one tree")
        if c.kind == "sum":
            want = {"identity": 1, "sigmoid": 1, "softmax": self.n_classes}[c.link]
            if c.n_outputs != want:
                raise RulekitError(f"combiner 'sum' with link {c.link} needs {want} base score(s)")
            outs = c.tree_output or (0,) * len(self.trees)
            if len(outs) != len(self.trees) or any(not 0 <= o < want for o in outs):
                raise RulekitError("combiner tree_output must give one output index per tree")
            if self.task == "classification" and c.link == "identity":
                raise RulekitError("a boosted classifier needs a sigmoid or softmax link")
        if c.arithmetic is not None and c.kind != "sum" and (c.kind != "average" or self.task != "classification"):
            raise RulekitError("combiner 'arithmetic' applies to sum combiners and averaged classifiers only")
        if c.decision is not None and (c.kind != "sum" or self.task != "classification"):
            raise RulekitError("combiner 'decision' applies to boosted classifiers only")
        for i, tree in enumerate(self.trees):
            validate_tree(tree, n_features=self.n_features, value_size=self.leaf_value_size,
                          where=f"tree {i}")
            self._check_nominal(tree, i)

    def _check_nominal(self, tree: nx.DiGraph, i: int) -> None:
        for node, a in tree.nodes(data=True):
            kind = a["kind"]
            feats = a.get("features", ()) if kind == "linear" else (a.get("feature"),)
            for f in feats:
                if f is None:
                    continue
                fk = self.features[f].kind
                if kind == "nominal" and fk != "nominal":
                    raise RulekitError(f"tree {i}: node {node}: nominal split on numeric feature "
                                       f"{self.features[f].name!r}")
                if kind in ("numeric", "linear") and fk != "numeric":
                    raise RulekitError(f"tree {i}: node {node}: threshold on nominal feature "
                                       f"{self.features[f].name!r}")
            if kind == "nominal":
                size = len(self.features[a["feature"]].domain or ())
                for _, _, d in tree.out_edges(node, data=True):
                    for v in d.get("values") or ():
                        if not isinstance(v, int) or not 0 <= v < size:
                            raise RulekitError(f"tree {i}: node {node}: category code {v!r} outside "
                                               f"the domain of {self.features[a['feature']].name!r}")

    # --- evaluation ------------------------------------------------------------------------------
    def _compiled_trees(self) -> list[_compiled.CompiledTree]:
        if self._compiled is None:
            sizes = [len(f.domain or ()) for f in self.features]
            with gc_paused():
                self._compiled = [_compiled.compile_tree(t, sizes, self.leaf_value_size)
                                  for t in self.trees]
            self._forest = _compiled.build_forest(self._compiled)
        return self._compiled

    def matrix(self, X: Any) -> np.ndarray:
        """``X`` as the float64 matrix the evaluator reads (nominal values as domain codes)."""
        return to_matrix(X, self.features)

    def apply(self, X: Any) -> np.ndarray:
        """Graph node id of the leaf each row reaches, one column per tree."""
        M = self.matrix(X)
        cts = self._compiled_trees()
        leaves = _compiled.apply_all(cts, self._forest, M)
        return np.column_stack([ct.node_ids[leaf] for ct, leaf in zip(cts, leaves)]) if cts else leaves.T

    def tree_values(self, M: np.ndarray):
        """Yield each tree's leaf values for the rows of matrix ``M`` (shape (n, value_size))."""
        cts = self._compiled_trees()
        for ct, leaf in zip(cts, _compiled.apply_all(cts, self._forest, M)):
            yield ct.value[leaf]

    def raw_output(self, X: Any) -> np.ndarray:
        """Aggregated scores before any link: (n, n_outputs) for ``sum``, else summed/averaged values."""
        M = self.matrix(X)
        c = self.combiner
        n = M.shape[0]
        if c.kind == "sum" and c.arithmetic == "float32":
            outs = c.tree_output or (0,) * len(self.trees)
            vals = (v[:, 0] for v in self.tree_values(M))
            return _f32.sum32(c.base_score, outs, vals, n).astype(np.float64)
        if c.kind == "sum":
            raw = np.tile(np.asarray(c.base_score, dtype=np.float64), (n, 1))
            outs = c.tree_output or (0,) * len(self.trees)
            for k, v in zip(outs, self.tree_values(M)):
                raw[:, k] += v[:, 0]
            return raw
        if c.kind == "vote":
            votes = np.zeros((n, self.n_classes))
            for v in self.tree_values(M):
                votes[np.arange(n), np.argmax(v, axis=1)] += 1.0
            return votes / len(self.trees)
        if c.kind == "average" and c.arithmetic == "float32":
            return _f32.average32(self.tree_values(M), len(self.trees), n, self.leaf_value_size).astype(np.float64)
        total = None
        for v in self.tree_values(M):
            total = v.copy() if total is None else total + v
        if c.kind == "average":
            total = total / len(self.trees)
        return total

    def predict_proba(self, X: Any) -> np.ndarray:
        if self.task != "classification":
            raise RulekitError("predict_proba needs a classifier; this model is a regressor")
        raw = self.raw_output(X)
        if self.combiner.kind != "sum":
            return raw
        if self.combiner.arithmetic == "float32":
            if self.combiner.link == "sigmoid":
                p = _f32.sigmoid32(raw[:, 0])
                return np.column_stack([_f32.F32(1) - p, p]).astype(np.float64)
            return _f32.softmax32(raw).astype(np.float64)
        if self.combiner.link == "sigmoid":
            p = sigmoid(raw[:, 0])
            return np.column_stack([1.0 - p, p])
        return softmax(raw)

    def predict(self, X: Any) -> np.ndarray:
        if self.task == "regression":
            raw = self.raw_output(X)
            return raw[:, 0]
        c = self.combiner
        if c.kind == "sum" and c.decision is not None:
            raw = self.raw_output(X)
            if c.link == "sigmoid":
                hit = raw[:, 0] >= 0 if c.decision == "raw>=0" else raw[:, 0] > 0
                return self.label_array()[hit.astype(np.int64)]
            return self.label_array()[np.argmax(raw, axis=1)]
        return self.label_array()[np.argmax(self.predict_proba(X), axis=1)]

    def label_array(self) -> np.ndarray:
        """The classes as a numpy array (object dtype when they mix types)."""
        kinds = {type(c) for c in self.classes or ()}
        return np.asarray(self.classes, dtype=None if len(kinds) == 1 else object)

    # --- files -----------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        save_model(self, path)

    def to_dict(self) -> dict[str, Any]:
        return model_to_file(self).model_dump(mode="json")

    def __repr__(self) -> str:
        kind = "tree" if len(self.trees) == 1 else f"{self.combiner.kind} of {len(self.trees)} trees"
        return f"<rulekit.Model {self.task} {kind}, {self.n_features} feature{'s' * (self.n_features != 1)}>"

