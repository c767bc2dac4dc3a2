"""A tree graph flattened into numpy arrays, and the vectorized evaluator that walks it.

Rows advance one level per step for all rows at once (no Python loop per row, no recursion).
Numeric tests use the canonical float64 boundary from :mod:`rulekit.semantics`, so the answer
equals the source model's float32/float64, ``<``/``<=`` comparison on every value. Where a missing
value, a NaN oblique sum, a nominal code and an unseen code go is :mod:`rulekit.semantics.routing`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from rulekit import semantics
from rulekit.ir.tree import iter_preorder
from rulekit.semantics import routing

LEAF, NUMERIC, NOMINAL, LINEAR = 0, 1, 2, 3
_KIND_CODE = {"leaf": LEAF, "numeric": NUMERIC, "nominal": NOMINAL, "linear": LINEAR}


@dataclass
class CompiledTree:
    kind: np.ndarray  # int8 per node
    feature: np.ndarray  # int64 per node (-1 for leaves and linear splits)
    bound: np.ndarray  # float64 canonical boundary: branch 0 iff x <= bound
    left: np.ndarray  # child index of branch 0
    right: np.ndarray  # child index of branch 1
    missing: np.ndarray  # child index that a missing value takes
    value: np.ndarray  # (n_nodes, value_size); zeros for split nodes
    nominal: dict[int, np.ndarray]  # node -> child per code (last slot = unseen)
    linear: dict[int, tuple[np.ndarray, np.ndarray]]  # node -> (features, weights)
    node_ids: np.ndarray  # graph node id per compiled index

    @property
    def only_numeric(self) -> bool:
        return not self.nominal and not self.linear


def compile_tree(tree: nx.DiGraph, domain_sizes: list[int], value_size: int) -> CompiledTree:
    """Flatten ``tree`` into arrays (root at index 0), in a few passes over nodes and edges."""
    root = tree.graph["root"]
    n = tree.number_of_nodes()
    if root == 0 and all(isinstance(v, int) and 0 <= v < n for v in tree.nodes):
        order = list(range(n))  # importers number nodes 0..n-1 from the root: keep their ids
        index = None
    else:
        order = list(iter_preorder(tree))
        index = {node: i for i, node in enumerate(order)}
    pos = (lambda v: v) if index is None else index.__getitem__
    kind = np.zeros(n, np.int8)
    feature = np.full(n, -1, np.int64)
    threshold = np.zeros(n)
    groups: dict[tuple[str, str], list[int]] = {}
    value = np.zeros((n, value_size))
    miss_branch = np.zeros(n, np.int64)
    linear: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for node, a in tree.nodes(data=True):
        i = pos(node)
        k = _KIND_CODE[a["kind"]]
        kind[i] = k
        if k == LEAF:
            value[i] = a["value"]
            continue
        miss_branch[i] = routing.missing_branch(a)
        if k == NOMINAL:
            feature[i] = a["feature"]
            continue
        threshold[i] = a["threshold"]
        groups.setdefault((a["op"], a["precision"]), []).append(i)
        if k == NUMERIC:
            feature[i] = a["feature"]
        else:
            linear[i] = (np.asarray(a["features"], np.int64), np.asarray(a["weights"]))
    bound = np.zeros(n)
    for (op, precision), idx in groups.items():
        bound[idx] = semantics.boundary_array(op, threshold[idx], precision)
    left = np.zeros(n, np.int64)
    right = np.zeros(n, np.int64)
    kids: dict[int, dict[int, int]] = {}
    nominal_edges: dict[int, list[dict]] = {}
    for u, v, d in tree.edges(data=True):
        iu, iv = pos(u), pos(v)
        b = d["branch"]
        kids.setdefault(iu, {})[b] = iv
        if b == 0:
            left[iu] = iv
        elif b == 1:
            right[iu] = iv
        if kind[iu] == NOMINAL:
            nominal_edges.setdefault(iu, []).append(d)
    missing = np.zeros(n, np.int64)
    for iu, by_branch in kids.items():
        missing[iu] = by_branch[int(miss_branch[iu])]
    nominal: dict[int, np.ndarray] = {}
    for iu, edges in nominal_edges.items():  # child per code, then unseen (rulekit.semantics.routing)
        branches = routing.nominal_table(edges, int(miss_branch[iu]), domain_sizes[feature[iu]])
        by_branch = kids[iu]
        child_of = np.asarray([by_branch[b] for b in range(len(by_branch))], np.int64)
        nominal[iu] = child_of[np.asarray(branches, np.int64)]
    return CompiledTree(kind, feature, bound, left, right, missing, value, nominal, linear,
                        np.asarray(order, dtype=np.int64))


def linear_score(X: np.ndarray, rows: np.ndarray, features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """sum(w_i * x_i) left to right in float64 (NaN if any input is missing; inf - inf is NaN too,
    without a warning: it is a value, routed like a missing one)."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = weights[0] * X[rows, features[0]]
        for f, w in zip(features[1:], weights[1:]):
            s = s + w * X[rows, f]
    return s


