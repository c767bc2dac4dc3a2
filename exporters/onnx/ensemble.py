"""Write a :class:`~.flatten.Forest` as one tree-ensemble operator whose output is [N, n_targets] sums.

* ``v5``: ai.onnx.ml ``TreeEnsemble`` (opset 5). A leaf carries one (target, weight), so a tree
  adding to several targets is written once per target. Thresholds and weights in the input type.
* ``v3``: legacy ``TreeEnsembleRegressor`` (ml opset 3) with several targets per leaf and
  MEMBER sets unrolled into shared ``BRANCH_EQ`` chains. Its output is always float32, so in double
  mode each tree writes its *leaf number* (exact in float32) to its own target and the double leaf
  weights are gathered and summed outside the operator.

Never ``post_transform`` or a classifier operator: onnxruntime gets those wrong (see FACTS), the
exporter adds explicit Sigmoid/Softmax/ArgMax nodes instead.
"""

from __future__ import annotations

import numpy as np
from onnx import helper, numpy_helper

from rulekit import semantics
from rulekit.errors import ExportError

from .flatten import LEQ, MEMBER, Forest
from .graph import ML_DOMAIN, GraphBuilder

_V3_MODE = {LEQ: "BRANCH_LEQ", MEMBER: "BRANCH_EQ"}
F32_EXACT_INT = 2**24


def f32_floor(values: np.ndarray) -> np.ndarray:
    """Largest float32 <= each value, as float32 (:func:`rulekit.semantics.f32_floor_array`).

    For a float32 input ``x``, ``x <= b`` holds iff ``x <= f32_floor(b)``: never round to nearest.
    """
    return semantics.f32_floor_array(np.asarray(values, dtype=np.float64)).astype(np.float32)


def thresholds(forest: Forest, dtype: np.dtype, round32: bool = False) -> np.ndarray:
    """The split values in ``dtype``: the canonical float64 boundaries, or (float32 input, ``round32``
    or a float32 operator) the largest float32 <= each boundary."""
    split = forest.arrays("split")
    if dtype == np.float64 and not round32:
        return split
    return f32_floor(split).astype(dtype)


def _node_arrays(forest: Forest, dtype, round32: bool = False) -> dict[str, np.ndarray]:
    return {
        "feature": forest.arrays("feature").astype(np.int64),
        "mode": forest.arrays("mode").astype(np.uint8),
        "split": thresholds(forest, dtype, round32),
        "true_id": forest.arrays("true_id").astype(np.int64),
        "true_leaf": forest.arrays("true_leaf").astype(bool),
        "false_id": forest.arrays("false_id").astype(np.int64),
        "false_leaf": forest.arrays("false_leaf").astype(bool),
        "missing": forest.arrays("missing_true").astype(np.int64),
    }


