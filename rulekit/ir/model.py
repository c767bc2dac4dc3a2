"""A Model: one tree or an ensemble of tree graphs, their feature schema, classes and combiner.

Combiners (how tree outputs become a prediction: ``single``, ``average``, ``vote``, ``sum`` with a
link, float32 arithmetic, raw-score labels) are defined once in :mod:`rulekit.semantics.combiners`;
the evaluator here calls its numpy reference, as the rule engine does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import numpy as np

from rulekit.errors import RulekitError
from rulekit.ir import compiled as _compiled
from rulekit.ir.data import to_matrix
from rulekit.ir.links import sigmoid, softmax  # noqa: F401 - re-exported: their old home
from rulekit.ir.modelfile_format import model_to_file, save_model
from rulekit.ir.schema import Combiner, Feature, Label  # noqa: F401 - re-exported: their old home
from rulekit.ir.tree import validate_tree
from rulekit.semantics import combiners
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

    def reduction(self) -> combiners.Reduction:
        """The combiner as the data every backend spells (:mod:`rulekit.semantics.combiners`)."""
        return combiners.reduction(self.combiner, len(self.trees), task=self.task,
                                   value_size=self.leaf_value_size)

    def raw_output(self, X: Any) -> np.ndarray:
        """Aggregated scores before any link: (n, n_outputs) for ``sum``, else summed/averaged values."""
        M = self.matrix(X)
        return combiners.aggregate(self.reduction(), self.tree_values(M), M.shape[0])

    def predict_proba(self, X: Any) -> np.ndarray:
        if self.task != "classification":
            raise RulekitError("predict_proba needs a classifier; this model is a regressor")
        return combiners.probabilities(self.reduction(), self.raw_output(X))

    def predict(self, X: Any) -> np.ndarray:
        raw = self.raw_output(X)
        if self.task == "regression":
            return raw[:, 0]
        return self.label_array()[combiners.label_index(self.reduction(), raw)]

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

