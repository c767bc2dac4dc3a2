"""One ai.onnx.ml tree-ensemble node -> plain tables: binary split nodes, leaves and their weights.

Reads TreeEnsembleClassifier/TreeEnsembleRegressor (ml opsets 1-3, ``*_as_tensor`` included) and
TreeEnsemble (ml opset 5, BRANCH_MEMBER sets). Trees come in onnxruntime's order: v5 its
``tree_roots``; legacy, as onnxruntime 1.32 reads them, a tree starts at every node whose tree id
differs from the previous node's (nodes listed out of tree order make extra trees there too:
measured, a leaf listed after another tree's nodes is summed as a one-leaf tree). Every
reference is checked: out-of-range ids, a node reached twice (a cycle or a shared subtree) and a
weight on a non-leaf are refused in one line, before anything proportional to a claimed size is
allocated. Nothing here recurses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from onnx import AttributeProto, NodeProto, numpy_helper

from rulekit.errors import RulekitError

MODES = ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER")
AGGREGATES = ("AVERAGE", "SUM", "MIN", "MAX")  # v5 codes 0..3
POST = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")  # v5 codes 0..4
# split nodes + leaves of one ensemble: the IR takes ~0.65 KB per node (measured: 1.1M IR nodes
# from a 19 MB v5 file, +0.7 GB peak RSS), so 4M nodes stay within ~3 GB
MAX_NODES = 4_000_000
MAX_TARGETS = 1 << 16  # a claimed target count above this (and above the leaf count) is refused


class OnnxModelError(RulekitError):
    """An ONNX file rulekit cannot import (or a graph it refuses), in one line."""


@dataclass
class Ensemble:
    """A tree-ensemble node's content. Split ``i``: ``mode[i]`` (index into MODES) on ``feature[i]``
    against ``value[i]`` (or the set ``members[i]``); ``true_ref``/``false_ref`` name a split
    (``>= 0``) or a leaf (``-1 - leaf``); ``missing_true[i]``: NaN takes the true branch.
    Leaf ``j`` adds ``weights[j]`` (a list of ``(target, weight)``) to the targets."""

    op: str
    name: str
    n_targets: int
    aggregate: str
    post_transform: str
    base_values: list[float]
    classes: list | None
    thresholds_double: bool  # thresholds read as doubles (v3 *_as_tensor double, v5 double)
    feature: list[int] = field(default_factory=list)
    mode: list[int] = field(default_factory=list)
    value: list[float] = field(default_factory=list)
    members: dict[int, tuple[float, ...]] = field(default_factory=dict)
    true_ref: list[int] = field(default_factory=list)
    false_ref: list[int] = field(default_factory=list)
    missing_true: list[bool] = field(default_factory=list)
    weights: list[list[tuple[int, float]]] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)  # refs, one per tree, in summation order

    @property
    def n_trees(self) -> int:
        return len(self.roots)


def attributes(node: NodeProto) -> dict:
    """The node's attributes as Python values (tensors as numpy arrays, strings decoded)."""
    out = {}
    for a in node.attribute:
        if a.type == AttributeProto.TENSOR:
            try:
                out[a.name] = numpy_helper.to_array(a.t)
            except (TypeError, ValueError, KeyError) as err:
                raise OnnxModelError(f"node {node.name or node.op_type!r}: attribute {a.name!r} is not a "
                                     f"readable tensor ({err})") from None
        elif a.type == AttributeProto.INTS:
            out[a.name] = list(a.ints)
        elif a.type == AttributeProto.FLOATS:
            out[a.name] = list(a.floats)
        elif a.type == AttributeProto.STRINGS:
            out[a.name] = [s.decode("utf-8", "replace") for s in a.strings]
        elif a.type == AttributeProto.STRING:
            out[a.name] = a.s.decode("utf-8", "replace")
        elif a.type == AttributeProto.INT:
            out[a.name] = int(a.i)
        elif a.type == AttributeProto.FLOAT:
            out[a.name] = float(a.f)
        else:
            raise OnnxModelError(f"node {node.name or node.op_type!r}: attribute {a.name!r} has a type "
                                 f"rulekit does not read")
    return out


def decode(node: NodeProto, version: int) -> Ensemble:
    """The tables of ``node`` (an ai.onnx.ml tree-ensemble operator of ml opset ``version``)."""
    attrs = attributes(node)
    label = f"{node.op_type} {node.name!r}" if node.name else node.op_type
    try:
        if node.op_type == "TreeEnsemble":
            return _decode_v5(attrs, label)
        return _decode_legacy(node.op_type, attrs, label)
    except (TypeError, ValueError, OverflowError) as err:
        # an attribute of the wrong kind (a number where a list belongs, a string for a number)
        raise OnnxModelError(f"{label}: malformed attributes ({type(err).__name__}: {err})") from None


def _fail(label: str, msg: str):
    raise OnnxModelError(f"{label}: {msg}")


