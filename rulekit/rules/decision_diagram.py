"""A first-hit rule list compiled into a decision diagram, so evaluation costs O(depth) per row.

Each node splits the region of input space it stands for (one numeric threshold with a side for
missing values, or a multiway nominal split) and keeps, in order, the candidate rules that can still
match there; a node whose first candidate holds everywhere in its region is a leaf naming that rule.
Splits are chosen to duplicate as few candidates as possible, so the rules of a tree compile back to
about the tree's own size. Thresholds are the canonical float64 bounds of :mod:`rulekit.rules.boxes`,
the same the generic evaluator uses: the diagram answers exactly what the rule list answers.

Lists whose diagram would grow too large or take too long to build (heavily overlapping or nested
rules: budgets proportional to the number of rules) or that use oblique tests are left to the generic
evaluator (``get`` returns None).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import numpy as np

from rulekit.ir import compiled as _compiled
from rulekit.rules.base import RuleBase
from rulekit.rules.boxes import LiteralSchema, NomSet, TooComplex, condition_boxes, no_gc
from rulekit.semantics import intervals

INF = math.inf
LEAF, NUMERIC, NOMINAL = _compiled.LEAF, _compiled.NUMERIC, _compiled.NOMINAL
_CHUNK = 1 << 14
_NODE_COST = 32  # work units per split node (choosing a split), next to one per candidate visit

_cache: OrderedDict[tuple, tuple[RuleBase, Any]] = OrderedDict()
CACHE_SIZE = 2048  # diagrams kept (LRU); above a forest's tree count, or every predict rebuilds them all


def get(rb: RuleBase, idx: tuple[int, ...]) -> Diagram | None:
    """The diagram of rules ``idx`` of ``rb`` (cached per rule base object), or None."""
    key = (id(rb), idx)
    hit = _cache.get(key)
    if hit is not None and hit[0] is rb:
        _cache.move_to_end(key)
        return hit[1]
    with no_gc():
        d = build(rb, idx)
    _cache[key] = (rb, d)
    while len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return d


_prev = intervals.next_down  # the float64 neighbours, as the rule algebra takes them
_next = intervals.next_up


# region of one key: numeric (lo, hi, miss) with lo > hi meaning "only missing"; nominal (codes, miss)


def _overlaps(c: Any, reg: tuple) -> bool:
    if reg[2] and c.missing:
        return True
    if isinstance(c, NomSet):
        return bool(c.codes & reg[0])
    lo, hi = reg[0], reg[1]
    if lo > hi:
        return False
    return any(a.at <= hi and b.at >= lo for a, b in c.intervals)


def _resolved(c: Any, reg: tuple) -> bool:
    if reg[2] and not c.missing:
        return False
    if isinstance(c, NomSet):
        return reg[0] <= c.codes
    lo, hi = reg[0], reg[1]
    if lo > hi:
        return True
    return any(a.at <= lo and b.at >= hi for a, b in c.intervals)


class Diagram:
    """Arrays of the compiled diagram; ``first_hit(M)`` gives the rule index per row (-1: none)."""

    def __init__(self, ct: _compiled.CompiledTree, rule: np.ndarray, depth: int):
        self.ct = ct
        self.rule = rule
        self.depth = depth
        self.numeric_only = ct.only_numeric
        n = ct.kind.size
        leaf = ct.kind == LEAF
        idx = np.arange(n)
        self.is_leaf = leaf
        self.feat = np.where(leaf, 0, ct.feature).astype(np.intp)
        self.bound = np.where(leaf, 0.0, ct.bound)
        ch = np.empty(2 * n, np.intp)
        ch[0::2] = np.where(leaf, idx, ct.left)
        ch[1::2] = np.where(leaf, idx, ct.right)
        self.ch = ch
        self.miss = np.where(leaf, idx, ct.missing).astype(np.intp)
        self.used = np.unique(ct.feature[~leaf]) if (~leaf).any() else np.zeros(0, np.intp)
        self.forest = _compiled.build_forest([ct]) if self.numeric_only else None  # the C walker

    def first_hit(self, M: np.ndarray) -> np.ndarray:
        if self.forest is not None and M.shape[0]:
            leaves = _compiled.apply_all([self.ct], self.forest, M)[0]
        elif self.numeric_only:
            leaves = self._walk(M)
        else:
            leaves = _compiled.apply(self.ct, M)
        return self.rule[leaves]

    def _walk(self, M: np.ndarray) -> np.ndarray:
        n, F = M.shape
        out = np.empty(n, np.intp)
        if self.depth == 0:
            out[:] = 0
            return out
        Mc = np.ascontiguousarray(M, dtype=np.float64)
        feat, bound, ch, miss, is_leaf = self.feat, self.bound, self.ch, self.miss, self.is_leaf
        for s in range(0, n, _CHUNK):
            flat = Mc[s:s + _CHUNK].ravel()
            m = flat.size // F if F else 0
            base = np.arange(m, dtype=np.intp) * F
            node = np.zeros(m, np.intp)
            rows = None
            nan = bool(self.used.size) and bool(np.isnan(Mc[s:s + m][:, self.used]).any())
            for it in range(self.depth):
                x = flat.take(base + feat.take(node))
                nxt = ch.take(2 * node + (x > bound.take(node)))
                if nan:
                    bad = np.isnan(x)
                    if bad.any():
                        nxt[bad] = miss.take(node[bad])
                node = nxt
                if it % 8 == 7 and it + 1 < self.depth:
                    done = is_leaf.take(node)
                    k = int(done.sum())
                    if k == node.size:
                        break
                    if 2 * k >= node.size:
                        if rows is None:
                            rows = np.arange(m, dtype=np.intp)
                        out[s + rows[done]] = node[done]
                        keep = ~done
                        rows, node, base = rows[keep], node[keep], base[keep]
            if rows is None:
                out[s:s + m] = node
            else:
                out[s + rows] = node
        return out


def build(rb: RuleBase, idx: tuple[int, ...], *, max_nodes: int | None = None,
          max_work: int | None = None) -> Diagram | None:
    """The diagram, or None when it would be too large or too slow to build.

    Both budgets grow with the input: ``max_nodes`` diagram nodes, and ``max_work`` work units (one per
    candidate visit plus ``_NODE_COST`` per split node; each split node scans its candidate list to choose a split and to filter its children, so a
    list of nested or heavily overlapping rules costs O(rules^2) and gives up here, early, to the
    generic evaluator instead of compiling for minutes).
    """
    schema = LiteralSchema(rb)
    cands: list[tuple[int, dict]] = []
    for i in idx:
        schema.where = f"rule {rb.rules[i].id or '#' + str(i + 1)}: "
        try:
            boxes = condition_boxes(rb.rules[i].condition, schema, limit=64)
        except TooComplex:
            return None
        for b in boxes:
            if any(isinstance(k, tuple) for k in b.items):
                return None  # oblique tests: generic evaluator
            cands.append((i, b.items))
    limit = max_nodes or (48 * len(cands) + 4096)
    work_limit = max_work or work_budget(len(cands))
    work = 0
    nominal_size = {k: schema.size(k) for k in range(len(schema.features)) if schema.is_nominal(k)}

    kinds: list[int] = []
    feats: list[int] = []
    bounds: list[float] = []
    lefts: list[int] = []
    rights: list[int] = []
    misses: list[int] = []
    rules: list[int] = []
    tables: dict[int, np.ndarray] = {}

    def new_node() -> int:
        kinds.append(LEAF)
        feats.append(-1)
        bounds.append(0.0)
        lefts.append(0)
        rights.append(0)
        misses.append(0)
        rules.append(-1)
        return len(kinds) - 1

    def region_of(region: dict, k: int) -> tuple:
        r = region.get(k)
        if r is None:
            if k in nominal_size:
                return (frozenset(range(-1, nominal_size[k])), None, True)
            return (-INF, INF, True)
        return r

    root = new_node()
    stack: list[tuple[int, list, dict, int]] = [(root, cands, {}, 0)]
    depth = 0
    while stack:
        node, cs, region, d = stack.pop()
        depth = max(depth, d)
        if len(kinds) > limit:
            return None
        if not cs:
            rules[node] = -1
            continue
        r0, rem0 = cs[0]
        if not rem0:
            rules[node] = r0
            continue
        work += len(cs) + _NODE_COST
        if work > work_limit:
            return None
        split = _choose(cs, rem0, region, region_of, nominal_size)
        k = split[0]
        if split[1] == "nominal":
            classes = split[2]
            size = nominal_size[k]
            table = np.zeros(size + 1, np.int64)
            kids = []
            miss_child = None
            for codes, has_miss in classes:
                child = new_node()
                kids.append(child)
                for code in codes:
                    table[size if code == -1 else code] = child
                if has_miss:
                    miss_child = child
                reg = (frozenset(codes), None, has_miss)
                stack.append((child, _filter(cs, k, reg), {**region, k: reg}, d + 1))
            # codes outside the region cannot reach this node: route them anywhere
            reach = region_of(region, k)[0]
            for code in range(-1, size):
                if code not in reach:
                    table[size if code == -1 else code] = kids[0]
            kinds[node] = NOMINAL
            feats[node] = k
            misses[node] = miss_child if miss_child is not None else kids[0]
            tables[node] = table
            continue
        _, _, s, side = split
        lo, hi, miss = region_of(region, k)
        left, right = new_node(), new_node()
        if s == INF:  # separate missing values: non-missing left, missing right
            lreg, rreg = (lo, hi, False), (INF, -INF, True)
        else:
            lreg = (lo, min(hi, s), miss and side == 0)
            rreg = (max(lo, _next(s)), hi, miss and side == 1)
        kinds[node] = NUMERIC
        feats[node] = k
        bounds[node] = s
        lefts[node], rights[node] = left, right
        misses[node] = left if side == 0 else right
        stack.append((right, _filter(cs, k, rreg), {**region, k: rreg}, d + 1))
        stack.append((left, _filter(cs, k, lreg), {**region, k: lreg}, d + 1))

    n = len(kinds)
    value = np.asarray(rules, dtype=np.float64).reshape(n, 1)
    ct = _compiled.CompiledTree(
        kind=np.asarray(kinds, np.int8), feature=np.asarray(feats, np.int64), bound=np.asarray(bounds),
        left=np.asarray(lefts, np.int64), right=np.asarray(rights, np.int64),
        missing=np.asarray(misses, np.int64), value=value, nominal=tables, linear={},
        node_ids=np.arange(n, dtype=np.int64))
    return Diagram(ct, np.asarray(rules, np.int64), depth)


def work_budget(n_cands: int) -> int:
    """Work units allowed for ``n_cands`` candidates. A tree's own rules cost about 40-50 units per
    candidate (500 to 20,000 leaves, depth 16 to 44); nested chains cost n^2/2 and heavily overlapping
    rules blow up the node count: those give up after about as much work as a tree of their size."""
    return 64 * n_cands + 65_536


def _filter(cs: list, k: Any, reg: tuple) -> list:
    out = []
    for r, rem in cs:
        c = rem.get(k)
        if c is None:
            out.append((r, rem))
        elif not _overlaps(c, reg):
            continue
        elif _resolved(c, reg):
            rem = dict(rem)
            del rem[k]
            out.append((r, rem))
        else:
            out.append((r, rem))
    return out


def _choose(cs: list, rem0: dict, region: dict, region_of, nominal_size: dict) -> tuple:
    """The split duplicating the fewest candidates (then the most balanced, then one of rule 0's keys)."""
    per_key: dict[Any, list] = {}
    for _, rem in cs:
        for k, c in rem.items():
            per_key.setdefault(k, []).append(c)
    best = None
    best_score = None
    total = len(cs)
    for order, (k, cons) in enumerate(per_key.items()):
        n0 = total - len(cons)
        reg = region_of(region, k)
        pref = 0 if k in rem0 else 1
        if k in nominal_size:
            cand = _nominal_option(k, cons, reg, n0)
        else:
            cand = _numeric_option(k, cons, reg, n0)
        if cand is None:
            continue
        score, split = cand
        score = (score[0], score[1], pref, order)
        if best_score is None or score < best_score:
            best, best_score = split, score
    if best is None:  # cannot happen for a consistent region; keep the walk total anyway
        k = next(iter(rem0))
        return (k, "numeric", INF, 1)
    return best


def _nominal_option(k: Any, cons: list, reg: tuple, n0: int):
    codes, _, miss = reg
    groups: dict[tuple, list] = {}
    order: list[tuple] = []
    for code in sorted(codes):
        sig = tuple(j for j, c in enumerate(cons) if code in c.codes)
        if sig not in groups:
            groups[sig] = []
            order.append(sig)
        groups[sig].append(code)
    miss_sig = None
    if miss:
        miss_sig = tuple(j for j, c in enumerate(cons) if c.missing)
        if miss_sig not in groups:
            groups[miss_sig] = []
            order.append(miss_sig)
    if len(order) < 2:
        return None
    dup = sum(len(s) for s in order) - len(cons) + n0 * (len(order) - 1)
    biggest = max(len(s) + n0 for s in order)
    classes = [(tuple(groups[s]), s == miss_sig) for s in order]
    return (dup, biggest), (k, "nominal", classes)


def _numeric_option(k: Any, cons: list, reg: tuple, n0: int):
    lo, hi, miss = reg
    points: set[float] = set()
    P_lo, P_hi, Q_lo, Q_hi = [], [], [], []
    for c in cons:
        a_eff, b_eff = INF, -INF
        if lo <= hi and len(c.intervals) == 1:  # the common case, without the loop
            a, b = c.intervals[0]
            a, b = a.at, b.at
            if a <= hi and b >= lo:
                a_eff = a if a > lo else lo
                b_eff = b if b < hi else hi
                if lo <= b < hi:
                    points.add(b)
                if lo < a <= hi:
                    points.add(_prev(a))
        elif lo <= hi:
            for a, b in c.intervals:
                if a.at <= hi and b.at >= lo:
                    a_eff = min(a_eff, max(a.at, lo))
                    b_eff = max(b_eff, min(b.at, hi))
                    if lo <= b.at < hi:
                        points.add(b.at)
                    if lo < a.at <= hi:
                        points.add(_prev(a.at))
        if miss and c.missing:
            Q_lo.append(a_eff)
            Q_hi.append(b_eff)
        else:
            P_lo.append(a_eff)
            P_hi.append(b_eff)
    best = None
    if points:
        S = np.fromiter(sorted(points), float, len(points))
        P_lo_s, P_hi_s = np.sort(P_lo), np.sort(P_hi)
        nP = len(P_lo)
        pl = np.searchsorted(P_lo_s, S, "right")
        ph = np.searchsorted(P_hi_s, S, "right")
        P_left, P_right, P_both = pl, nP - ph, pl - ph
        sides = (0, 1) if miss else (0,)
        Q_lo_s, Q_hi_s = np.sort(Q_lo), np.sort(Q_hi)
        nQ = len(Q_lo)
        for side in sides:
            if nQ == 0:
                ql = qr = qb = 0
            elif side == 0:  # missing rows go left
                qr = nQ - np.searchsorted(Q_hi_s, S, "right")
                ql, qb = nQ, qr
            else:
                ql = np.searchsorted(Q_lo_s, S, "right")
                qr, qb = nQ, ql
            both = P_both + qb + n0
            big = np.maximum(P_left + ql, P_right + qr) + n0
            j = int(np.lexsort((big, both))[0])
            score = (int(both[j]), int(big[j]))
            if best is None or score < best[0]:
                best = (score, (k, "numeric", float(S[j]), side))
    if miss:  # separate the missing values
        q_nonempty = sum(1 for a in Q_lo if a < INF)
        score = (n0 + q_nonempty, n0 + len(P_lo) + q_nonempty)
        if best is None or score < best[0]:
            best = (score, (k, "numeric", INF, 1))
    return best
