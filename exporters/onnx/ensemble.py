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

from rulekit.errors import ExportError

from .flatten import LEQ, MEMBER, Forest
from .graph import ML_DOMAIN, GraphBuilder

_V3_MODE = {LEQ: "BRANCH_LEQ", MEMBER: "BRANCH_EQ"}
F32_EXACT_INT = 2**24


def f32_floor(values: np.ndarray) -> np.ndarray:
    """Largest float32 <= each value (vectorized :func:`rulekit.semantics.f32_round_down`).

    For a float32 input ``x``, ``x <= b`` holds iff ``x <= f32_floor(b)``: never round to nearest.
    """
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):
        f = values.astype(np.float32)
    up = f.astype(np.float64) > values
    f[up] = np.nextafter(f[up], np.float32(-np.inf))
    return f


def thresholds(forest: Forest, dtype: np.dtype) -> np.ndarray:
    split = forest.arrays("split")
    return split if dtype == np.float64 else f32_floor(split)


def _copies(forest: Forest):
    """(tree, target position) pairs in output order: one copy of each tree per target it feeds."""
    for t, targets in enumerate(forest.tree_targets):
        for q in range(len(targets)):
            yield t, q


def emit_v5(gb: GraphBuilder, feed: str, forest: Forest, dtype: np.dtype) -> str:
    feature = forest.arrays("feature").astype(np.int64)
    mode = forest.arrays("mode").astype(np.uint8)
    split = thresholds(forest, dtype)
    true_id = forest.arrays("true_id").astype(np.int64)
    true_leaf = forest.arrays("true_leaf").astype(bool)
    false_id = forest.arrays("false_id").astype(np.int64)
    false_leaf = forest.arrays("false_leaf").astype(bool)
    missing = forest.arrays("missing_true").astype(np.int64)
    src = np.arange(feature.size)
    single = all(len(t) == 1 for t in forest.tree_targets)
    if single:
        roots = np.asarray(forest.tree_root, np.int64)
        targets = np.concatenate([np.full(w.shape[0], tg[0], np.int64)
                                  for w, tg in zip(forest.leaf_weights, forest.tree_targets)])
        weights = np.concatenate([w[:, 0] for w in forest.leaf_weights])
    else:
        feature, mode, split, true_id, true_leaf, false_id, false_leaf, missing, src, roots, targets, \
            weights = _replicate(forest, feature, mode, split, true_id, true_leaf, false_id, false_leaf,
                                 missing)
    attrs = dict(
        n_targets=forest.n_targets, aggregate_function=1, post_transform=0,
        tree_roots=roots.tolist(),
        nodes_featureids=feature.tolist(),
        nodes_modes=numpy_helper.from_array(mode, "nodes_modes"),
        nodes_splits=numpy_helper.from_array(split.astype(dtype), "nodes_splits"),
        nodes_truenodeids=true_id.tolist(), nodes_trueleafs=true_leaf.astype(np.int64).tolist(),
        nodes_falsenodeids=false_id.tolist(), nodes_falseleafs=false_leaf.astype(np.int64).tolist(),
        nodes_missing_value_tracks_true=missing.tolist(),
        leaf_targetids=targets.tolist(),
        leaf_weights=numpy_helper.from_array(weights.astype(dtype), "leaf_weights"),
    )
    member_nodes = np.flatnonzero(mode == MEMBER)
    if member_nodes.size:
        parts = []
        for i in member_nodes:
            parts.extend(forest.members[int(src[i])])
            parts.append(np.nan)
        attrs["membership_values"] = numpy_helper.from_array(np.asarray(parts, dtype=dtype),
                                                             "membership_values")
    return gb.op("TreeEnsemble", [feed], domain=ML_DOMAIN, hint="scores", **attrs)


