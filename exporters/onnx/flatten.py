"""A Model's trees flattened into binary-split tables that both TreeEnsemble encodings are written from.

Every split becomes one binary node ``(feature, mode, split, true, false, missing_true)``:

* numeric ``x <= b`` with ``b`` the canonical float64 boundary (:mod:`rulekit.semantics`);
  ``missing_true`` says whether NaN follows the true branch (the node's ``missing`` branch);
* nominal multiway splits become a chain of set-membership nodes over the category *code*, one
  per child, the child that takes unseen codes last; a missing value is steered by the chain's
  missing flags (or by a guard ``code <= +inf``, which is false only for NaN);
* oblique splits test a derived 0/1 column (computed exactly outside the trees, see ``model.py``)
  with ``z <= 0.5``.

Leaves keep one weight per *target* the tree contributes to (``Forest.tree_targets``); an
unreachable branch that ONNX still needs points at a zero leaf. Nothing here recurses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from rulekit import semantics
from rulekit.errors import ExportError
from rulekit.ir import compiled as C
from rulekit.ir.model import Model

LEQ, MEMBER = 0, 6


@dataclass
class Linear:
    """An oblique split's derived column: ``z = missing_branch if sum is NaN else (sum <= b ? 0 : 1)``."""

    features: tuple[int, ...]
    weights: tuple[float, ...]
    bound: float
    missing_branch: int


@dataclass
class Forest:
    """Binary nodes and leaves of all trees, concatenated (node and leaf indices are global)."""

    n_features: int  # columns of X
    nominal: list[int]  # nominal features, in derived-column order (normalised codes)
    domain_sizes: list[int]
    linear: list[Linear]
    n_targets: int
    feature: list[np.ndarray] = field(default_factory=list)
    mode: list[np.ndarray] = field(default_factory=list)
    split: list[np.ndarray] = field(default_factory=list)
    true_id: list[np.ndarray] = field(default_factory=list)
    true_leaf: list[np.ndarray] = field(default_factory=list)
    false_id: list[np.ndarray] = field(default_factory=list)
    false_leaf: list[np.ndarray] = field(default_factory=list)
    missing_true: list[np.ndarray] = field(default_factory=list)
    members: dict[int, tuple[int, ...]] = field(default_factory=dict)  # global node -> codes
    leaf_weights: list[np.ndarray] = field(default_factory=list)  # per tree (n_leaves, n_tree_targets)
    tree_targets: list[tuple[int, ...]] = field(default_factory=list)
    tree_root: list[int] = field(default_factory=list)  # global node index of each tree's root
    node_start: list[int] = field(default_factory=list)
    leaf_start: list[int] = field(default_factory=list)
    n_nodes: int = 0
    n_leaves: int = 0

    @property
    def n_trees(self) -> int:
        return len(self.tree_root)

    @property
    def n_columns(self) -> int:
        """Columns the tree ensemble reads: X, then normalised nominal codes, then oblique tests."""
        return self.n_features + len(self.nominal) + len(self.linear)

    def arrays(self, name: str) -> np.ndarray:
        parts = getattr(self, name)
        return np.concatenate(parts) if parts else np.zeros(0)


def leaf_targets(model: Model, tree_index: int, values: np.ndarray) -> tuple[tuple[int, ...], np.ndarray]:
    """The targets tree ``tree_index`` adds to and its leaves' weights, shape (n_leaves, n_targets).

    Targets of the ensemble output: class k (k >= 3 classes), class 1 only for two classes (the
    exporter adds ``1 - p1``), the boosting output ``tree_output[t]``, or 0 for regression.
    """
    c = model.combiner
    if c.kind == "sum":
        outs = c.tree_output or (0,) * len(model.trees)
        return (outs[tree_index],), values[:, :1]
    if model.task == "regression":
        return (0,), values[:, :1]
    if c.kind == "vote":
        values = np.eye(model.n_classes)[np.argmax(values, axis=1)]
    if model.n_classes == 2:
        return (0,), values[:, 1:2]
    return tuple(range(model.n_classes)), values


