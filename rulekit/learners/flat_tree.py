"""A learned tree as flat numpy arrays (children of a node are contiguous ids), and its conversions.

The builders write this form because it is cheap to grow, prune and evaluate; :func:`to_graph` turns it
into the networkx IR (``rulekit.ir.tree``, the attribute schema ``TreeBuilder`` writes), and :func:`to_compiled` into the
evaluator's arrays directly, routing exactly as the compiled graph would (a test checks both agree).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from rulekit.ir import compiled as _compiled
from rulekit.ir.tree import graph_from_parts

LEAF, NUMERIC, NOMINAL, LINEAR = 0, 1, 2, 3  # same codes as rulekit.ir.compiled


@dataclass
class FlatTree:
    kind: np.ndarray  # int8 per node
    feature: np.ndarray  # int64 (-1 for leaves and linear splits)
    threshold: np.ndarray  # float64: branch 0 iff x <= threshold (numeric, linear)
    missing: np.ndarray  # int64: branch a missing value takes
    child_start: np.ndarray  # int64: id of branch 0's child (children are contiguous)
    n_children: np.ndarray  # int64
    value: np.ndarray  # (n, V): class probabilities or (mean,)
    weight: np.ndarray  # training weight reaching the node
    n_samples: np.ndarray  # training rows (entries) reaching the node
    impurity: np.ndarray  # per-weight impurity under the tree's criterion
    stats: np.ndarray  # classification: class weights (n, K); regression: (W, mean, SSE)
    gain: np.ndarray  # weighted impurity decrease of the node's split (0 for leaves)
    edge_values: dict[int, list[tuple[int, ...] | None]] = field(default_factory=dict)
    linear: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def n_nodes(self) -> int:
        return int(self.kind.shape[0])

    def parents(self) -> np.ndarray:
        par = np.full(self.n_nodes, -1, np.int64)
        inner = np.flatnonzero(self.kind != LEAF)
        for i in inner:  # contiguous blocks: one slice assignment per split node
            s = self.child_start[i]
            par[s:s + self.n_children[i]] = i
        return par

    def depth(self) -> int:
        par = self.parents()
        d = np.zeros(self.n_nodes, np.int64)
        for i in range(1, self.n_nodes):  # parents have smaller ids (breadth-first numbering)
            d[i] = d[par[i]] + 1
        return int(d.max()) if self.n_nodes else 0

    def n_leaves(self) -> int:
        return int((self.kind == LEAF).sum())


def make_leaves(tree: FlatTree, nodes: np.ndarray | list[int]) -> FlatTree:
    """A copy of ``tree`` with ``nodes`` turned into leaves (their subtrees dropped), renumbered
    breadth-first so that every kept node's children stay contiguous."""
    kind = tree.kind.copy()
    kind[np.asarray(nodes, dtype=np.int64)] = LEAF
    keep: list[int] = [0]
    new_start = {}
    i = 0
    while i < len(keep):  # breadth-first over the kept nodes (an explicit queue)
        node = keep[i]
        i += 1
        if kind[node] != LEAF:
            new_start[node] = len(keep)
            s = int(tree.child_start[node])
            keep.extend(range(s, s + int(tree.n_children[node])))
    idx = np.asarray(keep, dtype=np.int64)
    child_start = np.zeros(len(keep), np.int64)
    n_children = np.zeros(len(keep), np.int64)
    for new, old in enumerate(keep):
        if kind[old] != LEAF:
            child_start[new] = new_start[old]
            n_children[new] = tree.n_children[old]
    remap = {int(old): new for new, old in enumerate(keep)}
    leaf_new = kind[idx] == LEAF
    return FlatTree(kind=kind[idx], feature=np.where(leaf_new, -1, tree.feature[idx]),
                    threshold=np.where(leaf_new, 0.0, tree.threshold[idx]),
                    missing=np.where(leaf_new, 0, tree.missing[idx]), child_start=child_start,
                    n_children=n_children, value=tree.value[idx], weight=tree.weight[idx],
                    n_samples=tree.n_samples[idx], impurity=tree.impurity[idx], stats=tree.stats[idx],
                    gain=np.where(leaf_new, 0.0, tree.gain[idx]),
                    edge_values={remap[k]: v for k, v in tree.edge_values.items()
                                 if k in remap and kind[k] != LEAF},
                    linear={remap[k]: v for k, v in tree.linear.items() if k in remap and kind[k] != LEAF})


def route_unseen(tree: FlatTree) -> FlatTree:
    """``tree`` with each multiway split's "other" branch (values outside the domain; an empty leaf
    with the parent's distribution) folded into a named branch: the one missing values take, or,
    when that is the "other" branch itself, the heaviest named one. Training rows route exactly as
    before (none of them has an unseen value); only unseen values change, to a branch a rules file
    can declare once (``unseen wind counts as weak``). Splits whose "other" branch is not a trailing
    leaf are left as they are."""
    n_children = tree.n_children.copy()
    edge_values = dict(tree.edge_values)
    for node, vals in tree.edge_values.items():
        if len(vals) < 2 or vals[-1] is not None or any(v is None for v in vals[:-1]):
            continue
        s, o = int(tree.child_start[node]), len(vals) - 1
        if tree.kind[s + o] != LEAF:
            continue
        m = int(tree.missing[node])
        if m == o:
            m = max(range(o), key=lambda j: (tree.weight[s + j], -j))
        edge_values[node] = [None if j == m else v for j, v in enumerate(vals[:o])]
        n_children[node] = o
    if edge_values == tree.edge_values:
        return tree
    trimmed = FlatTree(**{**tree.__dict__, "n_children": n_children, "edge_values": edge_values})
    return make_leaves(trimmed, np.zeros(0, np.int64))


