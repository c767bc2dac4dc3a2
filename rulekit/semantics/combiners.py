"""How tree outputs become a prediction: a combiner's reduction as data, and its numpy reference.

:func:`reduction` reads a ``Combiner`` (:mod:`rulekit.ir.schema`) once into a :class:`Reduction`:
what each tree adds to which accumulator (:func:`leaf_terms`), where the accumulators start, in
which precision they are added (always in tree order: float addition is not associative), how
they are scaled, the link, and which rule picks the label. The tree evaluator
(:mod:`rulekit.ir.model`) and the rule engine call :func:`aggregate`, :func:`probabilities` and
:func:`label_index`; the Python, SQL and ONNX exporters spell the same data in their language.

Kinds, in the source's arithmetic order:

``single``   one tree; its leaf value is the class distribution or the regression value.
``average``  leaf values summed in tree order in float64, divided by the number of trees at the end.
             With ``arithmetic="float32"`` (onnxruntime's float forests): each value divided by the
             number of trees and rounded to float32, the quotients added in float32; two classes:
             ``[1 - s, s]`` in float32 (link ``complement``; only class 1 need be summed).
``vote``     each tree votes for its leaf's first largest class; probabilities are vote fractions.
``sum``      accumulators start at the base scores, each tree adds its leaf value to its output
             (``tree_output``); link identity, sigmoid (P(class 1)) or softmax. ``arithmetic=
             "float32"`` (XGBoost): base, sums and link in float32 (:mod:`rulekit.semantics.float32`).

Labels: the first largest probability, unless a ``sum`` combiner sets ``decision``: sigmoid
``classes[1]`` iff ``raw >= 0`` (``"raw>=0"``) or ``raw > 0`` (``"raw>0"``); softmax: the first
largest raw score (``"raw-argmax"``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.semantics import float32 as _f32
from rulekit.semantics.links import sigmoid, softmax


@dataclass(frozen=True)
class Reduction:
    """A combiner as the data every backend spells (see the module docstring)."""

    kind: str  # single | average | vote | sum
    n_trees: int
    width: int  # accumulators: the sum's outputs, else the leaf value size (classes, or 1)
    outputs: tuple[int, ...]  # the accumulator each tree adds to (sum), in tree order; else ()
    base: tuple[float, ...]  # where the accumulators start (sum); else () for zeros
    precision: str  # "float64" | "float32": the precision of every addition (and of the link)
    scale: str  # "none" | "end" (accumulators / n_trees) | "term" (each term float32(v / n_trees))
    link: str  # identity | sigmoid | softmax | complement ([1 - s1, s1] in float32)
    label: str  # argmax (of the probabilities) | raw>=0 | raw>0 | raw-argmax (of the raw scores)
    summed: tuple[int, ...]  # leaf value components that must be summed (complement: class 1 only)

    @property
    def float32(self) -> bool:
        return self.precision == "float32"


def reduction(combiner: Any, n_trees: int, *, task: str, value_size: int) -> Reduction:
    """The :class:`Reduction` of ``combiner`` over ``n_trees`` trees whose leaves hold
    ``value_size`` values (the number of classes for a classifier, else 1; 1 for a ``sum``)."""
    c = combiner
    kind = c.kind
    f32 = getattr(c, "arithmetic", None) == "float32"
    decision = getattr(c, "decision", None)
    if kind == "sum":
        width = c.n_outputs
        outputs = tuple(c.tree_output or (0,) * n_trees)
        link = c.link
        label = "argmax" if decision is None else decision if c.link == "sigmoid" else "raw-argmax"
        return Reduction("sum", n_trees, width, outputs, tuple(c.base_score),
                         "float32" if f32 else "float64", "none", link,
                         label if task == "classification" else "argmax", (0,))
    avg32 = kind == "average" and f32
    link = "complement" if avg32 and value_size == 2 else "identity"
    scale = "term" if avg32 else "end" if kind in ("average", "vote") else "none"
    summed = (1,) if link == "complement" else tuple(range(value_size))
    return Reduction(kind, n_trees, value_size, (), (), "float32" if avg32 else "float64", scale, link,
                     "argmax", summed)


def vote_of(value: Any) -> int:
    """The class a leaf votes for: its first largest value (numpy's argmax)."""
    return int(np.argmax(value))


def term(red: Reduction, v: float) -> float:
    """What one leaf value adds: ``float32(v / n_trees)`` for ``scale="term"``, else ``v``."""
    return float(np.float32(v / red.n_trees)) if red.scale == "term" else float(v)


def leaf_terms(red: Reduction, tree: int, leaf_values: list) -> list[tuple[int, list[float]]]:
    """What tree ``tree`` adds, per accumulator: (accumulator, the value each leaf adds), leaves
    in ``leaf_values`` order. Accumulators it never touches are left out; a value may be 0.0."""
    if red.kind == "sum":
        return [(red.outputs[tree], [float(v[0]) for v in leaf_values])]
    if red.kind == "vote":
        votes = [vote_of(v) for v in leaf_values]
        return [(k, [1.0 if c == k else 0.0 for c in votes]) for k in range(red.width)]
    return [(k, [term(red, v[k]) for v in leaf_values]) for k in red.summed]


# --- the numpy reference -------------------------------------------------------------------------------


def aggregate(red: Reduction, values: Iterable[np.ndarray], n: int) -> np.ndarray:
    """(n, width) float64 scores before any link, from each tree's (n, value_size) leaf values in
    tree order: sums start at the base; averages and votes are divided by the number of trees;
    float32 averages are already probabilities (``[1 - s, s]`` for two classes)."""
    if red.kind == "sum" and red.float32:
        return _f32.sum32(red.base, red.outputs, (v[:, 0] for v in values), n).astype(np.float64)
    if red.kind == "sum":
        raw = np.tile(np.asarray(red.base, dtype=np.float64), (n, 1))
        for k, v in zip(red.outputs, values):
            raw[:, k] += v[:, 0]
        return raw
    if red.kind == "vote":
        votes = np.zeros((n, red.width))
        rows = np.arange(n)
        for v in values:
            votes[rows, np.argmax(v, axis=1)] += 1.0
        return votes / red.n_trees
    if red.scale == "term":
        return _f32.average32(values, red.n_trees, n, red.width).astype(np.float64)
    total = None
    for v in values:
        total = v.copy() if total is None else total + v
    if red.scale == "end":
        total = total / red.n_trees
    return total


def probabilities(red: Reduction, raw: np.ndarray) -> np.ndarray:
    """Class probabilities from :func:`aggregate`'s scores (the scores themselves unless ``sum``)."""
    if red.kind != "sum":
        return raw
    if red.link == "identity":
        raise RulekitError("a boosted classifier needs a sigmoid or softmax link")
    if red.float32:
        if red.link == "sigmoid":
            p = _f32.sigmoid32(raw[:, 0])
            return np.column_stack([_f32.F32(1) - p, p]).astype(np.float64)
        return _f32.softmax32(raw).astype(np.float64)
    if red.link == "sigmoid":
        p = sigmoid(raw[:, 0])
        return np.column_stack([1.0 - p, p])
    return softmax(raw)


def label_index(red: Reduction, raw: np.ndarray, proba: np.ndarray | None = None) -> np.ndarray:
    """Class index per row: the first largest probability (``proba``, computed when not given),
    or the raw-score rule of ``red.label``."""
    if red.label in ("raw>=0", "raw>0"):
        hit = raw[:, 0] >= 0 if red.label == "raw>=0" else raw[:, 0] > 0
        return hit.astype(np.int64)
    if red.label == "raw-argmax":
        return np.argmax(raw, axis=1)
    return np.argmax(probabilities(red, raw) if proba is None else proba, axis=1)


__all__ = ["Reduction", "aggregate", "label_index", "leaf_terms", "probabilities", "reduction", "term",
           "vote_of"]
