"""One tree as one CASE expression: nested while the dialect allows, flat (one WHEN per leaf) below.

A split whose missing branch is the right one reads ``CASE WHEN x <= b THEN left ELSE right END``;
one that sends missing values left reads ``CASE WHEN x > b THEN right ELSE left END``, so NULL
lands on the ELSE side without an extra test. When a tree is deeper than the dialect's CASE budget,
the subtree at the last allowed level becomes a flat CASE: one WHEN per leaf whose condition merges
the path's tests into one interval (or value set) per feature, ``OR x IS NULL`` where the path takes
the missing branch. Leaves whose output equals the ELSE output are dropped (the leaf conditions
are disjoint and cover every row). Subtrees whose leaves all give the same output collapse to it.
Everything walks with explicit stacks.
"""

from __future__ import annotations

import math
from typing import Any

import networkx as nx
import numpy as np

from rulekit import semantics
from rulekit.exporters.sql import expr
from rulekit.exporters.sql.dialect import Dialect
from rulekit.ir.model import Feature
from rulekit.ir.tree import children_by_branch, iter_preorder, root_of
from rulekit.semantics import routing

ALWAYS = ""  # a per-feature constraint every row satisfies


class Columns:
    """SQL for the model's inputs in one dialect: column names, nominal values, oblique sums."""

    def __init__(self, features: list[Feature], dialect: Dialect):
        self.d = dialect
        self.features = features
        self.names = [dialect.ident(f.name) for f in features]
        self._values: dict[int, list[str]] = {}

    def int_domain(self, j: int) -> bool:
        dom = self.features[j].domain or ()
        return bool(dom) and all(isinstance(v, int) and not isinstance(v, bool) for v in dom)

    def nominal_expr(self, j: int) -> str:
        """The expression compared with domain values (integer domains truncate like a C cast)."""
        f = self.features[j]
        if self.int_domain(j) and getattr(f, "match", None) != "exact":
            return self.d.trunc.format(self.names[j])
        return self.names[j]

    def values(self, j: int) -> list[str]:
        """Literal of each domain value of nominal feature ``j`` (integers, or text)."""
        out = self._values.get(j)
        if out is None:
            dom = self.features[j].domain or ()
            if self.int_domain(j):
                out = [self.d.integer(v) for v in dom]
            else:
                out = [self.d.string(str(v)) for v in dom]
            self._values[j] = out
        return out

    def nominal(self, j: int, codes: frozenset[int], missing: bool) -> str | None:
        """Rows whose value of ``j`` has a code in ``codes`` (-1 = outside the domain), or NULL when
        ``missing``. None: no row; :data:`ALWAYS`: every row."""
        size = len(self.features[j].domain or ())
        col = self.nominal_expr(j)
        vals = self.values(j)
        if len(codes) == size + 1:
            if missing:
                return ALWAYS
            core: str | None = f"{self.names[j]} = {self.names[j]}"
        elif not codes:
            core = None
        elif -1 in codes:
            rest = [vals[c] for c in range(size) if c not in codes]
            core = expr.in_list(col, rest, negated=True)
        else:
            core = expr.in_list(col, [vals[c] for c in sorted(codes)])
        return expr.with_missing(expr.is_null(self.names[j]), core, missing)

    def numeric(self, col: str, lo: float | None, hi: float | None, missing: bool) -> str | None:
        """``lo < col <= hi`` or NULL when ``missing``; None: no row; :data:`ALWAYS`: every row."""
        core = expr.interval(self.d, col, lo, hi)
        if missing and core == f"{col} = {col}":
            return ALWAYS
        return expr.with_missing(expr.is_null(col), core, missing)

    def linear(self, features: tuple[int, ...], weights: tuple[float, ...]) -> str:
        return expr.linear_sum(self.d, [(w, self.names[f]) for f, w in zip(features, weights)])