def _replicate(forest: Forest, feature, mode, split, true_id, true_leaf, false_id, false_leaf, missing):
    """Node/leaf arrays with each tree repeated once per target it adds to (v5 leaves are 1-target)."""
    ends_n = forest.node_start[1:] + [forest.n_nodes]
    ends_l = forest.leaf_start[1:] + [forest.n_leaves]
    out = {k: [] for k in ("feature", "mode", "split", "true_id", "true_leaf", "false_id",
                           "false_leaf", "missing", "src", "targets", "weights")}
    roots = []
    n_base = l_base = 0
    for t, q in _copies(forest):
        a, b = forest.node_start[t], ends_n[t]
        la = forest.leaf_start[t]
        sl = slice(a, b)
        tl, fl = true_leaf[sl], false_leaf[sl]
        out["true_id"].append(np.where(tl, true_id[sl] - la + l_base, true_id[sl] - a + n_base))
        out["false_id"].append(np.where(fl, false_id[sl] - la + l_base, false_id[sl] - a + n_base))
        out["true_leaf"].append(tl)
        out["false_leaf"].append(fl)
        for k, arr in (("feature", feature), ("mode", mode), ("split", split), ("missing", missing)):
            out[k].append(arr[sl])
        out["src"].append(np.arange(a, b))
        w = forest.leaf_weights[t][:, q]
        out["weights"].append(w)
        out["targets"].append(np.full(w.size, forest.tree_targets[t][q], np.int64))
        roots.append(forest.tree_root[t] - a + n_base)
        n_base += b - a
        l_base += ends_l[t] - la
    cat = {k: np.concatenate(v) for k, v in out.items()}
    return (cat["feature"], cat["mode"], cat["split"], cat["true_id"], cat["true_leaf"], cat["false_id"],
            cat["false_leaf"], cat["missing"], cat["src"], np.asarray(roots, np.int64), cat["targets"],
            cat["weights"])