def emit_v5(gb: GraphBuilder, feed: str, forest: Forest, dtype: np.dtype, *, average: bool = False,
            out: str | None = None, round32: bool = False) -> str:
    """TreeEnsemble; with W > 1 weights per leaf the whole forest is written W times (target-major).

    ``average``: divide the sums by the number of trees inside the operator (only for W == 1,
    where the operator's tree count is the model's)."""
    a = _node_arrays(forest, dtype, round32)
    weights = forest.leaf_weights()
    leaf_tree = forest.leaf_tree()
    targets = np.asarray(forest.tree_targets, np.int64)  # (n_trees, W)
    n, nl, W = forest.n_nodes, forest.n_leaves, forest.width
    roots = np.asarray(forest.tree_root, np.int64)

    def tile(x):
        return np.tile(x, W) if W > 1 else x

    def shift(ids, leaf):
        if W == 1:
            return ids
        return np.concatenate([ids + np.where(leaf, q * nl, q * n) for q in range(W)])

    true_id, false_id = shift(a["true_id"], a["true_leaf"]), shift(a["false_id"], a["false_leaf"])
    attrs = dict(
        n_targets=forest.n_targets, aggregate_function=0 if average else 1, post_transform=0,
        tree_roots=np.concatenate([roots + q * n for q in range(W)]).tolist(),
        nodes_featureids=tile(a["feature"]).tolist(),
        nodes_modes=numpy_helper.from_array(tile(a["mode"]), "nodes_modes"),
        nodes_splits=numpy_helper.from_array(tile(a["split"]).astype(dtype), "nodes_splits"),
        nodes_truenodeids=true_id.tolist(),
        nodes_trueleafs=tile(a["true_leaf"]).astype(np.int64).tolist(),
        nodes_falsenodeids=false_id.tolist(),
        nodes_falseleafs=tile(a["false_leaf"]).astype(np.int64).tolist(),
        nodes_missing_value_tracks_true=tile(a["missing"]).tolist(),
        leaf_targetids=np.concatenate([targets[leaf_tree, q] for q in range(W)]).tolist(),
        leaf_weights=numpy_helper.from_array(weights.T.reshape(-1).astype(dtype), "leaf_weights"),
    )
    member_nodes = np.flatnonzero(a["mode"] == MEMBER)
    if member_nodes.size:
        parts = []
        for i in member_nodes:
            parts.extend(forest.members[int(i)])
            parts.append(np.nan)
        attrs["membership_values"] = numpy_helper.from_array(np.tile(np.asarray(parts, dtype=dtype), W),
                                                             "membership_values")
    return gb.op("TreeEnsemble", [feed], domain=ML_DOMAIN, hint="scores", out=out, **attrs)