def to_compiled(tree: FlatTree, domain_sizes: list[int]) -> _compiled.CompiledTree:
    """The evaluator's arrays for ``tree`` (ids unchanged; root is 0)."""
    n = tree.n_nodes
    left = tree.child_start.copy()
    right = tree.child_start + 1
    missing = tree.child_start + tree.missing
    leaf = tree.kind == LEAF
    left[leaf] = 0
    right[leaf] = 0
    missing[leaf] = 0
    nominal: dict[int, np.ndarray] = {}
    for node, vals in tree.edge_values.items():
        size = domain_sizes[int(tree.feature[node])]
        table = np.full(size + 1, -1, np.int64)
        s = int(tree.child_start[node])
        for j, v in enumerate(vals):
            if v is None:
                table[table == -1] = s + j
            else:
                table[list(v)] = s + j
        table[table == -1] = missing[node]
        nominal[int(node)] = table
    linear = {int(k): (np.asarray(f, np.int64), np.asarray(w, np.float64)) for k, (f, w) in tree.linear.items()}
    return _compiled.CompiledTree(kind=tree.kind.astype(np.int8), feature=tree.feature.astype(np.int64),
                                  bound=tree.threshold.astype(np.float64), left=left, right=right,
                                  missing=missing, value=tree.value, nominal=nominal, linear=linear,
                                  node_ids=np.arange(n, dtype=np.int64))


def to_graph(tree: FlatTree, *, classification: bool) -> nx.DiGraph:
    """The tree as a rulekit IR graph (node ids = flat ids), with the attributes ``TreeBuilder``
    gives, assembled by :func:`rulekit.ir.tree.graph_from_parts` (fast for big forests)."""
    kind = tree.kind.tolist()
    feature = tree.feature.tolist()
    threshold = tree.threshold.tolist()
    missing = tree.missing.tolist()
    value = [tuple(v) for v in tree.value.tolist()]
    stats = [tuple(v) for v in tree.stats.tolist()] if classification else None
    weight = tree.weight.tolist()
    impurity = tree.impurity.tolist()
    nodes: list[dict] = []
    for i, k in enumerate(kind):
        if k == LEAF:
            d = {"kind": "leaf", "value": value[i], "n_samples": weight[i], "impurity": impurity[i]}
            if classification:
                d["counts"] = stats[i]
        elif k == NUMERIC:
            d = {"kind": "numeric", "feature": feature[i], "threshold": threshold[i], "op": "<=",
                 "precision": "float64", "missing": missing[i], "n_samples": weight[i],
                 "impurity": impurity[i], "value": value[i]}
        elif k == NOMINAL:
            d = {"kind": "nominal", "feature": feature[i], "missing": missing[i], "n_samples": weight[i],
                 "impurity": impurity[i], "value": value[i]}
        else:
            feats, weights = tree.linear[i]
            d = {"kind": "linear", "features": tuple(int(f) for f in feats),
                 "weights": tuple(float(w) for w in weights), "threshold": threshold[i], "op": "<=",
                 "precision": "float64", "missing": missing[i], "n_samples": weight[i],
                 "impurity": impurity[i], "value": value[i]}
        nodes.append(d)
    child_start = tree.child_start.tolist()
    n_children = tree.n_children.tolist()
    edges = []
    for i, k in enumerate(kind):
        if k == LEAF:
            continue
        s = child_start[i]
        vals = tree.edge_values.get(i) if k == NOMINAL else None
        for j in range(n_children[i]):
            attrs: dict = {"branch": j}
            if k == NOMINAL:
                attrs["values"] = vals[j]
            edges.append((i, s + j, attrs))
    return graph_from_parts(nodes, edges, root=0)


def apply(tree: FlatTree, M: np.ndarray, domain_sizes: list[int]) -> np.ndarray:
    """Id of the leaf each row of the code matrix ``M`` reaches."""
    ct = to_compiled(tree, domain_sizes)
    return _compiled.apply(ct, M)


def node_totals(tree: FlatTree, leaf_of_row: np.ndarray, channels: np.ndarray) -> np.ndarray:
    """Sum of ``channels`` (rows x C) over the rows passing through each node (leaf sums pushed up)."""
    out = np.zeros((tree.n_nodes, channels.shape[1]))
    np.add.at(out, leaf_of_row, channels)
    par = tree.parents()
    for i in range(tree.n_nodes - 1, 0, -1):  # children have larger ids than their parents
        out[par[i]] += out[i]
    return out