class TreeSQL:
    """A tree prepared once (boundaries, nominal routing), rendered as CASE for any leaf output."""

    def __init__(self, tree: nx.DiGraph, cols: Columns):
        self.cols = cols
        self.root = root_of(tree)
        self.order = list(iter_preorder(tree))
        self.kids: dict[Any, list] = {}
        self.info: dict[Any, tuple] = {}
        self.weight: dict[Any, float] = {}
        numeric = [n for n in self.order if tree.nodes[n]["kind"] in ("numeric", "linear")]
        bounds = _boundaries(tree, numeric)
        for n in self.order:
            a = tree.nodes[n]
            kind = a["kind"]
            self.weight[n] = float(a.get("n_samples", 0.0) or 0.0)
            if kind == "leaf":
                continue
            self.kids[n] = children_by_branch(tree, n)
            m = routing.missing_branch(a)
            if kind == "numeric":
                col = cols.names[a["feature"]]
                self.info[n] = ("n", ("n", a["feature"]), col, bounds[n], m)
            elif kind == "linear":
                col = cols.linear(a["features"], a["weights"])
                self.info[n] = ("n", ("l", col), col, bounds[n], m)
            else:
                self.info[n] = ("c", ("c", a["feature"]), a["feature"], _routes(tree, n, cols), m)

    # --- folding ------------------------------------------------------------------------------------
    def _fold(self, text: dict) -> tuple[dict, dict]:
        """Per node: the output text when every leaf below gives it (else None), and CASE height."""
        uni: dict[Any, str | None] = {}
        height: dict[Any, int] = {}
        for n in reversed(self.order):
            kids = self.kids.get(n)
            if kids is None:
                uni[n] = text[n]
                height[n] = 0
                continue
            first = uni[kids[0]]
            same = first is not None and all(uni[k] == first for k in kids)
            uni[n] = first if same else None
            height[n] = 0 if same else 1 + max(height[k] for k in kids)
        return uni, height

    # --- rendering ----------------------------------------------------------------------------------
    def case(self, text: dict, budget: int) -> str:
        """The tree as one expression whose value is ``text[leaf]``; CASE nesting stays <= ``budget``."""
        uni, height = self._fold(text)
        out: list[str] = []
        stack: list[Any] = [(self.root, 0)]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            node, level = item
            if uni[node] is not None:
                out.append(uni[node])
            elif level + height[node] > budget and level + 1 >= budget:
                out.append(self.flat(node, uni))
            else:
                stack.extend(reversed(self._nested(node, level + 1)))
        return "".join(out)

    def _nested(self, node, level: int) -> list:
        kind, _, col, route, m = self.info[node]
        left, right = (self.kids[node] + [None])[:2]
        d = self.cols.d
        if kind == "n":
            b = route
            if m == 1:
                return [f"CASE WHEN {expr.le(d, col, b)} THEN ", (left, level), " ELSE ", (right, level), " END"]
            if b == math.inf:  # never right, and missing goes left
                return [(left, level)]
            return [f"CASE WHEN {expr.gt(d, col, b)} THEN ", (right, level), " ELSE ", (left, level), " END"]
        # nominal: one WHEN per branch, the branch taking unseen values as ELSE
        accepted, fallback = route
        kids = self.kids[node]
        pieces: list[Any] = []
        for i, child in enumerate(kids):
            if i == fallback:
                continue
            cond = self.cols.nominal(col, accepted[i], i == m and m != fallback)
            if cond is None:
                continue  # unreachable branch
            pieces += [f" WHEN {cond} THEN ", (child, level)]
        if not pieces:
            return [(kids[fallback], level)]
        return ["CASE", *pieces, " ELSE ", (kids[fallback], level), " END"]

    def flat(self, top, uni: dict) -> str:
        """The subtree under ``top`` as one CASE with a WHEN per leaf (interval-merged paths)."""
        state: dict[tuple, tuple] = {}
        found: list[tuple[dict, str, float]] = []  # (state snapshot, output, weight)
        stack: list[Any] = [("visit", top)]
        while stack:
            item = stack.pop()
            if item[0] == "undo":
                _, key, old = item
                if old is None:
                    del state[key]
                else:
                    state[key] = old
                continue
            if item[0] == "visit":
                node = item[1]
                if uni[node] is not None:
                    found.append((self._condition(state), uni[node], self.weight.get(node, 0.0)))
                    continue
                for branch in reversed(range(len(self.kids[node]))):
                    stack.append(("enter", node, branch))
                continue
            _, node, branch = item
            key, new = self._step(state, node, branch)
            if new is None:
                continue  # no row reaches this child
            stack.append(("undo", key, state.get(key)))
            state[key] = new
            stack.append(("visit", self.kids[node][branch]))
        return _flat_case(found)

    def _step(self, state: dict, node, branch: int) -> tuple[tuple, tuple | None]:
        """The constraint after taking ``branch`` at ``node`` (None when it admits no row)."""
        kind, key, col, route, m = self.info[node]
        takes_missing = branch == m
        if kind == "n":
            lo, hi, miss, _ = state.get(key, (None, None, True, col))
            if branch == 0:
                hi = route if hi is None else min(hi, route)
            else:
                lo = route if lo is None else max(lo, route)
            miss = miss and takes_missing
            if not miss and (lo == math.inf or (lo is not None and hi is not None and lo >= hi)):
                return key, None
            return key, (lo, hi, miss, col)
        accepted, _ = route
        codes, miss, _ = state.get(key, (None, True, col))
        codes = accepted[branch] if codes is None else codes & accepted[branch]
        miss = miss and takes_missing
        if not codes and not miss:
            return key, None
        return key, (codes, miss, col)

    def _condition(self, state: dict) -> str | None:
        parts = []
        for key, st in state.items():
            if key[0] == "c":
                codes, miss, j = st
                text = self.cols.nominal(j, codes, miss)
            else:
                lo, hi, miss, col = st
                text = self.cols.numeric(col, lo, hi, miss)
            if text is None:
                return None
            if text:
                parts.append(text)
        return expr.join(parts, "AND")


