"""Spark ML tree models -> rulekit Model, exactly, read from the directory Spark saves (no JVM).

Reads ``DecisionTree``, ``RandomForest`` and ``GBT`` classification/regression models, saved on
their own or as the last stage of a ``PipelineModel`` (earlier stages folded by
:mod:`rulekit.importers.spark_pipeline`). Semantics as Spark 4 scores them:

* a continuous split sends ``x <= threshold`` left, in float64, and NaN right (``NaN <= t`` is
  false). A categorical split sends a value in ``leftCategories`` left and another category
  right; a value that is no category (NaN, unseen, fractional) goes left when more than half of
  the categories go left (Spark then tests "not in the right set"), else right (measured).
* decision tree classifier: probabilities are the leaf's class counts over their sum; random
  forest classifier: the average of each tree's normalised leaf counts (Spark divides the sum by
  its own total, which equals the tree count to the last bit or two); regression: leaf values,
  averaged for forests.
* GBT: ``margin = sum(weight_i * tree_i)``; regression predicts the margin; the classifier's
  P(class 1) is ``1 / (1 + exp(-2 * margin))`` and its label is 1 iff ``margin > 0``. Leaves hold
  ``weight * value`` (doubled for the classifier: exact). Spark sums through BLAS ``ddot``
  (fused multiply-adds in four lanes in its Java BLAS), rulekit in tree order: the results agree
  to rounding (~1e-16 relative), not bit for bit.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from rulekit.importers.spark_files import SparkModelError, StageMetadata, is_spark_dir, read_metadata, read_parquet
from rulekit.importers.spark_pipeline import Layout, Slot, bare_layout, pipeline_layout, pipeline_stages
from rulekit.ir.model import Combiner, Model
from rulekit.ir.tree import graph_from_parts

MAX_FEATURES = 1 << 20  # slots of the features vector (each becomes a named IR feature)
MAX_CATEGORIES = 1 << 16  # categories of one categorical slot (Spark's maxBins bounds them in practice)
_KINDS = {  # class -> (task, ensemble)
    "DecisionTreeClassificationModel": ("classification", "single"),
    "DecisionTreeRegressionModel": ("regression", "single"),
    "RandomForestClassificationModel": ("classification", "forest"),
    "RandomForestRegressionModel": ("regression", "forest"),
    "GBTClassificationModel": ("classification", "gbt"),
    "GBTRegressionModel": ("regression", "gbt"),
}


def load_dir(path: str | Path) -> Model:
    """The IR Model of a tree model (or PipelineModel ending in one) saved by Spark ML's ``save``."""
    root = Path(path)
    if not root.exists():
        raise SparkModelError("no such directory", file=str(root))
    if not is_spark_dir(root):
        raise SparkModelError("not a saved Spark ML model (a directory with metadata/ and data/ "
                              "folders)", file=str(root))
    meta = read_metadata(root)
    stages: list[tuple[StageMetadata, Path]] = []
    model_dir = root
    if meta.short_class == "PipelineModel":
        stages = pipeline_stages(root)
        if not stages:
            raise SparkModelError("a PipelineModel with no stages", file=str(root))
        meta, model_dir = stages.pop()
    if meta.short_class not in _KINDS:
        what = "last pipeline stage" if stages else "model"
        raise SparkModelError(f"{what} is a {meta.short_class}; rulekit imports Spark's "
                              f"{', '.join(sorted(_KINDS))}", file=str(model_dir))
    for param in ("thresholds",):
        if meta.param(param) is not None:
            raise SparkModelError(f"{meta.short_class} sets {param}: its labels then come from "
                                  f"scaled probabilities, which rulekit does not model", file=str(model_dir))
    layout = pipeline_layout(stages, meta, model_dir) if stages else None
    return _model(meta, model_dir, layout, root, [m.short_class for m, _ in stages])


