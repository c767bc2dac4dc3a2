"""One decision tree as a ``networkx.DiGraph`` with a fixed attribute schema, plus builder and checks.

Node attributes
---------------
Every node has ``kind``:

``"numeric"``  test ``cast(x[feature]) op threshold`` with ``op`` in ``<=``/``<`` and ``precision``
               ``float32``/``float64`` (see :mod:`rulekit.semantics`). Branch 0 = test true, 1 = false.
``"nominal"``  the value of ``feature`` picks the branch: each out-edge lists its ``values``; at most
               one edge has ``values=None`` and takes every other value (unseen categories included).
``"linear"``   oblique test ``sum(weights[i] * x[features[i]]) op threshold`` summed left to right in
               float64. Branch 0 = true, 1 = false.
``"leaf"``     ``value``: class probabilities (classification), ``(v,)`` for a regression or a
               boosting tree's raw score; ``counts`` optional class counts/weights.

Split nodes also carry ``missing`` (the branch a missing value takes) and, optionally,
``feature_name``, ``n_samples``, ``impurity`` and ``value`` (the node's own distribution).
Edges carry ``branch`` (int) and, for nominal splits, ``values`` (tuple, or None for "other").
``graph.graph["root"]`` names the root. Nothing here recurses.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import networkx as nx

from rulekit.errors import ModelFileError

SPLIT_KINDS = ("numeric", "nominal", "linear")
NODE_KINDS = SPLIT_KINDS + ("leaf",)


class TreeBuilder:
    """Small helper that builds a tree graph node by node with the schema above."""

    def __init__(self) -> None:
        self.graph = nx.DiGraph()
        self._next = 0

    def _add(self, **attrs: Any) -> int:
        node = self._next
        self._next += 1
        self.graph.add_node(node, **{k: v for k, v in attrs.items() if v is not None})
        if node == 0:
            self.graph.graph["root"] = 0
        return node

    def numeric(self, feature: int, threshold: float, *, op: str = "<=", precision: str = "float64",
                missing: int = 1, **extra: Any) -> int:
        return self._add(kind="numeric", feature=int(feature), threshold=float(threshold), op=op,
                         precision=precision, missing=int(missing), **extra)

    def nominal(self, feature: int, *, missing: int, **extra: Any) -> int:
        return self._add(kind="nominal", feature=int(feature), missing=int(missing), **extra)

    def linear(self, features: Sequence[int], weights: Sequence[float], threshold: float, *,
               op: str = "<=", missing: int = 1, **extra: Any) -> int:
        return self._add(kind="linear", features=tuple(int(f) for f in features),
                         weights=tuple(float(w) for w in weights), threshold=float(threshold), op=op,
                         precision="float64", missing=int(missing), **extra)

    def leaf(self, value: Sequence[float], **extra: Any) -> int:
        return self._add(kind="leaf", value=tuple(float(v) for v in value), **extra)

    def connect(self, parent: int, child: int, branch: int, values: Sequence[Any] | None = None) -> None:
        attrs: dict[str, Any] = {"branch": int(branch)}
        if self.graph.nodes[parent]["kind"] == "nominal":
            attrs["values"] = None if values is None else tuple(values)
        self.graph.add_edge(parent, child, **attrs)


def graph_from_parts(nodes: Sequence[dict[str, Any]], edges: Iterable[tuple[int, int, dict[str, Any]]],
                     *, root: int = 0) -> nx.DiGraph:
    """A tree graph from node attribute dicts (node id = position) and ``(parent, child, attrs)``.

    Fills networkx's adjacency dicts directly (the data structure networkx documents for
    subclasses), about 8x faster than ``add_nodes_from``/``add_edges_from`` on big forests. Edges
    must name existing ids; validation is the caller's (``validate_tree``).
    """
    g = nx.DiGraph(root=root)
    n = len(nodes)
    g._node.update(enumerate(nodes))
    succ: dict[int, dict] = {i: {} for i in range(n)}
    pred: dict[int, dict] = {i: {} for i in range(n)}
    for u, v, d in edges:
        succ[u][v] = d
        pred[v][u] = d
    g._succ.update(succ)  # _adj is the same dict as _succ in a DiGraph
    g._pred.update(pred)
    return g


def root_of(tree: nx.DiGraph) -> int:
    return tree.graph["root"]


def children_by_branch(tree: nx.DiGraph, node: int) -> list[int]:
    """Children of ``node`` ordered by their edge's ``branch``."""
    succ = tree.succ[node]
    out = [0] * len(succ)
    for child, data in succ.items():
        out[data["branch"]] = child
    return out


def iter_preorder(tree: nx.DiGraph) -> Iterator[int]:
    """Nodes in pre-order (branch order), with an explicit stack."""
    stack = [root_of(tree)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children_by_branch(tree, node)))


def depth(tree: nx.DiGraph) -> int:
    """Number of edges on the longest root-to-leaf path."""
    best = 0
    queue = deque([(root_of(tree), 0)])
    while queue:
        node, d = queue.popleft()
        best = max(best, d)
        for child in tree.succ[node]:
            queue.append((child, d + 1))
    return best


def leaves(tree: nx.DiGraph) -> list[int]:
    return [n for n, k in tree.nodes(data="kind") if k == "leaf"]


