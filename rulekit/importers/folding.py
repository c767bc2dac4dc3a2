"""Fold column states (:mod:`pipeline_columns`) into tree graphs: tests on raw input columns.

A threshold test on a scaled column becomes an exact float64 threshold on the raw column
(:func:`folding_bounds.largest_passing`); on an encoded column, a nominal split on the raw column
(each category goes where its code goes; unknown values where the encoder sends them); an imputed
missing value goes where its fill value goes. A split every input takes the same way is dropped
and its child takes its place. Trees are rebuilt with an explicit stack.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from rulekit import semantics
from rulekit.errors import RulekitError
from rulekit.importers.folding_bounds import ALL, NONE, largest_passing
from rulekit.importers.pipeline_columns import Coded, Column, Num
from rulekit.ir.tree import TreeBuilder, children_by_branch, root_of

_SPLIT_ATTRS = ("kind", "feature", "threshold", "op", "precision", "missing", "feature_name")


def _bound(a: dict) -> float:
    return semantics.boundary(a["op"], a["threshold"], a["precision"])


def _solve(trees: list[nx.DiGraph], cols: list[Column]) -> dict[tuple[int, float], float]:
    """(column, canonical bound) -> largest raw double passing, for every scaled test."""
    wanted: dict[int, set[float]] = {}
    for tree in trees:
        for _, a in tree.nodes(data=True):
            if a["kind"] == "numeric":
                c = cols[a["feature"]]
                if isinstance(c, Num) and not c.only_imputed:
                    wanted.setdefault(a["feature"], set()).add(_bound(a))
    out: dict[tuple[int, float], float] = {}
    for j, bounds in wanted.items():
        arr = np.asarray(sorted(bounds), np.float64)
        for c, b in zip(arr.tolist(), largest_passing(cols[j].apply, arr).tolist()):
            out[(j, c)] = b
    return out


def _route(v: float | None, bound: float, missing: int) -> int | None:
    """Branch a transformed value takes (None: scikit-learn never produces it)."""
    if v is None:
        return None
    if np.isnan(v):
        return missing
    return 0 if v <= bound else 1


class _Decision:
    """How one split of the source tree reads on raw columns."""

    __slots__ = ("attrs", "children", "const", "values")

    def __init__(self, const: int | None = None, attrs: dict | None = None,
                 children: tuple[int, ...] = (0, 1), values: tuple = (None, None)):
        self.const = const        # every input takes this branch: the split disappears
        self.attrs = attrs        # the new split's attributes
        self.children = children  # new branch i leads to the source branch children[i]
        self.values = values      # nominal edge values per new branch


def _numeric(a: dict, c: Num, bound: float, solved: dict, feature: int) -> _Decision:
    fill = c.apply(np.asarray([np.nan]))[0] if c.fns else np.nan
    missing = _route(float(fill), bound, a["missing"])
    if c.only_imputed:
        attrs = {"kind": "numeric", "feature": feature, "threshold": a["threshold"], "op": a["op"],
                 "precision": a["precision"], "missing": missing}
        return _Decision(attrs=attrs)
    b = solved[(a["feature"], bound)]
    if b in (ALL, NONE):
        finite = 0 if b == ALL else 1
        if missing == finite:
            return _Decision(const=finite)
        # every finite value one way, missing the other: x <= inf (as scikit-learn's own trees
        # write a split on missing values), NaN to branch 1
        attrs = {"kind": "numeric", "feature": feature, "threshold": float("inf"), "op": "<=",
                 "precision": "float64", "missing": 1}
        return _Decision(attrs=attrs, children=(finite, missing))
    attrs = {"kind": "numeric", "feature": feature, "threshold": float(b), "op": "<=",
             "precision": "float64", "missing": missing}
    return _Decision(attrs=attrs)


def _nominal(a: dict, c: Coded, bound: float, feature: int) -> _Decision:
    routes = [_route(v, bound, a["missing"]) for v in c.known]
    unknown = _route(c.unknown, bound, a["missing"])
    missing = _route(c.missing, bound, a["missing"])
    taken = {r for r in routes + [unknown, missing] if r is not None}
    if len(taken) <= 1:
        return _Decision(const=taken.pop() if taken else 0)
    if missing is None:  # scikit-learn refuses missing values here: send them anywhere
        missing = unknown if unknown is not None else 1
    codes = [tuple(k for k, r in enumerate(routes) if r == br) for br in (0, 1)]
    values = tuple(None if unknown == br else codes[br] for br in (0, 1))
    attrs = {"kind": "nominal", "feature": feature, "missing": missing}
    return _Decision(attrs=attrs, values=values)


def _source_routes(tree: nx.DiGraph, node: Any, size: int) -> tuple[list[int], int]:
    """Branch of each code of a source nominal split, and the branch unseen codes take (as
    :func:`rulekit.ir.compiled.compile_tree` routes them)."""
    table: list[int | None] = [None] * size
    other = None
    for data in tree.succ[node].values():
        vals = data.get("values")
        if vals is None:
            other = data["branch"]
        else:
            for v in vals:
                table[v] = data["branch"]
    unseen = other if other is not None else tree.nodes[node]["missing"]
    return [unseen if t is None else t for t in table], unseen


def _nominal_of_codes(tree: nx.DiGraph, node: Any, c: Coded, domain: tuple, feature: int) -> _Decision:
    """A source nominal split (HistGradientBoosting's categorical features) read through an encoder:
    each raw category goes where its code goes."""
    a = tree.nodes[node]
    if not all(isinstance(v, int) for v in domain):
        raise RulekitError("a categorical split on text categories after preprocessing cannot be folded")
    by_code, unseen = _source_routes(tree, node, len(domain))
    index = {float(v): i for i, v in enumerate(domain)}

    def route(v: float | None) -> int | None:
        if v is None:
            return None
        if np.isnan(v):
            return a["missing"]
        i = index.get(float(v))
        return unseen if i is None else by_code[i]

    routes = [route(v) for v in c.known]
    unknown, missing = route(c.unknown), route(c.missing)
    taken = {r for r in routes + [unknown, missing] if r is not None}
    if len(taken) <= 1:
        return _Decision(const=taken.pop() if taken else 0)
    n = len(tree.succ[node])
    if missing is None:
        missing = unknown if unknown is not None else a["missing"]
    values = tuple(None if unknown == br else tuple(k for k, r in enumerate(routes) if r == br)
                   for br in range(n))
    return _Decision(attrs={"kind": "nominal", "feature": feature, "missing": missing},
                     children=tuple(range(n)), values=values)


def _decide(tree: nx.DiGraph, node: Any, cols: list[Column], solved: dict, feature_of: dict[int, int],
            domains: list, where: str) -> _Decision:
    a = tree.nodes[node]
    kind = a["kind"]
    c = cols[a["feature"]] if kind in ("numeric", "nominal") else None
    if kind == "nominal" and isinstance(c, Coded):
        return _nominal_of_codes(tree, node, c, domains[a["feature"]], feature_of[c.col])
    if kind == "nominal" and isinstance(c, Num) and not c.fns:  # the raw column itself
        values: list = [None] * len(tree.succ[node])
        for data in tree.succ[node].values():
            values[data["branch"]] = data.get("values")
        return _Decision(attrs={"kind": "nominal", "feature": feature_of[c.col], "missing": a["missing"]},
                         children=tuple(range(len(values))), values=tuple(values))
    if kind != "numeric":
        raise RulekitError(f"{where}: a {kind} split on a column that is not an encoder's output "
                           f"cannot be folded")
    bound = _bound(a)
    if isinstance(c, Coded):
        return _nominal(a, c, bound, feature_of[c.col])
    return _numeric(a, c, bound, solved, feature_of[c.col])


def fold_trees(trees: list[nx.DiGraph], cols: list[Column], feature_of: dict[int, int],
               domains: list) -> list[nx.DiGraph]:
    """Each tree rebuilt on raw features (``feature_of``: raw column -> feature index; ``domains``:
    the source model's domain of each transformed column, None for numeric ones)."""
    solved = _solve(trees, cols)
    return [_fold_tree(t, cols, solved, feature_of, domains, f"tree {i}") for i, t in enumerate(trees)]


def _fold_tree(tree: nx.DiGraph, cols: list[Column], solved: dict, feature_of: dict[int, int],
               domains: list, where: str) -> nx.DiGraph:
    b = TreeBuilder()
    decisions: dict[Any, _Decision] = {}

    def decision(node: Any) -> _Decision:
        d = decisions.get(node)
        if d is None:
            d = decisions[node] = _decide(tree, node, cols, solved, feature_of, domains,
                                          f"{where}: node {node}")
        return d

    stack: list[tuple[Any, int | None, int, Any]] = [(root_of(tree), None, 0, None)]
    while stack:
        node, parent, branch, values = stack.pop()
        while tree.nodes[node]["kind"] != "leaf":
            d = decision(node)
            if d.const is None:
                break
            node = children_by_branch(tree, node)[d.const]
        a = tree.nodes[node]
        extra = {k: v for k, v in a.items() if k not in _SPLIT_ATTRS}
        if a["kind"] == "leaf":
            new = b.leaf(extra.pop("value"), **extra)
        else:
            d = decision(node)
            attrs = dict(d.attrs)
            kind = attrs.pop("kind")
            feature = attrs.pop("feature")
            if kind == "numeric":
                new = b.numeric(feature, attrs.pop("threshold"), **attrs, **extra)
            else:
                new = b.nominal(feature, **attrs, **extra)
            kids = children_by_branch(tree, node)
            for nb in reversed(range(len(d.children))):
                stack.append((kids[d.children[nb]], new, nb, d.values[nb]))
        if parent is not None:
            b.connect(parent, new, branch, values=values)
    return b.graph