def _model(meta: StageMetadata, model_dir: Path, layout: Layout | None, root: Path,
           stage_names: list[str]) -> Model:
    task, ensemble = _KINDS[meta.short_class]
    n_features = meta.numFeatures
    if not isinstance(n_features, int) or n_features < 1:
        raise SparkModelError("metadata has no numFeatures", file=str(model_dir))
    if n_features > MAX_FEATURES:
        raise SparkModelError(f"metadata claims {n_features:,} features (rulekit reads at most "
                              f"{MAX_FEATURES:,})", file=str(model_dir))
    trees_nodes, weights = _read_trees(model_dir, ensemble)
    if layout is None:
        layout = bare_layout(n_features, _categorical_slots(trees_nodes, n_features, model_dir))
    if len(layout.slots) != n_features:
        raise SparkModelError(f"the pipeline assembles {len(layout.slots)} slots, the model reads "
                              f"{n_features} (a vector column among the assembler's inputs?)",
                              file=str(model_dir))
    n_classes = meta.numClasses if task == "classification" else None
    if task == "classification":
        if ensemble == "gbt":
            n_classes = 2
        if not isinstance(n_classes, int) or n_classes < 2:
            raise SparkModelError(f"metadata numClasses {n_classes!r}", file=str(model_dir))
    scale = [(2.0 if task == "classification" else 1.0) * w for w in weights] if ensemble == "gbt" else None
    leaf_mode = "proba" if task == "classification" and ensemble != "gbt" else "value"
    trees = [_tree(nodes, layout.slots, leaf_mode, n_classes,
                   None if scale is None else scale[i], f"{model_dir}: tree {i}")
             for i, nodes in enumerate(trees_nodes)]
    source = {"library": "spark", "class": meta.short_class, "version": meta.sparkVersion,
              "directory": root.name}
    if stage_names:
        source["pipeline"] = stage_names + [meta.short_class]
        source.update(layout.notes)
    classes = layout.classes or (list(range(n_classes)) if n_classes else None)
    if ensemble == "gbt":
        combiner = Combiner(kind="sum", base_score=(0.0,), link="sigmoid" if task == "classification"
                            else "identity", decision="raw>0" if task == "classification" else None)
    else:
        combiner = Combiner(kind="single" if ensemble == "single" else "average")
    if ensemble == "single" and len(trees) != 1:
        raise SparkModelError(f"a {meta.short_class} with {len(trees)} trees", file=str(model_dir))
    return Model(trees, layout.features, task=task, classes=classes, combiner=combiner, source=source)


# --- node data ---------------------------------------------------------------------------------


class _Nodes:
    """One tree's node columns (numpy arrays; list columns as offsets into flat values)."""

    __slots__ = ("ids", "prediction", "stats_off", "stats", "left", "right", "feature", "cats_off",
                 "cats", "n_cats")

    def __init__(self, **cols: Any):
        for k, v in cols.items():
            setattr(self, k, v)