def emit_v3(gb: GraphBuilder, feed: str, forest: Forest, dtype: np.dtype) -> str:
    """TreeEnsembleRegressor; float mode sums in the operator, double mode gathers leaf weights."""
    leaf_numbers = dtype == np.float64
    feature = forest.arrays("feature").astype(np.int64)
    mode = forest.arrays("mode").astype(np.uint8)
    split = thresholds(forest, dtype)
    true_id = forest.arrays("true_id").astype(np.int64)
    true_leaf = forest.arrays("true_leaf").astype(bool)
    false_id = forest.arrays("false_id").astype(np.int64)
    false_leaf = forest.arrays("false_leaf").astype(bool)
    missing = forest.arrays("missing_true").astype(np.int64)
    ends_n = forest.node_start[1:] + [forest.n_nodes]
    cols: dict[str, list] = {k: [] for k in ("tree", "node", "feature", "mode", "value", "true", "false",
                                             "missing", "t_tree", "t_node", "t_id", "t_weight")}
    for t in range(forest.n_trees):
        a, b = forest.node_start[t], ends_n[t]
        la = forest.leaf_start[t]
        sl = slice(a, b)
        n_local = b - a
        # local ids: MEMBER nodes expand into one EQ node per code
        width = np.ones(n_local, np.int64)
        member_local = np.flatnonzero(mode[sl] == MEMBER)
        for i in member_local:
            width[i] = len(forest.members[a + int(i)])
        first = np.concatenate([[0], np.cumsum(width)[:-1]])
        n_split = int(width.sum())
        weights = forest.leaf_weights[t]
        n_leaf = weights.shape[0]
        if leaf_numbers and n_leaf >= F32_EXACT_INT:
            raise ExportError(f"tree {t} has {n_leaf} leaves: too many for the legacy (opset 3) "
                              f"double encoding; use opset 5")

        def local(ids, leaf):
            return np.where(leaf, ids - la + n_split, first[np.clip(ids - a, 0, n_local - 1)])

        t_true = local(true_id[sl], true_leaf[sl])
        t_false = local(false_id[sl], false_leaf[sl])
        node_ids = first.copy()
        feats, modes, vals = feature[sl], mode[sl], split[sl].astype(np.float64)
        miss = missing[sl]
        if member_local.size:
            # expand: node i -> EQ(code_0) .. EQ(code_m-1); false of each but the last -> next EQ
            rep = np.repeat(np.arange(n_local), width)
            node_ids = np.arange(n_split)
            feats, miss = feats[rep], miss[rep]
            modes = modes[rep]
            vals = vals[rep].copy()
            tt, ff = t_true[rep], t_false[rep].copy()
            for i in member_local:
                codes = forest.members[a + int(i)]
                s = first[i]
                vals[s:s + len(codes)] = codes
                ff[s:s + len(codes) - 1] = np.arange(s + 1, s + len(codes))
            t_true, t_false = tt, ff
        cols["tree"].append(np.full(n_split + n_leaf, t, np.int64))
        cols["node"].append(np.concatenate([node_ids, n_split + np.arange(n_leaf)]))
        cols["feature"].append(np.concatenate([feats, np.zeros(n_leaf, np.int64)]))
        cols["mode"].append(np.concatenate([modes, np.full(n_leaf, 255, np.uint8)]))
        cols["value"].append(np.concatenate([vals, np.zeros(n_leaf)]))
        cols["true"].append(np.concatenate([t_true, np.zeros(n_leaf, np.int64)]))
        cols["false"].append(np.concatenate([t_false, np.zeros(n_leaf, np.int64)]))
        cols["missing"].append(np.concatenate([miss, np.zeros(n_leaf, np.int64)]))
        leaf_nodes = n_split + np.arange(n_leaf)
        if leaf_numbers:
            cols["t_tree"].append(np.full(n_leaf, t, np.int64))
            cols["t_node"].append(leaf_nodes)
            cols["t_id"].append(np.full(n_leaf, t, np.int64))
            cols["t_weight"].append(np.arange(n_leaf, dtype=np.float64))
        else:
            k = len(forest.tree_targets[t])
            cols["t_tree"].append(np.full(n_leaf * k, t, np.int64))
            cols["t_node"].append(np.repeat(leaf_nodes, k))
            cols["t_id"].append(np.tile(np.asarray(forest.tree_targets[t], np.int64), n_leaf))
            cols["t_weight"].append(weights.reshape(-1))
    cat = {k: np.concatenate(v) for k, v in cols.items()}
    modes = cat["mode"]
    mode_names = np.where(modes == 255, "LEAF", np.where(modes == MEMBER, "BRANCH_EQ", "BRANCH_LEQ"))
    attrs = dict(
        n_targets=forest.n_trees if leaf_numbers else forest.n_targets,
        aggregate_function="SUM", post_transform="NONE",
        nodes_treeids=cat["tree"].tolist(), nodes_nodeids=cat["node"].tolist(),
        nodes_featureids=cat["feature"].tolist(), nodes_modes=mode_names.tolist(),
        nodes_truenodeids=cat["true"].tolist(), nodes_falsenodeids=cat["false"].tolist(),
        nodes_missing_value_tracks_true=cat["missing"].tolist(),
        target_treeids=cat["t_tree"].tolist(), target_nodeids=cat["t_node"].tolist(),
        target_ids=cat["t_id"].tolist(),
    )
    if dtype == np.float64:
        attrs["nodes_values_as_tensor"] = numpy_helper.from_array(cat["value"], "nodes_values")
    else:
        attrs["nodes_values"] = cat["value"].astype(np.float32).tolist()
    if leaf_numbers:
        attrs["target_weights"] = cat["t_weight"].astype(np.float32).tolist()
    else:
        attrs["target_weights"] = cat["t_weight"].astype(np.float32).tolist()
    node = helper.make_node("TreeEnsembleRegressor", [feed], [gb.name("leaves" if leaf_numbers else "scores")],
                            domain=ML_DOMAIN, name=gb.name("n_TreeEnsembleRegressor"), **attrs)
    gb.add_node(node)
    out = node.output[0]
    if not leaf_numbers:
        return out
    # double mode: leaf numbers -> global leaf rows -> double weights, summed over trees
    table = np.zeros((forest.n_leaves, forest.n_targets))
    for t in range(forest.n_trees):
        la = forest.leaf_start[t]
        w = forest.leaf_weights[t]
        for q, target in enumerate(forest.tree_targets[t]):
            table[la:la + w.shape[0], target] = w[:, q]
    idx = gb.op("Cast", [out], to=7)  # INT64
    idx = gb.op("Add", [idx, gb.const(np.asarray(forest.leaf_start, np.int64), "leaf_start")])
    vals = gb.op("Gather", [gb.const(table, "leaf_table"), idx], axis=0)  # [N, trees, targets]
    return gb.reduce("ReduceSum", vals, 1, keepdims=0)