def n_targets(model: Model) -> int:
    c = model.combiner
    if c.kind == "sum":
        return c.n_outputs
    if model.task == "regression" or model.n_classes == 2:
        return 1
    return model.n_classes


def flatten(model: Model) -> Forest:
    """The model's trees as one :class:`Forest` (raises ExportError on what ONNX cannot carry)."""
    sizes = [len(f.domain or ()) for f in model.features]
    nominal = [j for j, f in enumerate(model.features) if f.kind == "nominal"]
    forest = Forest(n_features=model.n_features, nominal=nominal, domain_sizes=sizes, linear=[],
                    n_targets=n_targets(model))
    nominal_column = {j: model.n_features + i for i, j in enumerate(nominal)}
    for t, tree in enumerate(model.trees):
        ct = read_tree(tree, sizes, model.leaf_value_size)
        _add_tree(forest, model, t, ct, nominal_column)
    return forest


_KIND = {"leaf": C.LEAF, "numeric": C.NUMERIC, "nominal": C.NOMINAL, "linear": C.LINEAR}


def read_tree(tree, domain_sizes: list[int], value_size: int) -> C.CompiledTree:
    """A tree graph as :class:`rulekit.ir.compiled.CompiledTree` arrays, root first, other nodes in
    graph order (no traversal needed), numeric boundaries computed in bulk with
    :func:`rulekit.semantics.boundary_array`. Same meaning as ``compile_tree``, faster for exports."""
    root = tree.graph["root"]
    order = [root] + [v for v in tree.nodes if v != root]
    index = {v: i for i, v in enumerate(order)}
    n = len(order)
    nodes = tree.nodes
    attrs = [nodes[v] for v in order]
    kind = np.fromiter((_KIND[a["kind"]] for a in attrs), np.int8, n)
    feature = np.fromiter((a.get("feature", -1) if a["kind"] != "linear" else -1 for a in attrs),
                          np.int64, n)
    left = np.zeros(n, np.int64)
    right = np.zeros(n, np.int64)
    missing = np.zeros(n, np.int64)
    kids: dict[int, list] = {}
    for u, v, d in tree.edges(data=True):
        i, b = index[u], d["branch"]
        if b == 0:
            left[i] = index[v]
        elif b == 1:
            right[i] = index[v]
        if attrs[i]["kind"] == "nominal":
            kids.setdefault(i, []).append((index[v], d.get("values")))
            if b == attrs[i]["missing"]:
                missing[i] = index[v]
    two_way = np.flatnonzero((kind == C.NUMERIC) | (kind == C.LINEAR))
    miss_branch = np.fromiter((attrs[i]["missing"] for i in two_way), np.int64, two_way.size)
    missing[two_way] = np.where(miss_branch == 0, left[two_way], right[two_way])
    bound = np.zeros(n)
    tested = two_way
    if tested.size:
        t = np.fromiter((attrs[i]["threshold"] for i in tested), np.float64, tested.size)
        keys = [(attrs[i]["op"], attrs[i]["precision"]) for i in tested]
        for key in set(keys):
            sel = np.fromiter((k == key for k in keys), bool, len(keys))
            bound[tested[sel]] = semantics.boundary_array(key[0], t[sel], key[1])
    leaves = np.flatnonzero(kind == C.LEAF)
    value = np.zeros((n, value_size))
    if leaves.size:
        value[leaves] = np.asarray([attrs[i]["value"] for i in leaves], dtype=np.float64)
    linear = {int(i): (np.asarray(attrs[i]["features"], np.int64), np.asarray(attrs[i]["weights"]))
              for i in np.flatnonzero(kind == C.LINEAR)}
    nominal = {}
    for i, children in kids.items():
        table = np.full(domain_sizes[int(feature[i])] + 1, -1, np.int64)
        for child, vals in children:  # same rule as compile_tree: listed codes, then "other"
            if vals is not None:
                table[list(vals)] = child
        for child, vals in children:
            if vals is None:
                table[table == -1] = child
        table[table == -1] = missing[i]
        nominal[i] = table
    return C.CompiledTree(kind, feature, bound, left, right, missing, value, nominal, linear,
                          np.asarray(order, dtype=np.int64))


