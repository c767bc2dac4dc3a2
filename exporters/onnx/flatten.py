"""A Model's trees flattened into binary-split tables that both TreeEnsemble encodings are written from.

Every split becomes one binary node ``(feature, mode, split, true, false, missing_true)``:

* numeric ``x <= b`` with ``b`` the canonical float64 boundary (:mod:`rulekit.semantics`);
  ``missing_true`` says whether NaN follows the true branch (the node's ``missing`` branch);
* nominal multiway splits become a chain of set-membership nodes over the category *code*, one
  per child, the child that takes unseen codes last; a missing value is steered by the chain's
  missing flags (or by a guard ``code <= +inf``, which is false only for NaN); a child that no
  code, unseen code or NaN reaches is dropped with its subtree (ONNX refuses unreached nodes);
* oblique splits test a derived 0/1 column (computed exactly outside the trees, see ``model.py``)
  with ``z <= 0.5``.

Leaves hold ``W`` weights, one per target their tree adds to (``Forest.tree_targets[t]``); an
unreachable branch that ONNX still needs points at a zero leaf. Each tree's nodes and leaves are
contiguous. Plain trees are read in batches so the numpy work is done once per batch, not per tree.
Nothing here recurses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from rulekit import semantics
from rulekit.ir import compiled as C
from rulekit.ir.model import Model
from rulekit.semantics import routing

LEQ, MEMBER = 0, 6
BATCH_NODES = 200_000  # plain trees are read this many nodes at a time (bounded memory)


@dataclass
class Linear:
    """An oblique split's derived column: ``z = missing_branch if sum is NaN else (sum <= b ? 0 : 1)``."""

    features: tuple[int, ...]
    weights: tuple[float, ...]
    bound: float
    missing_branch: int


_NODE_FIELDS = ("feature", "mode", "split", "true_id", "true_leaf", "false_id", "false_leaf", "missing_true")


@dataclass
class Forest:
    """Binary nodes and leaves of all trees, concatenated (node and leaf indices are global)."""

    n_features: int  # columns of X
    nominal: list[int]  # nominal features, in derived-column order (normalised codes)
    domain_sizes: list[int]
    linear: list[Linear]
    n_targets: int
    width: int  # weights per leaf (W)
    parts: dict[str, list[np.ndarray]] = field(default_factory=lambda: {k: [] for k in _NODE_FIELDS})
    members: dict[int, tuple[int, ...]] = field(default_factory=dict)  # global node -> codes
    weight_parts: list[np.ndarray] = field(default_factory=list)  # (n_leaves, W) blocks
    tree_targets: list[tuple[int, ...]] = field(default_factory=list)  # W targets per tree
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
        parts = self.parts[name]
        return np.concatenate(parts) if parts else np.zeros(0)

    def leaf_weights(self) -> np.ndarray:
        return np.concatenate(self.weight_parts) if self.weight_parts else np.zeros((0, self.width))

    def leaf_tree(self) -> np.ndarray:
        """Tree index of every leaf."""
        counts = np.diff(np.asarray(self.leaf_start + [self.n_leaves], np.int64))
        return np.repeat(np.arange(self.n_trees), counts)

    def tree_ranges(self):
        """(node start, node end, leaf start, leaf end) of every tree."""
        ns = self.node_start + [self.n_nodes]
        ls = self.leaf_start + [self.n_leaves]
        for t in range(self.n_trees):
            yield ns[t], ns[t + 1], ls[t], ls[t + 1]


def tree_targets(model: Model, full: bool = False) -> list[tuple[int, ...]]:
    """The targets each tree adds to: class k (3+ classes), class 1 only for two classes (the
    exporter adds ``1 - p1``), the boosting output ``tree_output[t]``, or 0 for regression."""
    c = model.combiner
    if c.kind == "sum":
        outs = c.tree_output or (0,) * len(model.trees)
        return [(int(o),) for o in outs]
    if model.task == "regression" or model.n_classes == 2 and not full:
        return [(0,)] * len(model.trees)
    return [tuple(range(model.n_classes))] * len(model.trees)


def leaf_weights(model: Model, values: np.ndarray, full: bool = False) -> np.ndarray:
    """Leaf values as the weights the ensemble sums: (n_leaves, W)."""
    c = model.combiner
    if c.kind == "sum" or model.task == "regression":
        return values[:, :1]
    if c.kind == "vote":  # each tree votes for its leaf's first most probable class
        values = np.eye(model.n_classes)[np.argmax(values, axis=1)]
    if model.n_classes == 2 and not full:
        return values[:, 1:2]
    return values


