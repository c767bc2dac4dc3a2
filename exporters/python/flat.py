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

LEAF, NUMERIC, NOMINAL, LINEAR = 0, 1, 2, 3
_KIND = {"leaf": LEAF, "numeric": NUMERIC, "nominal": NOMINAL, "linear": LINEAR}
MISSING_CODE, UNSEEN_CODE = -2, -1  # nominal codes the generated module uses besides 0..size-1


@dataclass
class Tree:
    kind: list[int] = field(default_factory=list)
    feature: list[int] = field(default_factory=list)  # numeric / nominal feature, else -1
    threshold: list[tuple[str, float, str] | None] = field(default_factory=list)  # (op, t, precision)
    bound: list[float] = field(default_factory=list)  # canonical boundary (numeric / linear)
    missing: list[int] = field(default_factory=list)  # branch a missing value takes
    kids: list[tuple[int, ...]] = field(default_factory=list)  # children by branch (local indices)
    route: dict[int, tuple[int, ...]] = field(default_factory=dict)  # nominal: branch per code + 2
    linear: dict[int, tuple[tuple[int, ...], tuple[float, ...]]] = field(default_factory=dict)
    value: dict[int, tuple[float, ...]] = field(default_factory=dict)  # leaves


def flatten_tree(graph: nx.DiGraph, domain_sizes: list[int]) -> Tree:
    """The tree in pre-order (branch order), thresholds not yet turned into boundaries."""
    nodes = dict(graph.nodes(data=True))
    succ = dict(graph.adjacency())
    t = Tree()
    stack = [graph.graph["root"]]
    index: dict = {}
    pending: list[tuple[int, list]] = []  # (local index, graph children by branch)
    while stack:
        node = stack.pop()
        i = len(t.kind)
        index[node] = i
        a = nodes[node]
        kind = _KIND[a["kind"]]
        t.kind.append(kind)
        t.feature.append(a.get("feature", -1) if kind in (NUMERIC, NOMINAL) else -1)
        t.missing.append(a.get("missing", 0))
        t.bound.append(math.nan)
        if kind == LEAF:
            t.threshold.append(None)
            t.value[i] = tuple(float(v) for v in a["value"])
            continue
        t.threshold.append((a["op"], float(a["threshold"]), a["precision"]) if kind != NOMINAL else None)
        out = succ[node]
        children = [None] * len(out)
        for child, data in out.items():
            children[data["branch"]] = child
        pending.append((i, children))
        if kind == LINEAR:
            t.linear[i] = (tuple(a["features"]), tuple(float(w) for w in a["weights"]))
        elif kind == NOMINAL:
            t.route[i] = _route(out, children, a["missing"], domain_sizes[a["feature"]])
        stack.extend(reversed(children))
    t.kids = [()] * len(t.kind)
    for i, children in pending:
        t.kids[i] = tuple(index[c] for c in children)
    return t


def _route(out: dict, children: list, missing: int, size: int) -> tuple[int, ...]:
    """Branch taken by each nominal code, as in ``rulekit.ir.compiled``: slot ``code + 2``.

    Slot 0 is a missing value, slot 1 a value outside the domain ("other" branch, else the missing
    branch), then codes 0..size-1 (listed values; else "other"; else the missing branch)."""
    branch_of = {c: d["branch"] for c, d in out.items()}
    table = [-1] * (size + 1)  # codes 0..size-1, then unseen
    for child, data in out.items():
        vals = data.get("values")
        if vals is None:
            table = [branch_of[child] if b == -1 else b for b in table]
        else:
            for code in vals:
                table[code] = branch_of[child]
    table = [missing if b == -1 else b for b in table]
    return (missing, table[size], *table[:size])


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
    stack = [(0, 0)]
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
    col, cut, first, leafno = tab.col, tab.cut, tab.first, tab.leafno
    nan = math.nan

    def alloc(k: int) -> int:
        g = len(col)
        col.extend([leaf_col] * k)
        cut.extend([nan] * k)
        first.extend([0] * k)
        leafno.extend([0] * k)
        return g

    for t in trees:
        gid = [-1] * len(t.kind)
        root = alloc(1)
        tab.roots.append(root)
        queue = deque([(0, root, 0)])  # (local node, node id, depth in steps)
        while queue:
            i, g, d = queue.popleft()
            gid[i] = g
            tab.depth = max(tab.depth, d)
            kind = t.kind[i]
            if kind == LEAF:
                first[g] = g
                leafno[g] = len(tab.leaf_value)
                tab.leaf_value.append(t.value[i])
                continue
            kids = t.kids[i]
            if kind == NOMINAL:
                c = derived(("route", t.feature[i], t.route[i]))
                if len(kids) == 1:  # a pass-through split: always to slot 0, slot 1 a dummy leaf
                    p = alloc(2)
                    first[g], col[g], cut[g] = p, c, nan
                    first[p + 1] = p + 1
                    leafno[p + 1] = 0
                    queue.append((kids[0], p, d + 1))
                    continue
                # a chain: step k sends branch k to slot 1, the rest on to the next step
                for k in range(len(kids) - 1):
                    p = alloc(2)
                    first[g], col[g], cut[g] = p, c, k + 0.5
                    queue.append((kids[k], p + 1, d + k + 1))
                    if k == len(kids) - 2:
                        queue.append((kids[k + 1], p, d + k + 1))
                    else:
                        g = p
                continue
            c = t.feature[i] if kind == NUMERIC else derived(("linear",) + t.linear[i])
            b = t.bound[i]
            p = alloc(2)
            first[g] = p
            left, right = kids
            if t.missing[i] == 1:  # x <= b -> left (slot 1); else and NaN -> right (slot 0)
                col[g], cut[g] = c, b
                queue.append((left, p + 1, d + 1))
                queue.append((right, p, d + 1))
            else:  # x > b  <=>  -x <= -nextup(b) -> right (slot 1); else and NaN -> left (slot 0)
                if b == math.inf:
                    col[g], cut[g] = c, nan  # never right
                else:
                    col[g], cut[g] = A + c, -math.nextafter(b, math.inf)
                queue.append((right, p + 1, d + 1))
                queue.append((left, p, d + 1))
        tab.gid.append(gid)
    if not tab.leaf_value:
        raise ExportError("model has no leaves")
    return tab
