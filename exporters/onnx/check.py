"""Validate an exported model: ``onnx.checker`` (full check) plus rulekit's tree-ensemble structure check.

``onnx.checker`` accepts cyclic trees and out-of-range node ids; onnxruntime then refuses them at
load or, worse, walks them. :func:`check_tree_ensembles` walks every TreeEnsemble /
TreeEnsembleRegressor node level by level (no recursion) and insists that every tree is a tree:
ids in range, every node reached exactly once from its root, every leaf used, targets in range.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from rulekit.errors import ExportError


def _attrs(node: onnx.NodeProto) -> dict:
    out = {}
    for a in node.attribute:
        if a.type == onnx.AttributeProto.TENSOR:
            out[a.name] = numpy_helper.to_array(a.t)
        elif a.type == onnx.AttributeProto.INTS:
            out[a.name] = np.asarray(a.ints, dtype=np.int64)
        elif a.type == onnx.AttributeProto.STRINGS:
            out[a.name] = [s.decode() for s in a.strings]
        else:
            out[a.name] = helper.get_attribute_value(a)
    return out


def check_model(model: onnx.ModelProto) -> None:
    """Full ``onnx.checker`` check and the structure check; ExportError naming the first problem."""
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ExportError(f"invalid ONNX model: {first}") from None
    check_tree_ensembles(model)


def check_tree_ensembles(model: onnx.ModelProto) -> None:
    for node in model.graph.node:
        if node.domain != "ai.onnx.ml":
            continue
        if node.op_type == "TreeEnsemble":
            _check_v5(node.name, _attrs(node))
        elif node.op_type in ("TreeEnsembleRegressor", "TreeEnsembleClassifier"):
            _check_v3(node.name, _attrs(node), classifier=node.op_type.endswith("Classifier"))


def _fail(where: str, msg: str) -> None:
    raise ExportError(f"ONNX tree ensemble {where}: {msg}")


def _check_v5(where: str, a: dict) -> None:
    names = ("nodes_featureids", "nodes_modes", "nodes_splits", "nodes_truenodeids", "nodes_trueleafs",
             "nodes_falsenodeids", "nodes_falseleafs")
    for k in names + ("tree_roots", "leaf_targetids", "leaf_weights"):
        if k not in a:
            _fail(where, f"attribute {k} missing")
    n = len(a["nodes_featureids"])
    for k in names + ("nodes_missing_value_tracks_true",):
        if k in a and len(a[k]) != n:
            _fail(where, f"{k} has {len(a[k])} entries, expected {n}")
    n_leaves = len(a["leaf_weights"])
    if len(a["leaf_targetids"]) != n_leaves:
        _fail(where, "leaf_targetids and leaf_weights differ in length")
    targets = a["leaf_targetids"]
    if targets.size and (targets.min() < 0 or targets.max() >= a.get("n_targets", 0)):
        _fail(where, "a leaf target id is out of range")
    modes = a["nodes_modes"]
    if modes.size and modes.max() > 6:
        _fail(where, f"unknown node mode {int(modes.max())}")
    for k in ("nodes_trueleafs", "nodes_falseleafs", "nodes_missing_value_tracks_true"):
        if k in a and a[k].size and not np.isin(a[k], (0, 1)).all():
            _fail(where, f"{k} must hold 0 or 1")
    n_member = int((modes == 6).sum())
    if n_member:
        mv = a.get("membership_values")
        if mv is None:
            _fail(where, "BRANCH_MEMBER nodes without membership_values")
        cuts = np.flatnonzero(np.isnan(mv))
        ends = np.concatenate([cuts, [mv.size]]) if not cuts.size or cuts[-1] != mv.size - 1 else cuts
        sizes = np.diff(np.concatenate([[-1], ends])) - 1
        if sizes.size < n_member or (sizes[:n_member] <= 0).any():
            _fail(where, f"{n_member} BRANCH_MEMBER nodes need as many non-empty membership sets")
    tl, fl = a["nodes_trueleafs"].astype(bool), a["nodes_falseleafs"].astype(bool)
    tid, fid = a["nodes_truenodeids"], a["nodes_falsenodeids"]
    for ids, leaf, side in ((tid, tl, "true"), (fid, fl, "false")):
        bound = np.where(leaf, n_leaves, n)
        if ids.size and ((ids < 0) | (ids >= bound)).any():
            i = int(np.flatnonzero((ids < 0) | (ids >= bound))[0])
            _fail(where, f"node {i}: {side} branch id {int(ids[i])} out of range")
    roots = a["tree_roots"]
    if roots.size and ((roots < 0) | (roots >= n)).any():
        _fail(where, "a tree root is out of range")
    visits = np.zeros(n, np.int64)
    frontier = roots
    while frontier.size:
        np.add.at(visits, frontier, 1)
        if (visits[frontier] > 1).any():
            i = int(frontier[visits[frontier] > 1][0])
            _fail(where, f"node {i} is reached twice (a cycle or a shared subtree)")
        frontier = np.concatenate([tid[frontier][~tl[frontier]], fid[frontier][~fl[frontier]]])
    if (visits == 0).any():
        _fail(where, f"node {int(np.flatnonzero(visits == 0)[0])} is unreachable from every root")
    used = np.zeros(n_leaves, np.int64)
    np.add.at(used, tid[tl], 1)
    np.add.at(used, fid[fl], 1)
    same = tl & fl & (tid == fid)  # the spec's one-leaf tree: both branches name the same leaf
    np.add.at(used, tid[same], -1)
    if (used == 0).any():
        _fail(where, f"leaf {int(np.flatnonzero(used == 0)[0])} is never reached")
    if (used > 1).any():
        _fail(where, f"leaf {int(np.flatnonzero(used > 1)[0])} is shared by several branches")


def _check_v3(where: str, a: dict, *, classifier: bool) -> None:
    tree, nid = a.get("nodes_treeids"), a.get("nodes_nodeids")
    if tree is None or nid is None:
        _fail(where, "nodes_treeids/nodes_nodeids missing")
    n = len(tree)
    for k in ("nodes_featureids", "nodes_modes", "nodes_truenodeids", "nodes_falsenodeids"):
        if len(a.get(k, ())) != n:
            _fail(where, f"{k} has {len(a.get(k, ()))} entries, expected {n}")
    modes = np.asarray(a["nodes_modes"])
    leaf = modes == "LEAF"
    key = tree * (int(nid.max()) + 1 if n else 1) + nid
    if np.unique(key).size != n:
        _fail(where, "duplicate (tree id, node id)")
    lookup = {int(k): i for i, k in enumerate(key)}
    stride = int(nid.max()) + 1 if n else 1

    def index(ids: np.ndarray, trees: np.ndarray) -> np.ndarray:
        out = np.empty(ids.size, np.int64)
        for j, (t, i) in enumerate(zip(trees.tolist(), ids.tolist())):
            k = lookup.get(t * stride + i) if 0 <= i < stride else None
            if k is None:
                _fail(where, f"tree {t}: branch to missing node id {i}")
            out[j] = k
        return out

    inner = np.flatnonzero(~leaf)
    t_idx = index(a["nodes_truenodeids"][inner], tree[inner])
    f_idx = index(a["nodes_falsenodeids"][inner], tree[inner])
    # a shared EQ chain (a set test unrolled) sends every link's true branch to one node: count that
    # edge once, from the chain's last link
    pos = np.full(n, -1, np.int64)
    pos[inner] = np.arange(inner.size)
    feat = a["nodes_featureids"]
    nxt = pos[f_idx]
    chained = (modes[inner] == "BRANCH_EQ") & (nxt >= 0)
    chained[chained] &= (modes[inner][nxt[chained]] == "BRANCH_EQ") \
        & (t_idx[nxt[chained]] == t_idx[chained]) & (feat[inner][nxt[chained]] == feat[inner][chained])
    parents = np.zeros(n, np.int64)
    np.add.at(parents, t_idx[~chained], 1)
    np.add.at(parents, f_idx, 1)
    if (parents > 1).any():
        _fail(where, f"node {int(nid[np.flatnonzero(parents > 1)[0]])} has several parents")
    roots = np.flatnonzero(parents == 0)
    if np.unique(tree[roots]).size != roots.size or roots.size != np.unique(tree).size:
        _fail(where, "every tree needs exactly one root (a cycle leaves a tree without one)")
    child_t = np.full(n, -1, np.int64)
    child_f = np.full(n, -1, np.int64)
    child_t[inner], child_f[inner] = np.where(chained, -1, t_idx), f_idx
    seen = np.zeros(n, bool)
    frontier = roots
    while frontier.size:
        if seen[frontier].any():
            _fail(where, "a cycle")
        seen[frontier] = True
        nxt = np.concatenate([child_t[frontier], child_f[frontier]])
        frontier = nxt[nxt >= 0]
    if not seen.all():
        _fail(where, f"node {int(nid[np.flatnonzero(~seen)[0]])} is unreachable (a cycle?)")
    prefix = "class_" if classifier else "target_"
    tt, tn = a.get(prefix + "treeids", np.zeros(0, np.int64)), a.get(prefix + "nodeids", np.zeros(0, np.int64))
    ids = index(tn, tt) if len(tn) else np.zeros(0, np.int64)
    if ids.size and not leaf[ids].all():
        _fail(where, "a target weight is attached to a split node")
    tid = a.get("class_ids" if classifier else "target_ids", np.zeros(0, np.int64))
    n_targets = len(a.get("classlabels_int64s", a.get("classlabels_strings", ()))) if classifier \
        else a.get("n_targets", 0)
    if len(tid) and (tid.min() < 0 or tid.max() >= n_targets):
        _fail(where, "a target id is out of range")