def _floats(attrs: dict, name: str, label: str) -> tuple[list[float], bool]:
    """A float list attribute or its ``_as_tensor`` twin: (values, read as double)."""
    tensor = attrs.get(name + "_as_tensor")
    if tensor is not None:
        arr = np.asarray(tensor).reshape(-1)
        if arr.dtype not in (np.float32, np.float64):
            _fail(label, f"{name}_as_tensor must be float or double, is {arr.dtype}")
        return arr.astype(np.float64).tolist(), arr.dtype == np.float64
    return [float(v) for v in attrs.get(name, [])], False


def _same_length(label: str, lists: dict[str, list]) -> int:
    sizes = {k: len(v) for k, v in lists.items()}
    n = max(sizes.values(), default=0)
    short = [k for k, s in sizes.items() if s != n]
    if short:
        _fail(label, f"attribute {short[0]} has {sizes[short[0]]} entries, "
                     f"{max(sizes, key=sizes.get)} has {n}")
    if n > MAX_NODES:
        _fail(label, f"{n} nodes: more than rulekit reads ({MAX_NODES:,}; each costs ~0.65 KB in memory)")
    return n


def _decode_legacy(op: str, attrs: dict, label: str) -> Ensemble:
    classifier = op == "TreeEnsembleClassifier"
    values, as_double = _floats(attrs, "nodes_values", label)
    base, _ = _floats(attrs, "base_values", label)
    cols = {k: attrs.get(k, []) for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids",
                                          "nodes_modes", "nodes_truenodeids", "nodes_falsenodeids")}
    cols["nodes_values"] = values
    n = _same_length(label, cols)
    missing = attrs.get("nodes_missing_value_tracks_true") or [0] * n
    if len(missing) != n:
        _fail(label, f"nodes_missing_value_tracks_true has {len(missing)} entries, expected {n}")
    prefix = "class" if classifier else "target"
    w, _ = _floats(attrs, prefix + "_weights", label)
    tcols = {f"{prefix}_treeids": attrs.get(prefix + "_treeids", []),
             f"{prefix}_nodeids": attrs.get(prefix + "_nodeids", []),
             f"{prefix}_ids": attrs.get(prefix + "_ids", []), f"{prefix}_weights": w}
    _same_length(label, tcols)
    if classifier:
        classes = attrs.get("classlabels_int64s") or attrs.get("classlabels_strings")
        if not classes:
            _fail(label, "has no classlabels_int64s or classlabels_strings")
        n_targets = len(classes)
    else:
        classes = None
        n_targets = attrs.get("n_targets", 1)
        if not 1 <= n_targets <= max(MAX_TARGETS, len(w)):
            _fail(label, f"n_targets {n_targets} must be 1..{max(MAX_TARGETS, len(w))} (one per target "
                         f"weight at most)")
    ens = Ensemble(op=op, name=label, n_targets=int(n_targets), aggregate=attrs.get("aggregate_function", "SUM"),
                   post_transform=attrs.get("post_transform", "NONE"), base_values=base,
                   classes=list(classes) if classes else None, thresholds_double=as_double)
    if ens.aggregate not in AGGREGATES:
        _fail(label, f"aggregate_function {ens.aggregate!r} is not one of {', '.join(AGGREGATES)}")
    if ens.post_transform not in POST:
        _fail(label, f"post_transform {ens.post_transform!r} is not one of {', '.join(POST)}")
    index: dict[tuple[int, int], int] = {}
    for i, key in enumerate(zip(cols["nodes_treeids"], cols["nodes_nodeids"])):
        if key in index:
            _fail(label, f"tree {key[0]} node {key[1]} is defined twice")
        index[key] = i
    modes = cols["nodes_modes"]
    ref = [0] * n  # ONNX node index -> split number or -1 - leaf number
    for i, m in enumerate(modes):
        if m == "LEAF":
            ref[i] = -1 - len(ens.weights)
            ens.weights.append([])
        else:
            if m not in MODES[:6]:
                _fail(label, f"tree {cols['nodes_treeids'][i]} node {cols['nodes_nodeids'][i]}: mode {m!r} "
                             f"is not a branch mode of {op}")
            ref[i] = len(ens.mode)
            ens.mode.append(MODES.index(m))
            ens.feature.append(int(cols["nodes_featureids"][i]))
            ens.value.append(values[i])
            ens.missing_true.append(bool(missing[i]))
    for i, m in enumerate(modes):
        if m == "LEAF":
            continue
        tree = cols["nodes_treeids"][i]
        for side, store in (("nodes_truenodeids", ens.true_ref), ("nodes_falsenodeids", ens.false_ref)):
            j = index.get((tree, cols[side][i]))
            if j is None:
                _fail(label, f"tree {tree} node {cols['nodes_nodeids'][i]}: {side} names node "
                             f"{cols[side][i]}, which tree {tree} does not have")
            store.append(ref[j])
    for t, nid, k, wt in zip(*tcols.values()):
        j = index.get((t, nid))
        if j is None or ref[j] >= 0:
            _fail(label, f"{prefix} weight for tree {t} node {nid}, which is not a leaf")
        if not 0 <= k < ens.n_targets:
            _fail(label, f"{prefix}_ids entry {k} outside 0..{ens.n_targets - 1}")
        ens.weights[-1 - ref[j]].append((int(k), float(wt)))
    # onnxruntime starts a tree wherever the tree id changes from the previous node's, at that node
    treeids = cols["nodes_treeids"]
    ens.roots = [ref[i] for i in range(n) if i == 0 or treeids[i] != treeids[i - 1]]
    return ens