def _add_tree(forest: Forest, model: Model, t: int, ct: C.CompiledTree, nominal_column: dict[int, int]) -> None:
    kind = ct.kind
    n = kind.size
    is_leaf = kind == C.LEAF
    split_nodes = np.flatnonzero(~is_leaf)
    leaf_nodes = np.flatnonzero(is_leaf)
    base_node, base_leaf = forest.n_nodes, forest.n_leaves
    # position of every compiled node: its split index (global) or its leaf index (global)
    pos = np.empty(n, np.int64)
    pos[split_nodes] = base_node + np.arange(split_nodes.size)
    pos[leaf_nodes] = base_leaf + np.arange(leaf_nodes.size)
    n_split, n_leaf = split_nodes.size, leaf_nodes.size

    extra_nodes: list[tuple] = []  # (feature, mode, split, true_ref, false_ref, missing_true, members)
    zero_leaf: list[int] = []  # lazily created zero-weight leaf (index relative to the tree's leaves)

    def zero() -> tuple[int, bool]:
        if not zero_leaf:
            zero_leaf.append(n_leaf)
        return base_leaf + zero_leaf[0], True

    def ref(i: int) -> tuple[int, bool]:
        return int(pos[i]), bool(is_leaf[i])

    def new_node() -> int:
        return base_node + n_split + len(extra_nodes)

    if n_split == 0:  # a single leaf: one always-true node in front of it
        extra_nodes.append((0, LEQ, math.inf, ref(0), zero(), 1, None))
        root = base_node
    else:
        root = int(pos[0])

    feature = np.zeros(n_split, np.int64)
    mode = np.zeros(n_split, np.uint8)
    split = np.zeros(n_split)
    true_id = np.zeros(n_split, np.int64)
    true_leaf = np.zeros(n_split, bool)
    false_id = np.zeros(n_split, np.int64)
    false_leaf = np.zeros(n_split, bool)
    missing_true = np.zeros(n_split, np.uint8)
    members: dict[int, tuple[int, ...]] = {}

    numeric = kind[split_nodes] == C.NUMERIC
    lin = kind[split_nodes] == C.LINEAR
    two_way = numeric | lin
    s2 = split_nodes[two_way]
    feature[two_way] = ct.feature[s2]
    split[two_way] = ct.bound[s2]
    true_id[two_way] = pos[ct.left[s2]]
    true_leaf[two_way] = is_leaf[ct.left[s2]]
    false_id[two_way] = pos[ct.right[s2]]
    false_leaf[two_way] = is_leaf[ct.right[s2]]
    missing_true[two_way] = ct.missing[s2] == ct.left[s2]

    for k in np.flatnonzero(lin):
        i = int(split_nodes[k])
        feats, weights = ct.linear[i]
        forest.linear.append(Linear(tuple(int(f) for f in feats), tuple(float(w) for w in weights),
                                    float(ct.bound[i]), 0 if ct.missing[i] == ct.left[i] else 1))
        feature[k] = model.n_features + len(nominal_column) + len(forest.linear) - 1
        split[k] = 0.5
        missing_true[k] = 0  # the derived column is never NaN: its value already says where to go

    for k in np.flatnonzero(kind[split_nodes] == C.NOMINAL):
        i = int(split_nodes[k])
        col = nominal_column[int(ct.feature[i])]
        chain = _nominal_chain(ct.nominal[i], int(ct.missing[i]))
        # chain: list of (mode, split, members, true_child, missing_true); false goes to the next
        # entry, the last entry's false goes to `fallthrough` (the child taking unseen codes)
        entries, fallthrough = chain
        heads = [int(pos[split_nodes[k]])] + [new_node() + m for m in range(len(entries) - 1)]
        for e, (m, s, mem, child, mt) in enumerate(entries):
            tref = ref(child) if child >= 0 else zero()
            if e + 1 < len(entries):
                fref = (heads[e + 1], False)
            else:
                fref = ref(fallthrough) if fallthrough >= 0 else zero()
            if e == 0:
                feature[k], mode[k], split[k] = col, m, s
                true_id[k], true_leaf[k] = tref
                false_id[k], false_leaf[k] = fref
                missing_true[k] = mt
                if mem is not None:
                    members[heads[0]] = mem
            else:
                extra_nodes.append((col, m, s, tref, fref, mt, mem))

    if extra_nodes:
        feature = np.concatenate([feature, [e[0] for e in extra_nodes]]).astype(np.int64)
        mode = np.concatenate([mode, [e[1] for e in extra_nodes]]).astype(np.uint8)
        split = np.concatenate([split, [e[2] for e in extra_nodes]])
        true_id = np.concatenate([true_id, [e[3][0] for e in extra_nodes]]).astype(np.int64)
        true_leaf = np.concatenate([true_leaf, [e[3][1] for e in extra_nodes]]).astype(bool)
        false_id = np.concatenate([false_id, [e[4][0] for e in extra_nodes]]).astype(np.int64)
        false_leaf = np.concatenate([false_leaf, [e[4][1] for e in extra_nodes]]).astype(bool)
        missing_true = np.concatenate([missing_true, [e[5] for e in extra_nodes]]).astype(np.uint8)
        for m, e in enumerate(extra_nodes):
            if e[6] is not None:
                members[base_node + n_split + m] = e[6]

    targets, weights = leaf_targets(model, t, ct.value[leaf_nodes])
    if zero_leaf:
        weights = np.vstack([weights, np.zeros((1, weights.shape[1]))])
    forest.feature.append(feature)
    forest.mode.append(mode)
    forest.split.append(split)
    forest.true_id.append(true_id)
    forest.true_leaf.append(true_leaf)
    forest.false_id.append(false_id)
    forest.false_leaf.append(false_leaf)
    forest.missing_true.append(missing_true)
    forest.members.update(members)
    forest.leaf_weights.append(np.ascontiguousarray(weights, dtype=np.float64))
    forest.tree_targets.append(targets)
    forest.tree_root.append(root)
    forest.node_start.append(base_node)
    forest.leaf_start.append(base_leaf)
    forest.n_nodes += feature.size
    forest.n_leaves += weights.shape[0]


def _nominal_chain(table: np.ndarray, missing: int):
    """Binary chain for a nominal split: ``(entries, fallthrough child)``.

    ``table`` maps code -> compiled child (last slot: unseen codes). Each entry is
    ``(mode, split, members, true_child, missing_true)``; an entry's false branch is the next entry,
    the last one's is ``fallthrough``; child -1 means unreachable (a zero leaf). A NaN is never a
    member, so it walks the chain on false branches unless a flag catches it: the missing child's
    own set (tested first, flag 1), or a final guard ``code <= +inf`` (false only for NaN).
    """
    size = table.size - 1
    unseen = int(table[size])
    groups: dict[int, list[int]] = {}
    for code in range(size):
        child = int(table[code])
        if child != unseen:
            groups.setdefault(child, []).append(code)
    order = sorted(groups, key=lambda c: (c != missing, groups[c][0]))
    entries = [(MEMBER, 0.0, tuple(groups[c]), c, int(c == missing)) for c in order]
    if missing == unseen or missing in groups:
        if entries:
            return entries, unseen
        return [(LEQ, math.inf, None, unseen, 1)], -1
    entries.append((LEQ, math.inf, None, unseen, 0))
    return entries, missing