def n_targets(model: Model, full: bool = False) -> int:
    c = model.combiner
    if c.kind == "sum":
        return c.n_outputs
    if model.task == "regression" or model.n_classes == 2 and not full:
        return 1
    return model.n_classes


def base_score_trees(model: Model) -> list:
    """Boosting base scores as one-leaf trees placed first, so the operator's sum starts from them
    (the evaluator's order: ``raw = base_score``, then each tree added) with no extra Add node."""
    from rulekit.ir.tree import TreeBuilder  # noqa: PLC0415

    if model.combiner.kind != "sum":
        return []
    out = []
    for k, base in enumerate(model.combiner.base_score):
        if base == 0.0:
            continue
        b = TreeBuilder()
        b.leaf((float(base),))
        out.append((b.graph, (k,)))
    return out


def flatten(model: Model, full: bool = False) -> Forest:
    """The model's trees (after any base-score trees) as one :class:`Forest`; ``full``: a two-class
    classifier keeps both classes' values (else class 1 only)."""
    sizes = [len(f.domain or ()) for f in model.features]
    nominal = [j for j, f in enumerate(model.features) if f.kind == "nominal"]
    pairs = base_score_trees(model) + list(zip(model.trees, tree_targets(model, full)))
    forest = Forest(n_features=model.n_features, nominal=nominal, domain_sizes=sizes, linear=[],
                    n_targets=n_targets(model, full), width=len(pairs[0][1]))
    nominal_column = {j: model.n_features + i for i, j in enumerate(nominal)}
    batch: list = []
    batch_nodes = 0
    for tree, targets in pairs:
        n = tree.number_of_nodes()
        plain = n > 1 and not any(k == "nominal" for _, k in tree.nodes(data="kind"))
        if plain and batch_nodes + n <= BATCH_NODES:
            batch.append((tree, targets))
            batch_nodes += n
            continue
        if batch:
            _add_block(forest, model, batch, sizes, nominal_column, full)
        batch, batch_nodes = ([(tree, targets)], n) if plain else ([], 0)
        if not plain:
            _add_block(forest, model, [(reachable_part(tree, sizes), targets)], sizes, nominal_column, full)
    if batch:
        _add_block(forest, model, batch, sizes, nominal_column, full)
    return forest


def reachable_part(tree, domain_sizes: list[int]):
    """``tree`` without the subtrees that no row reaches, or ``tree`` itself when every node is reached.

    Only a nominal split has such a branch: an edge whose codes all go to later edges (or that lists
    none), which is neither the "other" edge nor the missing branch (:mod:`rulekit.semantics.routing`).
    ONNX refuses a node or leaf that no branch names, while dropping the edge leaves every code, unseen
    code and NaN routed as before (the dropped edge decided none of them). Nodes and edges keep their
    order; a nominal split's branch numbers may then have gaps."""
    succ = tree.succ
    root = tree.graph["root"]
    seen = {root}
    stack = [root]
    dropped = False
    while stack:
        node = stack.pop()
        out = succ[node]
        if not out:
            continue
        attrs = tree.nodes[node]
        if attrs["kind"] == "nominal":
            table = routing.nominal_table(out.values(), routing.missing_branch(attrs),
                                          domain_sizes[attrs["feature"]])
            used = set(table)
            used.add(routing.missing_branch(attrs))
            kids = [v for v, d in out.items() if d["branch"] in used]
            dropped = dropped or len(kids) < len(out)
        else:
            kids = list(out)
        seen.update(kids)
        stack.extend(kids)
    if not dropped:
        return tree
    part = nx.DiGraph()
    part.graph.update(tree.graph)
    part.add_nodes_from((v, d) for v, d in tree.nodes(data=True) if v in seen)
    part.add_edges_from((u, v, d) for u, v, d in tree.edges(data=True) if v in seen)
    return part


_KIND = {"leaf": C.LEAF, "numeric": C.NUMERIC, "nominal": C.NOMINAL, "linear": C.LINEAR}


