"""What onnxruntime computes from a tree-ensemble node's sums, as an IR combiner (or a refusal).

onnxruntime (1.2x-1.3x, ``tree_ensemble_aggregator.h``) sums each target's leaf weights in tree
order in the operator's type (float for float input, double for double input), then adds
``base_values`` *last* and applies ``post_transform``. The IR's ``sum`` combiner starts from its
base score, so a base value becomes a one-leaf tree after the others (``0 + t1 + ... + b`` is
onnxruntime's order exactly); float operators sum with ``arithmetic="float32"``.

Classifiers follow onnxruntime's rules for the label: three or more classes, the first largest
score; two classes with one weighted class ("binary case"), ``score > 0.5`` when all weights are
>= 0, else ``score > 0``, with probabilities ``[1 - s, s]`` or ``[logistic(-s), logistic(s)]``;
two weighted classes, ``score[1] > 0``. Whatever the IR cannot express exactly (MIN/MAX over
several trees, AVERAGE with base values, per-class LOGISTIC, PROBIT, SOFTMAX_ZERO, several
regression targets, labels onnxruntime decides by another rule than the probabilities show) is
refused, naming the attribute.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from rulekit.importers.onnx_tree_ir import TreeReader
from rulekit.importers.onnx_trees import Ensemble, OnnxModelError
from rulekit.ir.schema import Combiner
from rulekit.ir.tree import TreeBuilder


@dataclass
class Parts:
    trees: list[nx.DiGraph]
    task: str
    classes: list | None
    combiner: Combiner


def _one_leaf(value: float) -> nx.DiGraph:
    b = TreeBuilder()
    b.leaf((float(value),))
    return b.graph


def _leaf_sums(ens: Ensemble, float32: bool) -> np.ndarray:
    """(n_leaves, n_targets) weights per leaf, several entries for one target added in the
    operator's type."""
    dt = np.float32 if float32 else np.float64
    out = np.zeros((len(ens.weights), ens.n_targets), dtype=dt)
    for j, entries in enumerate(ens.weights):
        for k, w in entries:
            out[j, k] = dt(out[j, k] + dt(w))
    return out.astype(np.float64)


def combine(ens: Ensemble, reader: TreeReader, *, float32: bool, label_used: bool) -> Parts:
    if ens.op == "TreeEnsembleClassifier":
        return _classifier(ens, reader, float32=float32, label_used=label_used)
    return _regressor(ens, reader, float32=float32)


def _refuse(ens: Ensemble, what: str):
    raise OnnxModelError(f"{ens.name}: {what}; rulekit's model cannot reproduce what onnxruntime computes")


def _sum(ens: Ensemble, reader: TreeReader, W: np.ndarray, base: list[float], *, float32: bool,
         link: str, targets: list[int], decision: str | None = None) -> tuple[list, Combiner]:
    """Boosting: one IR tree per (tree, target it writes), base values as trailing one-leaf trees."""
    trees, outputs = [], []
    out_of = {k: i for i, k in enumerate(targets)}
    for root in ens.roots:
        written = sorted({k for j in reader.leaves(root) for k, _ in ens.weights[j] if k in out_of})
        for k in written or [targets[0]]:
            trees.append(reader.tree(root, lambda j, k=k: (W[j, k],)))
            outputs.append(out_of[k])
    for k in targets:
        b = base[k] if k < len(base) else 0.0
        if b != 0.0:
            trees.append(_one_leaf(np.float32(b) if float32 else b))
            outputs.append(out_of[k])
    combiner = Combiner(kind="sum", base_score=(0.0,) * len(targets), link=link, tree_output=tuple(outputs),
                        decision=decision, arithmetic="float32" if float32 else None)
    return trees, combiner


