"""CatBoost trees (symmetric and non-symmetric, as its JSON export writes them) -> IR tree graphs.

A CatBoost split sets a bit: ``float32(x) > border`` for a numeric feature, ``hash(x) == value``
for a one-hot categorical one. Bit 0 is the IR's branch 0, bit 1 branch 1, so a numeric split is
the IR test ``float32(x) <= border`` (``op="<="``, ``precision="float32"``) as it stands.

A symmetric (oblivious) tree of depth d tests the same split on every node of a level; its leaf is
``sum(bit_i << i)`` over the listed splits. It is expanded into an ordinary tree, the last listed
split at the root, and a split that the path above already decides (the same feature with a
border the path's interval settles, or a one-hot value the path already equals or excludes) is
left out: its other side is unreachable. This is exact even for missing values, which take the
same side at every split of a feature (``missing``). Nothing here recurses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import networkx as nx

from rulekit.ir.tree import graph_from_parts

# a split as the builder sees it: ("float", feature, border) or ("onehot", feature, category code)
Split = tuple[str, int, Any]
# one decided test on the path: (split kind, feature, border/code, bit taken)
Step = tuple[str, int, Any, int]


def decided_bit(path: Sequence[Step], split: Split) -> int | None:
    """The bit ``split`` must give on every row that reaches the end of ``path``, or None."""
    kind, feature, value = split
    for k, f, v, bit in path:
        if k != kind or f != feature:
            continue
        if kind == "float":
            if bit == 0 and v <= value:  # x <= v <= value: x > value is false
                return 0
            if bit == 1 and value <= v:  # x > v >= value
                return 1
        else:
            if bit == 1:  # the category equals v
                return 1 if v == value else 0
            if v == value:  # known to differ from value
                return 0
    return None


class GraphParts:
    """Node dicts and edges of one tree under construction (node id = position)."""

    def __init__(self) -> None:
        self.nodes: list[dict[str, Any]] = []
        self.edges: list[tuple[int, int, dict[str, Any]]] = []

    def add(self, attrs: dict[str, Any], parent: int | None, branch: int,
            values: tuple | None | int = 0) -> int:
        node = len(self.nodes)
        self.nodes.append(attrs)
        if parent is not None:
            edge: dict[str, Any] = {"branch": branch}
            if values != 0:  # nominal parent: its edges list their categories (None: all others)
                edge["values"] = values
            self.edges.append((parent, node, edge))
        return node


def split_attrs(split: Split, missing: Callable[[Split], int]) -> tuple[dict[str, Any], tuple, tuple | None]:
    """The IR node attributes of ``split`` and the ``values`` of its branch 0 and branch 1 edges."""
    kind, feature, value = split
    if kind == "float":
        return ({"kind": "numeric", "feature": feature, "threshold": float(value), "op": "<=",
                 "precision": "float32", "missing": missing(split)}, 0, 0)  # type: ignore[return-value]
    # one-hot: bit 1 = the category equals value; every other category (and missing) is bit 0
    return {"kind": "nominal", "feature": feature, "missing": 0}, None, (value,)


def expand_oblivious(splits: Sequence[Split], leaf: Callable[[int], dict[str, Any]],
                     missing: Callable[[Split], int]) -> GraphParts:
    """The ordinary tree of a symmetric tree with ``splits`` (CatBoost's order: bit i is splits[i]);
    ``leaf(index)`` gives the attributes of leaf ``index``."""
    parts = GraphParts()
    depth = len(splits)
    # (level counting down from the root, leaf index so far, path, parent node, branch, edge values)
    stack: list[tuple[int, int, tuple, int | None, int, Any]] = [(depth - 1, 0, (), None, 0, 0)]
    while stack:
        level, index, path, parent, branch, values = stack.pop()
        while level >= 0:  # skip the levels the path decides
            bit = decided_bit(path, splits[level])
            if bit is None:
                break
            index |= bit << level
            level -= 1
        if level < 0:
            parts.add(leaf(index), parent, branch, values)
            continue
        split = splits[level]
        attrs, values0, values1 = split_attrs(split, missing)
        node = parts.add(attrs, parent, branch, values)
        kind, feature, value = split
        stack.append((level - 1, index | 1 << level, path + ((kind, feature, value, 1),), node, 1, values1))
        stack.append((level - 1, index, path + ((kind, feature, value, 0),), node, 0, values0))
    return parts


def expand_nonsymmetric(root: Any, read_split: Callable[[Any], Split],
                        leaf: Callable[[Any], dict[str, Any]], missing: Callable[[Split], int],
                        where: str, error: type[Exception]) -> GraphParts:
    """The tree of a non-symmetric CatBoost tree (nested ``{"split", "left", "right"}`` objects,
    ``left`` = bit 0); ``leaf(obj)`` gives the attributes of a leaf object (``{"value", ...}``)."""
    parts = GraphParts()
    stack: list[tuple[Any, tuple, int | None, int, Any]] = [(root, (), None, 0, 0)]
    while stack:
        obj, path, parent, branch, values = stack.pop()
        while isinstance(obj, dict) and "split" in obj:
            split = read_split(obj["split"])
            bit = decided_bit(path, split)
            if bit is None:
                break
            obj = obj.get("right" if bit else "left")
        if not isinstance(obj, dict):
            raise error(f"{where}: a node is not an object")
        if "split" not in obj:
            parts.add(leaf(obj), parent, branch, values)
            continue
        if "left" not in obj or "right" not in obj:
            raise error(f"{where}: a split node needs both 'left' and 'right'")
        attrs, values0, values1 = split_attrs(split, missing)
        node = parts.add(attrs, parent, branch, values)
        kind, feature, value = split
        stack.append((obj["right"], path + ((kind, feature, value, 1),), node, 1, values1))
        stack.append((obj["left"], path + ((kind, feature, value, 0),), node, 0, values0))
    return parts


def to_graph(parts: GraphParts, leaf_value: Callable[[dict[str, Any]], tuple[float, ...]]) -> nx.DiGraph:
    """An IR graph of ``parts`` with each leaf's ``value`` set by ``leaf_value(leaf attrs)``; node
    dicts are copied, so one ``parts`` serves several graphs (one per class of a multiclass tree)."""
    nodes = []
    for attrs in parts.nodes:
        a = dict(attrs)
        if a["kind"] == "leaf":
            a["value"] = leaf_value(a)
            a.pop("_leaf", None)
        nodes.append(a)
    return graph_from_parts(nodes, [(u, v, dict(d)) for u, v, d in parts.edges])