def read_trees(trees, domain_sizes: list[int], value_size: int) -> tuple[C.CompiledTree, np.ndarray]:
    """Trees as one :class:`rulekit.ir.compiled.CompiledTree` (indices global to the batch) and the
    index of each tree's root. Each tree's nodes are contiguous, root first, the rest in graph order;
    numeric boundaries come in bulk from :func:`rulekit.semantics.boundary_array`. Same meaning as
    ``compile_tree``."""
    attrs: list[dict] = []
    first = np.zeros(len(trees), np.int64)
    left_edges: list[tuple[int, int]] = []
    right_edges: list[tuple[int, int]] = []
    kids: dict[int, list] = {}
    miss_of: dict[int, int] = {}
    for t, tree in enumerate(trees):
        base = len(attrs)
        first[t] = base
        root = tree.graph["root"]
        nodes = tree.nodes
        order = [root] + [v for v in nodes if v != root]
        local = {v: base + i for i, v in enumerate(order)}
        attrs.extend(nodes[v] for v in order)
        for u, v, d in tree.edges(data=True):
            i, j, b = local[u], local[v], d["branch"]
            if b == 0:
                left_edges.append((i, j))
            elif b == 1:
                right_edges.append((i, j))
            if attrs[i]["kind"] == "nominal":
                kids.setdefault(i, []).append((j, d))
                if routing.takes_missing(attrs[i], b):
                    miss_of[i] = j
    n = len(attrs)
    kind = np.fromiter((_KIND[a["kind"]] for a in attrs), np.int8, n)
    feature = np.fromiter((a.get("feature", -1) if a["kind"] != "linear" else -1 for a in attrs),
                          np.int64, n)
    left = np.zeros(n, np.int64)
    right = np.zeros(n, np.int64)
    if left_edges:
        e = np.asarray(left_edges, np.int64)
        left[e[:, 0]] = e[:, 1]
    if right_edges:
        e = np.asarray(right_edges, np.int64)
        right[e[:, 0]] = e[:, 1]
    missing = np.zeros(n, np.int64)
    two_way = np.flatnonzero((kind == C.NUMERIC) | (kind == C.LINEAR))
    miss_branch = np.fromiter((routing.missing_branch(attrs[i]) for i in two_way), np.int64, two_way.size)
    missing[two_way] = np.where(miss_branch == 0, left[two_way], right[two_way])
    for i, j in miss_of.items():
        missing[i] = j
    bound = np.zeros(n)
    if two_way.size:
        thr = np.fromiter((attrs[i]["threshold"] for i in two_way), np.float64, two_way.size)
        keys = [(attrs[i]["op"], attrs[i]["precision"]) for i in two_way]
        for key in set(keys):
            sel = np.fromiter((k == key for k in keys), bool, len(keys))
            bound[two_way[sel]] = semantics.boundary_array(key[0], thr[sel], key[1])
    leaves = np.flatnonzero(kind == C.LEAF)
    value = np.zeros((n, value_size))
    if leaves.size:
        value[leaves] = np.asarray([attrs[i]["value"] for i in leaves], dtype=np.float64)
    linear = {int(i): (np.asarray(attrs[i]["features"], np.int64), np.asarray(attrs[i]["weights"]))
              for i in np.flatnonzero(kind == C.LINEAR)}
    nominal = {}
    for i, children in kids.items():  # child per code, then unseen (rulekit.semantics.routing)
        branches = routing.nominal_table([d for _, d in children], routing.missing_branch(attrs[i]),
                                         domain_sizes[int(feature[i])])
        child_of = np.zeros(max(d["branch"] for _, d in children) + 1, np.int64)  # gaps: see reachable_part
        for j, d in children:
            child_of[d["branch"]] = j
        nominal[i] = child_of[np.asarray(branches, np.int64)]
    ct = C.CompiledTree(kind, feature, bound, left, right, missing, value, nominal, linear,
                        np.arange(n, dtype=np.int64))
    return ct, first