def emit_v3(gb: GraphBuilder, feed: str, forest: Forest, dtype: np.dtype, *, average: bool = False,
            out: str | None = None, round32: bool = False) -> str:
    """TreeEnsembleRegressor; float mode sums in the operator, double mode gathers leaf weights."""
    assert not average or forest.width == 1
    leaf_numbers = dtype == np.float64
    a = _node_arrays(forest, dtype, round32)
    feature, mode, split = a["feature"], a["mode"], a["split"]
    true_id, true_leaf, false_id, false_leaf, missing = (a["true_id"], a["true_leaf"], a["false_id"],
                                                         a["false_leaf"], a["missing"])
    all_weights = forest.leaf_weights()
    cols: dict[str, list] = {k: [] for k in ("tree", "node", "feature", "mode", "value", "true", "false",
                                             "missing", "t_tree", "t_node", "t_id", "t_weight")}
    for t, (a0, b0, la, lb) in enumerate(forest.tree_ranges()):
        sl = slice(a0, b0)
        n_local = b0 - a0
        # local ids: MEMBER nodes expand into one EQ node per code
        width = np.ones(n_local, np.int64)
        member_local = np.flatnonzero(mode[sl] == MEMBER)
        for i in member_local:
            width[i] = len(forest.members[a0 + int(i)])
        first = np.concatenate([[0], np.cumsum(width)[:-1]])
        n_split = int(width.sum())
        weights = all_weights[la:lb]
        n_leaf = lb - la
        if leaf_numbers and n_leaf >= F32_EXACT_INT:
            raise ExportError(f"tree {t} has {n_leaf} leaves: too many for the legacy (opset 3) "
                              f"double encoding; use opset 5")

        def local(ids, leaf):
            return np.where(leaf, ids - la + n_split, first[np.clip(ids - a0, 0, n_local - 1)])

        t_true = local(true_id[sl], true_leaf[sl])
        t_false = local(false_id[sl], false_leaf[sl])
        node_ids = first
        feats, modes, vals, miss = feature[sl], mode[sl], split[sl].astype(np.float64), missing[sl]
        if member_local.size:
            # node i -> EQ(code_0) .. EQ(code_m-1), all true to i's true child, false to the next link
            rep = np.repeat(np.arange(n_local), width)
            node_ids = np.arange(n_split)
            feats, miss, modes = feats[rep], miss[rep], modes[rep]
            vals = vals[rep].copy()
            t_true, t_false = t_true[rep], t_false[rep].copy()
            for i in member_local:
                codes = forest.members[a0 + int(i)]
                s = first[i]
                vals[s:s + len(codes)] = codes
                t_false[s:s + len(codes) - 1] = np.arange(s + 1, s + len(codes))
        zeros = np.zeros(n_leaf, np.int64)
        cols["tree"].append(np.full(n_split + n_leaf, t, np.int64))
        cols["node"].append(np.concatenate([node_ids, n_split + np.arange(n_leaf)]))
        cols["feature"].append(np.concatenate([feats, zeros]))
        cols["mode"].append(np.concatenate([modes, np.full(n_leaf, 255, np.uint8)]))
        cols["value"].append(np.concatenate([vals, np.zeros(n_leaf)]))
        cols["true"].append(np.concatenate([t_true, zeros]))
        cols["false"].append(np.concatenate([t_false, zeros]))
        cols["missing"].append(np.concatenate([miss, zeros]))
        leaf_nodes = n_split + np.arange(n_leaf)
        if leaf_numbers:  # each tree writes its leaf number to its own target
            cols["t_tree"].append(np.full(n_leaf, t, np.int64))
            cols["t_node"].append(leaf_nodes)
            cols["t_id"].append(np.full(n_leaf, t, np.int64))
            cols["t_weight"].append(np.arange(n_leaf, dtype=np.float64))
        else:
            k = forest.width
            cols["t_tree"].append(np.full(n_leaf * k, t, np.int64))
            cols["t_node"].append(np.repeat(leaf_nodes, k))
            cols["t_id"].append(np.tile(np.asarray(forest.tree_targets[t], np.int64), n_leaf))
            cols["t_weight"].append(weights.reshape(-1))
    cat = {k: np.concatenate(v) for k, v in cols.items()}
    modes = cat["mode"]
    mode_names = np.where(modes == 255, "LEAF", np.where(modes == MEMBER, "BRANCH_EQ", "BRANCH_LEQ"))
    attrs = dict(
        n_targets=forest.n_trees if leaf_numbers else forest.n_targets,
        aggregate_function="AVERAGE" if average and not leaf_numbers else "SUM", post_transform="NONE",
        nodes_treeids=cat["tree"].tolist(), nodes_nodeids=cat["node"].tolist(),
        nodes_featureids=cat["feature"].tolist(), nodes_modes=mode_names.tolist(),
        nodes_truenodeids=cat["true"].tolist(), nodes_falsenodeids=cat["false"].tolist(),
        nodes_missing_value_tracks_true=cat["missing"].tolist(),
        target_treeids=cat["t_tree"].tolist(), target_nodeids=cat["t_node"].tolist(),
        target_ids=cat["t_id"].tolist(),
        target_weights=cat["t_weight"].astype(np.float32).tolist(),
    )
    if dtype == np.float64:
        attrs["nodes_values_as_tensor"] = numpy_helper.from_array(cat["value"], "nodes_values")
    else:
        attrs["nodes_values"] = cat["value"].astype(np.float32).tolist()
    result = (out or gb.name("scores")) if not leaf_numbers else gb.name("leaves")
    gb.add_node(helper.make_node("TreeEnsembleRegressor", [feed], [result], domain=ML_DOMAIN,
                                 name=gb.name("n_TreeEnsembleRegressor"), **attrs))
    if not leaf_numbers:
        return result
    # double mode: leaf numbers -> global leaf rows -> double weights, summed over trees
    table = np.zeros((forest.n_leaves, forest.n_targets))
    rows = np.arange(forest.n_leaves)
    tt = np.asarray(forest.tree_targets, np.int64)[forest.leaf_tree()]
    for q in range(forest.width):
        table[rows, tt[:, q]] = all_weights[:, q]
    idx = gb.op("Cast", [result], to=7)  # INT64
    idx = gb.op("Add", [idx, gb.const(np.asarray(forest.leaf_start, np.int64), "leaf_start")])
    vals = gb.op("Gather", [gb.const(table, "leaf_table"), idx], axis=0)  # [N, trees, targets]
    return gb.reduce("ReduceMean" if average else "ReduceSum", vals, 1, keepdims=0, out=out)
