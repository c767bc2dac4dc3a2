"""Reduced-error pruning of a model's tree on a pruning set (Model -> Model), Quinlan 1987.

Bottom up, every split whose subtree makes at least as many errors on the pruning rows that reach
it as a leaf predicting the node's own training majority becomes that leaf. By construction the
pruned tree never makes more errors on the pruning set than the tree it came from. The rules
command runs it before extracting rules from a tree with pruning data, so that C4.5rules'
generalisation starts from paths the held-out data supports instead of a fully grown tree's
thousand one-row leaves (measured in docs/rules.md).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from rulekit.errors import RulekitError
from rulekit.ir.model import Model
from rulekit.ir.tree import root_of
from rulekit.rules.stats import class_codes


def reduced_error(model: Model, X, y) -> tuple[Model, int]:
    """The model with its tree pruned on ``(X, y)``, and the number of splits removed."""
    if model.task != "classification" or len(model.trees) != 1:
        raise RulekitError("reduced-error tree pruning needs a single classification tree")
    g = model.graph
    K = len(model.classes)
    yc = class_codes(y, list(model.classes))
    leaf_of = model.apply(X)[:, 0]
    counts: dict[int, np.ndarray] = {}
    for node in g.nodes:
        counts[node] = np.zeros(K, np.int64)
    ok = yc >= 0
    for leaf, c in zip(leaf_of[ok].tolist(), yc[ok].tolist()):
        counts[leaf][c] += 1
    root = root_of(g)
    order = list(nx.dfs_preorder_nodes(g, root))
    errors: dict[int, int] = {}
    cut: set[int] = set()
    for node in reversed(order):  # children before parents
        a = g.nodes[node]
        own = _majority(a, K)
        if a["kind"] == "leaf":
            errors[node] = int(counts[node].sum() - counts[node][own])
            continue
        kids = list(g.successors(node))
        for k in kids:
            counts[node] += counts[k]
        sub = sum(errors[k] for k in kids)
        as_leaf = int(counts[node].sum() - counts[node][own])
        if as_leaf <= sub:
            cut.add(node)
            errors[node] = as_leaf
        else:
            errors[node] = sub
    if not cut:
        return model, 0
    out = nx.DiGraph()
    out.graph.update(g.graph)
    stack = [root]
    removed = 0
    while stack:
        node = stack.pop()
        a = dict(g.nodes[node])
        if node in cut:
            removed += sum(1 for d in nx.descendants(g, node) if g.nodes[d]["kind"] != "leaf") + 1
            out.add_node(node, **_as_leaf(a, K))
            continue
        out.add_node(node, **a)
        for k in g.successors(node):
            out.add_edge(node, k, **g.edges[node, k])
            stack.append(k)
    pruned = Model([out], model.features, task=model.task, classes=model.classes, combiner=model.combiner,
                   target=model.target, source=model.source)
    return pruned, removed


def _majority(a: dict, K: int) -> int:
    value = a.get("counts") or a.get("value")
    if value is None or len(value) != K:
        raise RulekitError("reduced-error tree pruning needs class distributions on every node")
    return int(np.argmax(value))


def _as_leaf(a: dict, K: int) -> dict:
    value = tuple(float(v) for v in a["value"])
    leaf = {"kind": "leaf", "value": value}
    for key in ("n_samples", "impurity"):
        if key in a:
            leaf[key] = a[key]
    if "n_samples" in a:
        leaf["counts"] = tuple(float(v) * float(a["n_samples"]) for v in value)
    return leaf