def _add_block(forest: Forest, model: Model, pairs: list, sizes: list[int], nominal_column,
               full: bool = False) -> None:
    """Append (tree, targets) pairs (a batch of plain trees, or any single tree) to ``forest``."""
    trees = [tree for tree, _ in pairs]
    ct, first = read_trees(trees, sizes, model.leaf_value_size)
    kind = ct.kind
    n = kind.size
    is_leaf = kind == C.LEAF
    split_nodes = np.flatnonzero(~is_leaf)
    leaf_nodes = np.flatnonzero(is_leaf)
    base_node, base_leaf = forest.n_nodes, forest.n_leaves
    pos = np.empty(n, np.int64)
    pos[split_nodes] = base_node + np.arange(split_nodes.size)
    pos[leaf_nodes] = base_leaf + np.arange(leaf_nodes.size)
    n_split, n_leaf = split_nodes.size, leaf_nodes.size

    extra: list[tuple] = []  # (feature, mode, split, true_ref, false_ref, missing_true, members)
    zero_leaf: list[int] = []

    def zero() -> tuple[int, bool]:  # an unreachable branch: a leaf that adds nothing
        if not zero_leaf:
            zero_leaf.append(base_leaf + n_leaf)
        return zero_leaf[0], True

    def ref(i: int) -> tuple[int, bool]:
        return int(pos[i]), bool(is_leaf[i])

    if n_split == 0:  # a one-leaf tree: an always-true node in front of its leaf
        extra.append((0, LEQ, math.inf, ref(0), zero(), 1, None))
        roots = [base_node]
    else:
        roots = pos[first].tolist()

    cols = {
        "feature": ct.feature[split_nodes].copy(),
        "mode": np.zeros(n_split, np.uint8),
        "split": ct.bound[split_nodes].copy(),
        "true_id": pos[ct.left[split_nodes]],
        "true_leaf": is_leaf[ct.left[split_nodes]],
        "false_id": pos[ct.right[split_nodes]],
        "false_leaf": is_leaf[ct.right[split_nodes]],
        "missing_true": (ct.missing[split_nodes] == ct.left[split_nodes]).astype(np.uint8),
    }
    members: dict[int, tuple[int, ...]] = {}
    split_kind = kind[split_nodes]
    for k in np.flatnonzero(split_kind == C.LINEAR):
        i = int(split_nodes[k])
        feats, weights = ct.linear[i]
        forest.linear.append(Linear(tuple(int(f) for f in feats), tuple(float(w) for w in weights),
                                    float(ct.bound[i]), 0 if ct.missing[i] == ct.left[i] else 1))
        cols["feature"][k] = forest.n_features + len(nominal_column) + len(forest.linear) - 1
        cols["split"][k] = 0.5
        cols["missing_true"][k] = 0  # the derived column is never NaN: it already says where to go

    for k in np.flatnonzero(split_kind == C.NOMINAL):
        i = int(split_nodes[k])
        col = nominal_column[int(ct.feature[i])]
        entries, fallthrough = _nominal_chain(ct.nominal[i], int(ct.missing[i]))
        heads = [int(pos[i])] + [base_node + n_split + len(extra) + m for m in range(len(entries) - 1)]
        for e, (mode, split, mem, child, mt) in enumerate(entries):
            tref = ref(child) if child >= 0 else zero()
            if e + 1 < len(entries):
                fref = (heads[e + 1], False)
            else:
                fref = ref(fallthrough) if fallthrough >= 0 else zero()
            if mem is not None:
                members[heads[e]] = mem
            if e == 0:
                cols["feature"][k], cols["mode"][k], cols["split"][k] = col, mode, split
                cols["true_id"][k], cols["true_leaf"][k] = tref
                cols["false_id"][k], cols["false_leaf"][k] = fref
                cols["missing_true"][k] = mt
            else:
                extra.append((col, mode, split, tref, fref, mt, mem))

    if extra:
        ext = {
            "feature": [e[0] for e in extra], "mode": [e[1] for e in extra], "split": [e[2] for e in extra],
            "true_id": [e[3][0] for e in extra], "true_leaf": [e[3][1] for e in extra],
            "false_id": [e[4][0] for e in extra], "false_leaf": [e[4][1] for e in extra],
            "missing_true": [e[5] for e in extra],
        }
        for key, vals in ext.items():
            cols[key] = np.concatenate([cols[key], np.asarray(vals, dtype=cols[key].dtype)])

    weights = leaf_weights(model, ct.value[leaf_nodes], full)
    if zero_leaf:
        weights = np.vstack([weights, np.zeros((1, weights.shape[1]))])
    for key in _NODE_FIELDS:
        forest.parts[key].append(cols[key])
    forest.members.update(members)
    forest.weight_parts.append(np.ascontiguousarray(weights, dtype=np.float64))
    # per-tree bookkeeping: each tree's splits and leaves are contiguous (root first)
    bounds = np.append(first, n)
    splits_before = np.concatenate([[0], np.cumsum((~is_leaf).astype(np.int64))])
    leaves_before = np.concatenate([[0], np.cumsum(is_leaf.astype(np.int64))])
    for b in range(len(trees)):
        forest.node_start.append(base_node + int(splits_before[bounds[b]]))
        forest.leaf_start.append(base_leaf + int(leaves_before[bounds[b]]))
        forest.tree_targets.append(pairs[b][1])
    forest.tree_root.extend(int(r) for r in roots)
    forest.n_nodes += cols["feature"].size
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