def apply(ct: CompiledTree, X: np.ndarray) -> np.ndarray:
    """Compiled index of the leaf each row of ``X`` reaches."""
    n = X.shape[0]
    node = np.zeros(n, np.int64)
    rows = np.arange(n)
    while rows.size:
        nd = node[rows]
        inner = ct.kind[nd] != LEAF
        rows, nd = rows[inner], nd[inner]
        if not rows.size:
            break
        if ct.only_numeric:
            x = X[rows, ct.feature[nd]]
            nxt = np.where(x <= ct.bound[nd], ct.left[nd], ct.right[nd])
            nan = np.isnan(x)
            if nan.any():
                nxt[nan] = ct.missing[nd[nan]]
            node[rows] = nxt
            continue
        node[rows] = _step_mixed(ct, X, rows, nd)
    return node


def _step_mixed(ct: CompiledTree, X: np.ndarray, rows: np.ndarray, nd: np.ndarray) -> np.ndarray:
    nxt = np.empty(rows.size, np.int64)
    kinds = ct.kind[nd]
    m = kinds == NUMERIC
    if m.any():
        r, d = rows[m], nd[m]
        x = X[r, ct.feature[d]]
        out = np.where(x <= ct.bound[d], ct.left[d], ct.right[d])
        nan = np.isnan(x)
        out[nan] = ct.missing[d[nan]]
        nxt[m] = out
    m = kinds == NOMINAL
    if m.any():
        idx = np.flatnonzero(m)
        r, d = rows[idx], nd[idx]
        x = X[r, ct.feature[d]]
        out = np.empty(idx.size, np.int64)
        for node_id in np.unique(d):
            sel = d == node_id
            table = ct.nominal[int(node_id)]
            c, nan = routing.code_slots(x[sel], table.size - 1)
            res = table[c]
            res[nan] = ct.missing[node_id]
            out[sel] = res
        nxt[idx] = out
    m = kinds == LINEAR
    if m.any():
        idx = np.flatnonzero(m)
        out = np.empty(idx.size, np.int64)
        r_all, d_all = rows[idx], nd[idx]
        for node_id in np.unique(d_all):
            sel = d_all == node_id
            feats, weights = ct.linear[int(node_id)]
            s = linear_score(X, r_all[sel], feats, weights)
            res = np.where(s <= ct.bound[node_id], ct.left[node_id], ct.right[node_id])
            res[routing.sum_is_missing(s)] = ct.missing[node_id]
            out[sel] = res
        nxt[idx] = out
    return nxt


try:  # optional C accelerator with the same arithmetic (see rulekit/_fastpath.c)
    from rulekit import _fastpath
except ImportError:  # pragma: no cover - exercised when the extension did not build
    _fastpath = None


@dataclass
class Forest:
    """Numeric-only trees concatenated for the C walker (child indices local to each tree)."""

    offsets: np.ndarray
    feature: np.ndarray
    bound: np.ndarray
    left: np.ndarray
    right: np.ndarray
    missing: np.ndarray
    is_leaf: np.ndarray


def build_forest(cts: list[CompiledTree]) -> Forest | None:
    if _fastpath is None or not all(ct.only_numeric for ct in cts):
        return None
    sizes = [ct.kind.size for ct in cts]
    offsets = np.zeros(len(cts) + 1, np.int64)
    offsets[1:] = np.cumsum(sizes)
    cat = lambda attr, dtype: np.ascontiguousarray(np.concatenate([getattr(ct, attr) for ct in cts]), dtype)  # noqa: E731
    return Forest(offsets, cat("feature", np.int64), cat("bound", np.float64), cat("left", np.int64),
                  cat("right", np.int64), cat("missing", np.int64),
                  np.ascontiguousarray(np.concatenate([ct.kind == LEAF for ct in cts]), np.uint8))


def apply_all(cts: list[CompiledTree], forest: Forest | None, X: np.ndarray) -> np.ndarray:
    """Leaf index per (tree, row): the C walker when available, else the numpy one."""
    n = X.shape[0]
    if forest is not None and n:
        Xc = np.ascontiguousarray(X, dtype=np.float64)
        # features the trees use but that the leaf sentinel (-1) marks: never read (leaves stop)
        out = np.empty((len(cts), n), np.int64)
        _fastpath.apply(Xc, n, Xc.shape[1], forest.offsets, forest.feature, forest.bound, forest.left,
                        forest.right, forest.missing, forest.is_leaf, out)
        return out
    return np.stack([apply(ct, X) for ct in cts]) if cts else np.empty((0, n), np.int64)