def _decode_v5(attrs: dict, label: str) -> Ensemble:
    def tensor(name):
        v = attrs.get(name)
        return None if v is None else np.asarray(v).reshape(-1)

    splits = tensor("nodes_splits")
    leaf_w = tensor("leaf_weights")
    modes = tensor("nodes_modes")
    if splits is None or leaf_w is None or modes is None:
        _fail(label, "needs nodes_splits, nodes_modes and leaf_weights")
    for name, arr in (("nodes_splits", splits), ("leaf_weights", leaf_w)):
        if arr.dtype not in (np.float32, np.float64):
            _fail(label, f"{name} must be float or double, is {arr.dtype}")
    cols = {k: attrs.get(k, []) for k in ("nodes_featureids", "nodes_truenodeids", "nodes_trueleafs",
                                          "nodes_falsenodeids", "nodes_falseleafs")}
    cols["nodes_splits"], cols["nodes_modes"] = splits, modes
    n = _same_length(label, cols)
    missing = attrs.get("nodes_missing_value_tracks_true") or [0] * n
    if len(missing) != n:
        _fail(label, f"nodes_missing_value_tracks_true has {len(missing)} entries, expected {n}")
    targets = attrs.get("leaf_targetids", [])
    n_leaves = _same_length(label, {"leaf_targetids": targets, "leaf_weights": leaf_w})
    agg, post = attrs.get("aggregate_function", 1), attrs.get("post_transform", 0)
    if not 0 <= agg < len(AGGREGATES):
        _fail(label, f"aggregate_function {agg} is not 0..3")
    if not 0 <= post < len(POST):
        _fail(label, f"post_transform {post} is not 0..4")
    ens = Ensemble(op="TreeEnsemble", name=label, n_targets=int(attrs.get("n_targets", 1)),
                   aggregate=AGGREGATES[agg], post_transform=POST[post], base_values=[], classes=None,
                   thresholds_double=splits.dtype == np.float64)
    if not 1 <= ens.n_targets <= max(MAX_TARGETS, n_leaves):
        _fail(label, f"n_targets {ens.n_targets} must be 1..{max(MAX_TARGETS, n_leaves)} (one per leaf weight "
                     f"at most)")
    for j in range(n_leaves):
        k = int(targets[j])
        if not 0 <= k < ens.n_targets:
            _fail(label, f"leaf_targetids entry {k} outside 0..{ens.n_targets - 1}")
        ens.weights.append([(k, float(leaf_w[j]))])
    members = tensor("membership_values")
    member_pos = 0
    for i in range(n):
        m = int(modes[i])
        if not 0 <= m < len(MODES):
            _fail(label, f"node {i}: mode {m} is not 0..6")
        ens.mode.append(m)
        ens.feature.append(int(cols["nodes_featureids"][i]))
        ens.value.append(float(splits[i]))
        ens.missing_true.append(bool(missing[i]))
        if m == 6:
            if members is None:
                _fail(label, f"node {i} is BRANCH_MEMBER but there is no membership_values")
            start = member_pos
            while member_pos < members.size and not math.isnan(members[member_pos]):
                member_pos += 1
            if member_pos >= members.size:
                _fail(label, f"node {i}: membership_values ends before this node's set (sets end with NaN)")
            ens.members[i] = tuple(float(v) for v in members[start:member_pos])
            member_pos += 1
        for ids, leafs, store in (("nodes_truenodeids", "nodes_trueleafs", ens.true_ref),
                                  ("nodes_falsenodeids", "nodes_falseleafs", ens.false_ref)):
            k, is_leaf = int(cols[ids][i]), bool(cols[leafs][i])
            if not 0 <= k < (n_leaves if is_leaf else n):
                _fail(label, f"node {i}: {ids} {k} is out of range")
            store.append(-1 - k if is_leaf else k)
    for r in attrs.get("tree_roots", []):
        if not 0 <= r < n:
            _fail(label, f"tree_roots entry {r} is out of range 0..{n - 1}")
        ens.roots.append(int(r))
    if not ens.roots:
        _fail(label, "has no tree_roots")
    return ens
