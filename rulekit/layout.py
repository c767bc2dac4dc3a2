"""Tidy layout of a tree for pictures: leaves side by side, parents centred over their children.

Non-recursive (post-order with an explicit stack). Large trees are cut at the depth where the
picture would exceed ``max_nodes``; the cut subtrees show as one "… n more" node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from rulekit.ir.tree import children_by_branch, root_of


@dataclass
class Placed:
    node: int
    depth: int
    x: float = 0.0
    children: list[int] = field(default_factory=list)
    hidden: int = 0  # > 0: a cut subtree standing for this many nodes


def _depth_limit(tree: nx.DiGraph, max_nodes: int) -> int:
    counts: dict[int, int] = {}
    stack = [(root_of(tree), 0)]
    while stack:
        node, d = stack.pop()
        counts[d] = counts.get(d, 0) + 1
        stack.extend((c, d + 1) for c in tree.succ[node])
    total, limit = 0, 0
    for d in sorted(counts):
        total += counts[d]
        if total > max_nodes:
            break
        limit = d
    return limit


def layout(tree: nx.DiGraph, *, max_nodes: int = 400) -> dict[int, Placed]:
    """Position of every shown node: ``x`` in leaf slots, ``depth`` in levels."""
    limit = _depth_limit(tree, max_nodes)
    placed: dict[int, Placed] = {}
    root = root_of(tree)
    stack: list[tuple[int, int, bool]] = [(root, 0, False)]
    next_slot = 0.0
    while stack:
        node, d, expanded = stack.pop()
        kids = children_by_branch(tree, node) if tree.nodes[node]["kind"] != "leaf" else []
        if d == limit and kids:
            hidden = len(nx.descendants(tree, node))
            placed[node] = Placed(node, d, next_slot, [], hidden)
            next_slot += 1
            continue
        if not kids:
            placed[node] = Placed(node, d, next_slot)
            next_slot += 1
            continue
        if not expanded:
            stack.append((node, d, True))
            stack.extend((c, d + 1, False) for c in reversed(kids))
            continue
        xs = [placed[c].x for c in kids]
        placed[node] = Placed(node, d, (xs[0] + xs[-1]) / 2, kids)
    return placed