def _list_column(arr: Any) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, flat float64 values) of a pyarrow list<double> array."""
    import pyarrow as pa  # noqa: PLC0415 - optional library, loaded with the data

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    offsets = arr.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    values = arr.flatten().to_numpy(zero_copy_only=False).astype(np.float64)
    base = offsets[0] if len(offsets) else 0
    return offsets - base, values


def _node_columns(struct: Any, where: Path) -> dict[str, np.ndarray]:
    try:
        get = struct.field
        split = get("split")
        stats_off, stats = _list_column(get("impurityStats"))
        cats_off, cats = _list_column(split.field("leftCategoriesOrThreshold"))
        return dict(ids=get("id").to_numpy(zero_copy_only=False).astype(np.int64),
                    prediction=get("prediction").to_numpy(zero_copy_only=False).astype(np.float64),
                    stats_off=stats_off, stats=stats,
                    left=get("leftChild").to_numpy(zero_copy_only=False).astype(np.int64),
                    right=get("rightChild").to_numpy(zero_copy_only=False).astype(np.int64),
                    feature=split.field("featureIndex").to_numpy(zero_copy_only=False).astype(np.int64),
                    cats_off=cats_off, cats=cats,
                    n_cats=split.field("numCategories").to_numpy(zero_copy_only=False).astype(np.int64))
    except (KeyError, AttributeError, ValueError, TypeError) as err:
        raise SparkModelError(f"node data is not Spark's tree layout ({type(err).__name__}: {err})",
                              file=str(where)) from None


def _read_trees(model_dir: Path, ensemble: str) -> tuple[list[_Nodes], list[float]]:
    """Each tree's nodes and (GBT) weights, in tree order."""
    table = read_parquet(model_dir / "data", "model")  # says how to install pyarrow when it is missing
    import pyarrow as pa  # noqa: PLC0415 - optional library, loaded with the data

    for name in table.column_names:
        if table.column(name).null_count:
            raise SparkModelError(f"node data column {name!r} holds nulls", file=str(model_dir / "data"))
    if ensemble == "single":
        struct = pa.StructArray.from_arrays([c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c
                                             for c in table.columns], names=table.column_names)
        return [_Nodes(**_node_columns(struct, model_dir / "data"))], [1.0]
    if "treeID" not in table.column_names or "nodeData" not in table.column_names:
        raise SparkModelError("ensemble data without treeID/nodeData columns", file=str(model_dir / "data"))
    tree_id = table.column("treeID").to_numpy().astype(np.int64)
    cols = _node_columns(table.column("nodeData").combine_chunks(), model_dir / "data")
    meta_table = read_parquet(model_dir / "treesMetadata", "ensemble")
    names = meta_table.column_names
    id_col, w_col = ("treeID", "weights") if "weights" in names else ("_1", "_3")
    if id_col not in names or w_col not in names:
        raise SparkModelError("treesMetadata without tree ids and weights", file=str(model_dir))
    weight_of = dict(zip(meta_table.column(id_col).to_pylist(), meta_table.column(w_col).to_pylist()))
    n_trees = len(weight_of)
    if sorted(weight_of) != list(range(n_trees)) or set(np.unique(tree_id).tolist()) != set(weight_of):
        raise SparkModelError("tree ids in data/ and treesMetadata/ do not match", file=str(model_dir))
    order = np.argsort(tree_id, kind="stable")
    bounds = np.searchsorted(tree_id[order], np.arange(n_trees + 1))
    trees = []
    for t in range(n_trees):
        rows = order[bounds[t]:bounds[t + 1]]
        trees.append(_take(cols, rows))
    return trees, [float(weight_of[t]) for t in range(n_trees)]


def _take(cols: dict[str, np.ndarray], rows: np.ndarray) -> _Nodes:
    """The columns of ``rows`` (list columns re-based)."""
    out = {k: cols[k][rows] for k in ("ids", "prediction", "left", "right", "feature", "n_cats")}
    for off, val in (("stats_off", "stats"), ("cats_off", "cats")):
        start, end = cols[off][rows], cols[off][rows + 1]
        lengths = end - start
        out[off] = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        if len(rows) and lengths.sum():
            idx = np.repeat(start - out[off][:-1], lengths) + np.arange(int(lengths.sum()))
            out[val] = cols[val][idx]
        else:
            out[val] = np.empty(0)
    return _Nodes(**out)


def _categorical_slots(trees: list[_Nodes], n_features: int, where: Path) -> dict[int, int]:
    """Slot -> number of categories, for slots some split treats as categorical (bare models)."""
    found: dict[int, int] = {}
    numeric: set[int] = set()
    for nodes in trees:
        split = nodes.left >= 0
        for j, k in zip(nodes.feature[split].tolist(), nodes.n_cats[split].tolist()):
            if not 0 <= j < n_features:
                raise SparkModelError(f"a split reads feature {j}, the model has {n_features}", file=str(where))
            if k > MAX_CATEGORIES:
                raise SparkModelError(f"a split on feature {j} claims {k:,} categories (rulekit reads at "
                                      f"most {MAX_CATEGORIES:,})", file=str(where))
            if k >= 0:
                found[j] = max(found.get(j, 0), k)
            else:
                numeric.add(j)
    both = numeric & set(found)
    if both:
        raise SparkModelError(f"feature {min(both)} has continuous and categorical splits", file=str(where))
    return found