def _regressor(ens: Ensemble, reader: TreeReader, *, float32: bool) -> Parts:
    if ens.n_targets != 1:
        _refuse(ens, f"n_targets={ens.n_targets} (a rulekit model has one regression output)")
    if ens.post_transform != "NONE":
        where = ("on TreeEnsemble (onnxruntime 1.31-1.32 applies it unreliably: swapped or skipped)"
                 if ens.op == "TreeEnsemble" else "on a regressor")
        _refuse(ens, f"post_transform {ens.post_transform} {where}")
    W = _leaf_sums(ens, float32)
    base = ens.base_values[0] if ens.base_values else 0.0
    n = ens.n_trees
    agg = ens.aggregate
    if n == 1 and base == 0.0:  # any aggregate of one tree is that tree
        tree = reader.tree(ens.roots[0], lambda j: (W[j, 0],))
        return Parts([tree], "regression", None, Combiner(kind="single"))
    if agg in ("MIN", "MAX"):
        _refuse(ens, f"aggregate_function {agg} over {n} trees")
    if agg == "AVERAGE":
        if base != 0.0:
            _refuse(ens, "aggregate_function AVERAGE with base_values")
        trees = [reader.tree(r, lambda j: (W[j, 0],)) for r in ens.roots]
        return Parts(trees, "regression", None, Combiner(kind="average"))
    trees, combiner = _sum(ens, reader, W, [base], float32=float32, link="identity", targets=[0])
    return Parts(trees, "regression", None, combiner)


def _classifier(ens: Ensemble, reader: TreeReader, *, float32: bool, label_used: bool) -> Parts:
    classes = list(ens.classes or [])
    K = len(classes)
    if len(set(map(repr, classes))) != K:
        _refuse(ens, "a class label is listed twice")
    W = _leaf_sums(ens, float32)
    used = sorted({k for entries in ens.weights for k, _ in entries})
    all_pos = all(w >= 0 for entries in ens.weights for _, w in entries)
    base = list(ens.base_values)
    zero_base = all(b == 0.0 for b in base)
    post = ens.post_transform
    if post in ("PROBIT", "SOFTMAX_ZERO"):
        _refuse(ens, f"post_transform {post}")
    if K >= 3:
        if post == "SOFTMAX":
            trees, c = _sum(ens, reader, W, base, float32=float32, link="softmax", targets=list(range(K)),
                            decision="raw>0")
            return Parts(trees, "classification", classes, c)
        if post == "LOGISTIC":
            _refuse(ens, f"post_transform LOGISTIC over {K} classes (one sigmoid per class)")
        if not zero_base or not all_pos:
            _refuse(ens, "post_transform NONE with base_values or negative weights (scores that are "
                         "not probabilities)")
        return _averaged(ens, reader, W, classes, lambda w: w, float32=float32)
    if K != 2:
        _refuse(ens, f"{K} class label(s)")
    if used == [0] or not used:  # onnxruntime's "binary case": one score s for class 1
        if len(base) > 1 and not zero_base:
            _refuse(ens, "two base_values with one weighted class")
        b = base[0] if base else 0.0
        if all_pos:
            if post != "NONE":
                _refuse(ens, f"post_transform {post} with all weights >= 0 (onnxruntime writes [1 - s, s] "
                             f"without it)")
            if b != 0.0:
                _refuse(ens, "base_values with probability weights")
            return _averaged(ens, reader, W, classes, lambda w: np.array([1.0 - w[0], w[0]]), binary=True,
                             float32=float32)
        if post != "LOGISTIC":
            _refuse(ens, f"post_transform {post} with negative weights (probabilities [-s, s])")
        trees, c = _sum(ens, reader, W, [b], float32=float32, link="sigmoid", targets=[0], decision="raw>0")
        return Parts(trees, "classification", classes, c)
    if used == [1]:
        _refuse(ens, "two classes with weights for class 1 only")
    if not zero_base:
        _refuse(ens, "two weighted classes with base_values")
    symmetric = all(_symmetric(entries) for entries in ens.weights)
    if post == "LOGISTIC" or post == "SOFTMAX" and label_used:
        if not symmetric:
            _refuse(ens, f"post_transform {post} on two independently weighted classes")
        # symmetric weights: score[0] = -score[1], so onnxruntime's label score[1] > 0 is the argmax
        logistic = post == "LOGISTIC"
        trees, c = _sum(ens, reader, W, [0.0, 0.0], float32=float32, link="sigmoid" if logistic else "softmax",
                        targets=[1] if logistic else [0, 1], decision="raw>0")
        return Parts(trees, "classification", classes, c)
    if post == "SOFTMAX":
        trees, c = _sum(ens, reader, W, [0.0, 0.0], float32=float32, link="softmax", targets=[0, 1],
                        decision="raw>0")
        return Parts(trees, "classification", classes, c)
    if label_used:
        _refuse(ens, "two weighted classes without a post_transform (onnxruntime's label is then "
                     "score[1] > 0, not the larger probability)")
    if not all_pos:
        _refuse(ens, "negative weights without a post_transform (scores that are not probabilities)")
    return _averaged(ens, reader, W, classes, lambda w: w)