def _flat_case(found: list[tuple[str | None, str, float]]) -> str:
    """CASE over leaf conditions; the output with most weight becomes ELSE and its leaves vanish."""
    found = [f for f in found if f[0] is not None]
    totals: dict[str, list[float]] = {}
    for i, (_, out, w) in enumerate(found):
        t = totals.setdefault(out, [0.0, 0, -i])
        t[0] += w
        t[1] += 1
    default = max(totals, key=lambda o: tuple(totals[o]))
    rest = [(c, o, w, i) for i, (c, o, w) in enumerate(found) if o != default]
    rest.sort(key=lambda r: (-r[2], r[3]))
    return expr.case([(c, o) for c, o, _, _ in rest], default)


def _boundaries(tree: nx.DiGraph, nodes: list) -> dict:
    """Canonical float64 boundary ``b`` (branch 0 iff ``x <= b``) of each numeric/linear split."""
    out: dict = {}
    groups: dict[tuple, list] = {}
    for n in nodes:
        a = tree.nodes[n]
        groups.setdefault((a["op"], a["precision"]), []).append(n)
    for (op, precision), ns in groups.items():
        t = np.asarray([tree.nodes[n]["threshold"] for n in ns], dtype=np.float64)
        b = semantics.boundary_array(op, t, precision)
        out.update({n: float(v) for n, v in zip(ns, b)})
    return out


def _routes(tree: nx.DiGraph, node, cols: Columns) -> tuple[list[frozenset], int]:
    """Codes each branch of a nominal split takes (-1 = unseen) and the branch unseen values take
    (:mod:`rulekit.semantics.routing`)."""
    a = tree.nodes[node]
    size = len(cols.features[a["feature"]].domain or ())
    out = tree.succ[node]
    table = routing.nominal_table(out.values(), routing.missing_branch(a), size)
    return routing.codes_by_branch(table, len(out)), routing.unseen_branch(table)


__all__ = ["ALWAYS", "Columns", "TreeSQL"]