# --- one tree ----------------------------------------------------------------------------------


def _tree(nodes: _Nodes, slots: list[Slot], leaf_mode: str, n_classes: int | None,
          scale: float | None, where: str):
    """The IR graph of one Spark tree, built from its root with an explicit stack.

    A split that sends every input one way (possible once labels are folded) is skipped: its
    live child takes its place.
    """
    children = set(nodes.left[nodes.left >= 0].tolist()) | set(nodes.right[nodes.right >= 0].tolist())
    nodes = _Nodes(**{k: getattr(nodes, k).tolist() for k in _Nodes.__slots__})  # Python lists: fast to index
    pos = {i: p for p, i in enumerate(nodes.ids)}
    if len(pos) != len(nodes.ids):
        raise SparkModelError(f"{where}: duplicate node ids")
    roots = [i for i in pos if i not in children]
    if len(roots) != 1:
        raise SparkModelError(f"{where}: {len(roots)} root nodes (expected 1)")
    ir_nodes: list[dict] = []
    edges: list[tuple[int, int, dict]] = []
    stack: list[tuple[int, int, dict | None]] = [(roots[0], -1, None)]  # (spark id, IR parent, edge)
    while stack:
        sid, parent, edge = stack.pop()
        seen = 0
        while True:
            p = pos.get(sid)
            if p is None:
                raise SparkModelError(f"{where}: child {sid} is not in the node data")
            seen += 1
            if seen > len(pos):
                raise SparkModelError(f"{where}: the child links form a cycle")
            if nodes.left[p] < 0:
                attrs, kids = _leaf(nodes, p, leaf_mode, n_classes, scale, where), ()
                break
            attrs, kids = _split(nodes, p, slots, where)
            if len(kids) == 1:  # every input goes one way
                sid = kids[0][0]
                continue
            break
        me = len(ir_nodes)
        if len(ir_nodes) > 4 * len(pos):
            raise SparkModelError(f"{where}: the child links are not a tree")
        ir_nodes.append(attrs)
        if parent >= 0:
            edges.append((parent, me, edge))
        for child, child_edge in reversed(kids):
            stack.append((child, me, child_edge))
    return graph_from_parts(ir_nodes, edges)


def _leaf(nodes: _Nodes, p: int, leaf_mode: str, n_classes: int | None, scale: float | None,
          where: str) -> dict:
    if leaf_mode == "value":
        v = nodes.prediction[p]
        if scale is not None:
            v = scale * v
        return {"kind": "leaf", "value": (v,)}
    counts = nodes.stats[nodes.stats_off[p]:nodes.stats_off[p + 1]]
    if len(counts) != n_classes:
        raise SparkModelError(f"{where}: a leaf has {len(counts)} class counts, the model {n_classes} classes")
    total = 0.0
    for c in counts:  # Scala's Array.sum: left to right from 0
        total += c
    value = tuple(c / total for c in counts) if total != 0 else tuple(0.0 for _ in counts)
    return {"kind": "leaf", "value": value, "counts": tuple(counts)}


