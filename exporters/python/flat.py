"""A Model's trees as plain lists, the input of the code generator (no networkx, no recursion).

Two views of every tree:

* :class:`Tree` — the tree as it is (multiway nominal splits, oblique splits), nodes in pre-order,
  each numeric/linear threshold already turned into its canonical float64 boundary ``b`` (branch 0
  iff ``x <= b``). The nested-``if`` code is written from it.
* :class:`Table` — every tree of the model as *binary* threshold nodes over an "augmented" row:
  ``[features, derived columns, their negations, NaN]``. A derived column is an oblique sum or the
  branch a nominal value takes. Children of a node sit side by side, so one step is
  ``node = first[node] + (v[col[node]] <= cut[node])`` for every node kind, a missing value (NaN)
  always lands on ``first[node]``, and a leaf points at itself. The table walker and the numpy
  batch evaluator of the generated module run on it.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from rulekit import semantics
from rulekit.errors import ExportError
from rulekit.semantics import routing

LEAF, NUMERIC, NOMINAL, LINEAR = 0, 1, 2, 3
_KIND = {"leaf": LEAF, "numeric": NUMERIC, "nominal": NOMINAL, "linear": LINEAR}
MISSING_CODE, UNSEEN_CODE = -2, -1  # nominal codes the generated module uses besides 0..size-1


@dataclass
class Tree:
    root: int = 0
    kind: list[int] = field(default_factory=list)
    feature: list[int] = field(default_factory=list)  # numeric / nominal feature, else -1
    threshold: list[tuple[str, float, str] | None] = field(default_factory=list)  # (op, t, precision)
    bound: list[float] = field(default_factory=list)  # canonical boundary (numeric / linear)
    missing: list[int] = field(default_factory=list)  # branch a missing value takes
    kids: list[tuple[int, ...]] = field(default_factory=list)  # children by branch (local indices)
    route: dict[int, tuple[int, ...]] = field(default_factory=dict)  # nominal: branch per code + 2
    linear: dict[int, tuple[tuple[int, ...], tuple[float, ...]]] = field(default_factory=dict)
    value: dict[int, tuple[float, ...]] = field(default_factory=dict)  # leaves
    weight: list[float] = field(default_factory=list)  # training rows through the node (nan: unknown)


def flatten_tree(graph: nx.DiGraph, domain_sizes: list[int]) -> Tree:
    """The tree as parallel lists (graph node order); thresholds not yet turned into boundaries."""
    items = list(graph.nodes(data=True))
    index = {n: i for i, (n, _) in enumerate(items)}
    attrs = [a for _, a in items]
    adj = dict(graph.adjacency())
    t = Tree(root=index[graph.graph["root"]])
    t.kind = [_KIND[a["kind"]] for a in attrs]
    t.feature = [a.get("feature", -1) for a in attrs]
    t.missing = [a.get("missing", 0) for a in attrs]
    t.weight = [float(a.get("n_samples", math.nan)) for a in attrs]
    t.threshold = [(a["op"], a["threshold"], a["precision"]) if "threshold" in a else None for a in attrs]
    t.bound = [math.nan] * len(attrs)
    kids: list[tuple[int, ...]] = []
    for (node, a), kind in zip(items, t.kind):
        out = adj[node]
        if kind == LEAF:
            kids.append(())
            continue
        if len(out) == 2:
            (c0, d0), (c1, d1) = out.items()
            kids.append((index[c0], index[c1]) if d0["branch"] == 0 else (index[c1], index[c0]))
        else:
            children = [None] * len(out)
            for child, data in out.items():
                children[data["branch"]] = index[child]
            kids.append(tuple(children))
        if kind == NOMINAL:
            i = index[node]
            t.route[i] = _route(out, routing.missing_branch(a), domain_sizes[a["feature"]])
        elif kind == LINEAR:
            t.linear[index[node]] = (tuple(a["features"]), tuple(map(float, a["weights"])))
    t.kids = kids
    t.value = {i: tuple(map(float, a["value"])) for i, a in enumerate(attrs) if "value" in a and t.kind[i] == LEAF}
    return t


def _route(out: dict, missing: int, size: int) -> tuple[int, ...]:
    """Branch taken by each nominal code (:func:`rulekit.semantics.routing.nominal_table`), spelled
    for the generated module: slot ``code + 2``, i.e. slot 0 a missing value, slot 1 a value outside
    the domain, then codes 0..size-1."""
    table = routing.nominal_table(out.values(), missing, size)
    return (missing, routing.unseen_branch(table), *table[:size])


def set_bounds(trees: list[Tree]) -> None:
    """Fill ``bound`` of every numeric/linear node through :func:`rulekit.semantics.boundary_array`."""
    groups: dict[tuple[str, str], list[tuple[Tree, int, float]]] = {}
    for t in trees:
        for i, th in enumerate(t.threshold):
            if th is not None:
                op, thr, prec = th
                groups.setdefault((op, prec), []).append((t, i, thr))
    for (op, prec), items in groups.items():
        try:
            bounds = semantics.boundary_array(op, np.array([x[2] for x in items]), prec).tolist()
        except ValueError as err:
            raise ExportError(f"cannot export a threshold: {err}") from None
        for (t, i, _), b in zip(items, bounds):
            t.bound[i] = b


def depth(t: Tree) -> int:
    """Levels of the nested-``if`` form (a nominal split with B branches counts B - 1)."""
    best = 0
    stack = [(t.root, 0)]
    while stack:
        i, d = stack.pop()
        best = max(best, d)
        step = max(1, len(t.kids[i]) - 1)
        stack.extend((k, d + step) for k in t.kids[i])
    return best


@dataclass
class Table:
    """All trees as binary nodes over the augmented row (see the module docstring)."""

    n_features: int
    derived: list[tuple] = field(default_factory=list)  # ("linear", feats, weights) | ("route", f, table)
    col: list[int] = field(default_factory=list)
    cut: list[float] = field(default_factory=list)
    first: list[int] = field(default_factory=list)
    leafno: list[int] = field(default_factory=list)  # per node: row of ``leaf_value`` (0 for splits)
    leaf_value: list[tuple[float, ...]] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)
    gid: list[list[int]] = field(default_factory=list)  # per tree: node id of each local index
    depth: int = 0  # steps until every row of every tree stands on a leaf

    @property
    def n_aug(self) -> int:
        """Features plus derived columns (``A``); negations follow, then the NaN column ``2A``."""
        return self.n_features + len(self.derived)

    @property
    def leaf_col(self) -> int:
        return 2 * self.n_aug


def build_table(trees: list[Tree], n_features: int) -> Table:
    tab = Table(n_features)
    derived_index: dict[tuple, int] = {}

    def derived(key: tuple) -> int:
        if key not in derived_index:
            derived_index[key] = len(tab.derived)
            tab.derived.append(key)
        return n_features + derived_index[key]

    # derived columns first: the negated block starts at A, which must be known before writing cols
    for t in trees:
        for i in sorted(t.linear):
            derived(("linear",) + t.linear[i])
        for i in sorted(t.route):
            derived(("route", t.feature[i], t.route[i]))
    A = tab.n_aug
    leaf_col = 2 * A
    nan = math.nan
    inf = math.inf
    nextafter = math.nextafter
    # sizes first: one node per leaf and per binary split, a nominal split of B branches is a chain
    # of B - 1 binary steps (a pass-through one keeps a dummy leaf in its unused slot)
    total = 0
    for t in trees:
        total += 1
        for ks in t.kids:
            total += 2 * max(1, len(ks) - 1) if ks else 0
    col, cut, first, leafno = [leaf_col] * total, [nan] * total, [0] * total, [0] * total
    tab.col, tab.cut, tab.first, tab.leafno = col, cut, first, leafno
    leaf_value = tab.leaf_value
    top = 0  # next free node id
    max_depth = 0
    for t in trees:
        gid = [-1] * len(t.kind)
        root = top
        top += 1
        tab.roots.append(root)
        kinds, kids_of, feature, bound, missing = t.kind, t.kids, t.feature, t.bound, t.missing
        values = t.value
        queue = deque([(t.root, root, 0)])  # (local node, node id, depth in steps)
        pop, push = queue.popleft, queue.append
        while queue:
            i, g, d = pop()
            gid[i] = g
            kind = kinds[i]
            if kind == LEAF:
                if d > max_depth:
                    max_depth = d
                first[g] = g
                leafno[g] = len(leaf_value)
                leaf_value.append(values[i])
                continue
            kids = kids_of[i]
            p = top
            top += 2
            first[g] = p
            if kind == NOMINAL:
                c = derived(("route", feature[i], t.route[i]))
                if len(kids) == 1:  # a pass-through split: always slot 0; slot 1 a dummy leaf
                    col[g] = c
                    first[p + 1] = p + 1
                    push((kids[0], p, d + 1))
                    continue
                # a chain: step k sends branch k to slot 1, the rest on to the next step
                last = len(kids) - 2
                for k in range(last + 1):
                    col[g], cut[g] = c, k + 0.5
                    push((kids[k], p + 1, d + k + 1))
                    if k == last:
                        push((kids[k + 1], p, d + k + 1))
                    else:
                        g = p
                        p = top
                        top += 2
                        first[g] = p
                continue
            c = feature[i] if kind == NUMERIC else derived(("linear",) + t.linear[i])
            b = bound[i]
            left, right = kids
            if missing[i] == 1:  # x <= b -> left (slot 1); else and NaN -> right (slot 0)
                col[g], cut[g] = c, b
                push((left, p + 1, d + 1))
                push((right, p, d + 1))
            else:  # x > b  <=>  -x <= -nextup(b) -> right (slot 1); else and NaN -> left (slot 0)
                if b == inf:
                    col[g] = c  # cut stays NaN: never right
                else:
                    col[g], cut[g] = A + c, -nextafter(b, inf)
                push((right, p + 1, d + 1))
                push((left, p, d + 1))
        tab.gid.append(gid)
    tab.depth = max_depth
    assert top == total, (top, total)
    if not tab.leaf_value:
        raise ExportError("model has no leaves")
    return tab