def validate_tree(tree: nx.DiGraph, *, n_features: int, value_size: int | None = None,
                  where: str = "tree") -> None:
    """Check the structure and attributes; raise ``ModelFileError`` naming the first problem.

    One pass over the edges and one over the nodes (models of millions of nodes load quickly).
    """

    def fail(msg: str) -> None:
        raise ModelFileError(f"{where}: {msg}")

    n = tree.number_of_nodes()
    if n == 0:
        fail("has no nodes")
    parents: dict = {}
    branches: dict = {}
    others: dict = {}
    for u, nbrs in tree._succ.items():  # networkx's own adjacency: no view objects per node
        if not nbrs:
            continue
        br = branches[u] = []
        for v, d in nbrs.items():
            if v in parents:
                fail(f"node {v} has more than one parent (a tree node has one)")
            parents[v] = u
            br.append(d.get("branch", -1))
            if d.get("values", 0) is None:
                others[u] = others.get(u, 0) + 1
    roots = [node for node in tree._node if node not in parents]
    if len(roots) != 1:
        fail(f"must have exactly one root, found {len(roots)}")
    root = roots[0]
    if tree.graph.get("root") != root:
        tree.graph["root"] = root
    # one root and one parent each: a tree iff every node is reachable from the root
    succ = tree._succ
    seen, stack = 1, [root]
    while stack:
        node = stack.pop()
        for child in succ[node]:
            seen += 1
            stack.append(child)
        if seen > n:
            fail("has a cycle")
    if seen != n:
        fail(f"{n - seen} node(s) unreachable from the root (a cycle?)")
    for node, attrs in tree._node.items():
        kind = attrs.get("kind")
        if kind == "numeric":  # the common case, inline
            br = branches.get(node, ())
            if len(br) != 2 or set(br) != {0, 1}:
                fail(f"numeric split {node} must have 2 children on branches 0 and 1, has {sorted(br)}")
            t = attrs.get("threshold")
            f = attrs.get("feature")
            if (attrs.get("missing") not in (0, 1) or not isinstance(f, int) or not 0 <= f < n_features
                    or not isinstance(t, float) or t != t or attrs.get("op") not in ("<=", "<")
                    or (t == -math.inf and attrs.get("op") == "<")
                    or attrs.get("precision") not in ("float32", "float64")):
                _validate_node(node, attrs, branches.get(node, []), others.get(node, 0), n_features,
                               value_size, fail)
            continue
        if kind == "leaf" and node not in branches:
            value = attrs.get("value")
            if (value is not None and 0 < len(value) and (value_size is None or len(value) == value_size)
                    and all(v == v for v in value)):
                continue
        _validate_node(node, attrs, branches.get(node, []), others.get(node, 0), n_features,
                       value_size, fail)


def _validate_node(node, attrs, branches, n_others, n_features, value_size, fail) -> None:
    kind = attrs.get("kind")
    if kind not in NODE_KINDS:
        fail(f"node {node} has unknown kind {kind!r}")
    n_children = len(branches)
    if kind == "leaf":
        if n_children:
            fail(f"leaf {node} has children")
        value = attrs.get("value")
        if value is None or len(value) == 0:
            fail(f"leaf {node} has no value")
        if value_size is not None and len(value) != value_size:
            fail(f"leaf {node} has {len(value)} values, expected {value_size}")
        if any(math.isnan(v) for v in value):
            fail(f"leaf {node} has a NaN value")
        return
    if sorted(branches) != list(range(n_children)):
        fail(f"node {node} has branches {sorted(branches)}, expected 0..{n_children - 1}")
    if kind in ("numeric", "linear") and n_children != 2:
        fail(f"{kind} split {node} must have 2 children, has {n_children}")
    if kind == "nominal" and n_children < 1:
        fail(f"nominal split {node} has no children")
    missing = attrs.get("missing")
    if not isinstance(missing, int) or not 0 <= missing < n_children:
        fail(f"node {node}: missing branch {missing!r} out of range")
    feats = attrs.get("features", ()) if kind == "linear" else (attrs.get("feature"),)
    for f in feats:
        if not isinstance(f, int) or not 0 <= f < n_features:
            fail(f"node {node}: feature index {f!r} out of range 0..{n_features - 1}")
    if kind in ("numeric", "linear"):
        t = attrs.get("threshold")
        if not isinstance(t, float) or math.isnan(t):
            fail(f"node {node}: threshold must be a number (finite or +-inf), got {t!r}")
        if attrs.get("op") not in ("<=", "<"):
            fail(f"node {node}: operator {attrs.get('op')!r} (expected '<=' or '<')")
        if attrs.get("op") == "<" and t == -math.inf:
            # no canonical x <= b says "no value" (rulekit.semantics.thresholds.MinusInfinityTest)
            fail(f"node {node}: the test 'x < -inf' holds for no value and cannot be evaluated exactly "
                 f"(use '<=' against -inf, or drop the split)")
        if attrs.get("precision") not in ("float32", "float64"):
            fail(f"node {node}: precision {attrs.get('precision')!r}")
    if kind == "linear":
        w = attrs.get("weights", ())
        if len(w) != len(feats) or not feats:
            fail(f"linear split {node}: {len(feats)} features but {len(w)} weights")
        if any(not math.isfinite(x) for x in w):
            fail(f"linear split {node}: weights must be finite")
    if kind == "nominal" and n_others > 1:
        fail(f"nominal split {node} has {n_others} 'other' branches (at most 1)")