def _split(nodes: _Nodes, p: int, slots: list[Slot], where: str) -> tuple[dict, list]:
    """The IR attributes of Spark split ``p`` and its live children ``[(spark id, edge attrs)]``."""
    j = nodes.feature[p]
    if not 0 <= j < len(slots):
        raise SparkModelError(f"{where}: a split reads feature {j}, the model has {len(slots)}")
    slot = slots[j]
    k = nodes.n_cats[p]
    cats = nodes.cats[nodes.cats_off[p]:nodes.cats_off[p + 1]]
    left, right = nodes.left[p], nodes.right[p]
    if k < 0 and len(cats) != 1:
        raise SparkModelError(f"{where}: a continuous split with {len(cats)} thresholds")
    if slot.kind in ("raw", "imputed"):
        if k >= 0:
            raise SparkModelError(f"{where}: a categorical split on numeric column slot {j}")
        t = float(cats[0])
        missing = 1
        if slot.kind == "imputed":
            missing = 0 if slot.surrogate <= t else 1
        attrs = {"kind": "numeric", "feature": slot.feature, "threshold": t, "op": "<=",
                 "precision": "float64", "missing": missing}
        return attrs, [(left, {"branch": 0}), (right, {"branch": 1})]
    left_set = set(cats)
    # Spark keeps the smaller side's set: with more than half of the categories on the left it
    # tests "not in the right set", so a value in neither (NaN, unseen, fractional) goes left
    odd_left = k >= 0 and not len(left_set) <= k // 2

    def goes_left(v: float) -> bool:
        if k < 0:
            return v <= cats[0]
        if v in left_set:
            return True
        return odd_left and not (math.isfinite(v) and v == int(v) and 0 <= v < k)

    side = _side_codes(slot, goes_left, left_set, k, odd_left, cats[0] if k < 0 else None)
    if slot.kind == "category":  # missing and unseen values reach the split as they are
        invalid_left = goes_left(math.nan)
    else:  # the indexer's bucket for them, or (handleInvalid="error") no answer from Spark: right
        invalid_left = slot.invalid_code is not None and goes_left(slot.value(slot.invalid_code))
    if invalid_left:  # unseen and missing labels go left: left is the "other" side
        explicit = side(False)
        if not explicit:
            return {}, [(left, None)]
        edges = [(left, {"branch": 0, "values": None}), (right, {"branch": 1, "values": explicit})]
        missing = 0
    else:
        explicit = side(True)
        if not explicit:
            return {}, [(right, None)]
        edges = [(left, {"branch": 0, "values": explicit}), (right, {"branch": 1, "values": None})]
        missing = 1
    return {"kind": "nominal", "feature": slot.feature, "missing": missing}, edges


def _side_codes(slot: Slot, goes_left, left_set: set, k: int, odd_left: bool, threshold: float | None):
    """A function ``left -> sorted tuple of the label codes going that way`` at a split on ``slot``.

    Built from the split's own sets, not by testing every label: a one-hot slot has two groups
    (its label, the rest) and a vocabulary of thousands of labels costs O(labels) only when the
    side asked for is "every label but a few".
    """
    n = slot.n_codes

    if slot.kind == "onehot":
        pos_left, rest_left = goes_left(1.0), goes_left(0.0)

        def onehot(left: bool) -> tuple[int, ...]:
            mine = 0 <= slot.position < n and pos_left == left
            if rest_left != left:
                return (slot.position,) if mine else ()
            return tuple(c for c in range(n) if c != slot.position or mine)

        return onehot
    if k < 0:  # a threshold on the code: codes 0..m-1 go left
        t = threshold
        m = 0 if t != t or t < 0 else (n if t >= n else min(n, math.floor(t) + 1))
        return lambda left: tuple(range(m)) if left else tuple(range(m, n))
    lefts = {int(v) for v in left_set if math.isfinite(v) and v == int(v) and 0 <= v < n}
    if odd_left:  # codes the split does not know (beyond its own category count) go left too
        lefts.update(range(k, n))
    lefts_t = tuple(sorted(lefts))

    def categorical(left: bool) -> tuple[int, ...]:
        if left:
            return lefts_t
        taken = set(lefts_t)
        return tuple(c for c in range(n) if c not in taken)

    return categorical