def _symmetric(entries: list[tuple[int, float]]) -> bool:
    got: dict[int, float] = {}
    for k, w in entries:
        got[k] = got.get(k, 0.0) + w
    return got.get(0, 0.0) == -got.get(1, 0.0)


def _averaged(ens: Ensemble, reader: TreeReader, W: np.ndarray, classes: list, value, *, binary: bool = False,
              float32: bool = False) -> Parts:
    """Probabilities summed over trees: one tree keeps its weights; several are an ``average``
    of the weights times the number of trees (double operators: exact scaling, the sum's rounding
    may differ in the last bit unless the number of trees is a power of two).

    Float operators (skl2onnx forests with float input): ``arithmetic="float32"``, whose terms
    ``float32(v / n)`` are the file's weights again (:func:`scaled_outputs`), added in tree order in
    float32 as onnxruntime adds them; bit-identical to onnxruntime run on one thread (its
    multi-threaded sums merge partial sums in another order). Before (float64 average), 409 of
    20,000 labels differed from onnxruntime on a 50-tree forest with real 50/50 ties. Two
    independently weighted classes, or a leaf writing one class twice, keep the float64 average
    (within ~1e-6; onnxruntime's order of those additions is not the IR's)."""
    n = ens.n_trees
    if n == 1:
        if binary and float32:
            value = _one_minus32
        tree = reader.tree(ens.roots[0], lambda j: tuple(value(W[j])))
        return Parts([tree], "classification", classes, Combiner(kind="single"))
    V = scaled_outputs(W, n) if float32 else W * n
    if binary:
        trees = [reader.tree(r, lambda j: (1.0 - V[j, 0], V[j, 0])) for r in ens.roots]
    else:
        trees = [reader.tree(r, lambda j: tuple(V[j])) for r in ens.roots]
    once = all(len({k for k, _ in entries}) == len(entries) for entries in ens.weights)
    exact32 = float32 and once and (binary or len(classes) >= 3)
    return Parts(trees, "classification", classes,
                 Combiner(kind="average", arithmetic="float32" if exact32 else None))


def scaled_outputs(W: np.ndarray, n: int) -> np.ndarray:
    """Float weights ``w = float32(p / n)`` back to probabilities: ``float32(n * w)`` where that
    divides back to ``w`` (a converter's ``p`` rounded to float32, e.g. 0.5 rather than
    0.50000000745 for ``w = float32(0.1)``, n = 10), else ``n * w``."""
    exact = W * n
    with np.errstate(over="ignore"):
        short = exact.astype(np.float32)
        back = (short / np.float32(n)).astype(np.float32)
    return np.where(back == W.astype(np.float32), short.astype(np.float64), exact)


def _one_minus32(w: np.ndarray) -> tuple[float, float]:
    """``[1 - s, s]`` with the subtraction in float, as the float operator computes it."""
    s = np.float32(w[0])
    return float(np.float32(1.0) - s), float(s)
