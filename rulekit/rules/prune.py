"""Rule pruning on data (RuleBase -> RuleBase), C4.5rules style (seed 002, "pruning rules").

``pessimistic``    per rule, greedily drop the condition whose removal gives the lowest pessimistic
                   error -- the upper limit of the binomial confidence interval at ``cf`` (C4.5's
                   U_CF(e, n)) -- while it is not above the rule's own. Works on the training data:
                   no holdout needed. A rule keeps at least one condition (``if true`` is the
                   default's job: a rule of the majority class otherwise became one).
``reduced_error``  per rule, drop conditions (and whole rules) while the rule base's accuracy on a
                   held-out pruning set does not fall.
``organize``       C4.5rules' second half: duplicates out, each class's rules (optionally the
                   minimum-description-length subset), classes ordered by false positives, the
                   default class from the uncovered cases, then rules deleted while that does not
                   increase the errors; with MDL, a list without the rules of one class (that class
                   the default) when it is shorter to describe. Conclusions get the class
                   frequencies of the rows each rule decides. Given the rows the tree was grown on
                   (``grown_from``), the MDL choice counts each rule's errors there pessimistically.
                   Then each class's rules first get joined candidates (:mod:`rulekit.rules.join`:
                   a nominal test widened by another rule's or a supported cell's values), and
                   the refinement may take a cell of other classes out of a rule
                   (:mod:`rulekit.rules.exclude`: one nominal value, e.g. ``a1 != v3``).

A rule's conditions are the bounds of its box: ``20 < x <= 40`` is two conditions that prune
separately, ``(x <= 5 or x is missing)`` one. Rules whose condition is not a single conjunction are
kept as they are.

Why one module of ~700 lines: the three passes and the MDL choice share the row context (``_Ctx``, the
condition units and their truth rows); split by job, ``organize``/MDL would import those helpers
from here while this module re-exports ``organize`` (an import cycle), and four mutation-test
files (tests/rules/test_prune_mutants*.py) reach the private functions here by name. A split
moves the shared context to its own module first (session 5 left it; docs/rules.md, Open).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.rules import engine, exclude, join, widen
from rulekit.rules.base import Conclusion, Rule, RuleBase
from rulekit.rules.outcomes import class_index
from rulekit.rules.boxes import (HIGH, LOW, UNSEEN, Box, LiteralSchema, NomSet, NumSet, TooComplex, box_condition,
                                 condition_boxes, count_literals, no_gc)
from rulekit.rules.stats import class_codes


def ucf(e: float, n: float, cf: float = 0.25) -> float:
    """C4.5's pessimistic error rate: the upper ``1 - cf`` confidence limit of e errors in n cases."""
    if n <= 0:
        return 1.0
    if e <= 0:
        return 1.0 - cf ** (1.0 / n)
    if e >= n:
        return 1.0
    from scipy.special import betaincinv  # noqa: PLC0415

    return float(betaincinv(e + 1.0, n - e, 1.0 - cf))


# --- conditions as prunable units --------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """One prunable condition of a box: a numeric bound (``lo``/``hi``) or a whole constraint."""

    key: Any
    part: str  # "lo", "hi" or "all"
    constraint: Any  # the unit on its own (its TRUE set)


def units_of(box: Box) -> list[Unit]:
    out: list[Unit] = []
    for k, c in box.items.items():
        if isinstance(c, NumSet) and len(c.intervals) == 1:
            lo, hi = c.intervals[0]
            eq = (lo.lit is not None and hi.lit is not None and getattr(lo.lit, "op", None) == ">="
                  and getattr(hi.lit, "op", None) == "<=" and lo.lit.value == hi.lit.value)
            if not eq and (lo.at > -math.inf or hi.at < math.inf):
                if lo.at > -math.inf:
                    out.append(Unit(k, "lo", NumSet(((lo, HIGH),), c.missing)))
                if hi.at < math.inf:
                    out.append(Unit(k, "hi", NumSet(((LOW, hi),), c.missing)))
                continue
        out.append(Unit(k, "all", c))
    return out


def box_of(box: Box, keep: list[Unit]) -> Box:
    """The box with only the units in ``keep``."""
    parts: dict[Any, set[str]] = {}
    for u in keep:
        parts.setdefault(u.key, set()).add(u.part)
    items = {}
    for k, c in box.items.items():
        p = parts.get(k)
        if not p:
            continue
        if "all" in p or p == {"lo", "hi"}:
            items[k] = c
        elif p == {"lo"}:
            items[k] = NumSet(((c.intervals[0][0], HIGH),), c.missing)
        else:
            items[k] = NumSet(((LOW, c.intervals[0][1]),), c.missing)
    return Box(items)


@dataclass
class _Ctx:
    rb: RuleBase
    schema: LiteralSchema
    ev: engine.Evaluator
    yc: np.ndarray  # class index per row (-1: not a class of the base)
    classes: list


def _context(rb: RuleBase, X: Any, y: Any) -> _Ctx:
    if rb.task != "classification":
        raise RulekitError("rule pruning needs a classification rule base")
    M = engine.matrix(rb, X)
    classes = engine.outcomes(rb).classes
    yc = class_codes(y, classes)
    if len(yc) != M.shape[0]:
        raise RulekitError(f"prune data: {M.shape[0]} rows but {len(yc)} labels")
    schema = LiteralSchema(rb)
    return _Ctx(rb, schema, engine.Evaluator(schema, M), yc, classes)


def _single_box(ctx: _Ctx, r: Rule) -> Box | None:
    try:
        boxes = condition_boxes(r.condition, ctx.schema)
    except TooComplex:
        return None
    return boxes[0] if len(boxes) == 1 else None


def _truths(ctx: _Ctx, units: list[Unit]) -> np.ndarray:
    if not units:
        return np.zeros((0, ctx.ev.n), bool)
    return np.stack([ctx.ev.member(u.key, u.constraint) for u in units])


def _with_box(ctx: _Ctx, r: Rule, box: Box) -> Rule:
    return r.model_copy(update={"condition": box_condition(box, ctx.schema)})


# --- pessimistic (C4.5rules) ---------------------------------------------------------------------------


def pessimistic(rb: RuleBase, X: Any, y: Any, *, cf: float = 0.25) -> RuleBase:
    """Generalize every rule by dropping conditions while its pessimistic error does not grow."""
    with no_gc():
        ctx = _context(rb, X, y)
        oc = engine.outcomes(rb)
        rules = []
        for i, r in enumerate(rb.rules):
            box = _single_box(ctx, r)
            if box is None or oc.cls[i] < 0:
                rules.append(r)
                continue
            units = units_of(box)
            keep = _prune_pessimistic(_truths(ctx, units), ctx.yc == oc.cls[i], cf)
            rules.append(_with_box(ctx, r, box_of(box, [u for u, k in zip(units, keep) if k])))
        return rb.model_copy(update={"rules": tuple(rules)})


def _prune_pessimistic(T: np.ndarray, good: np.ndarray, cf: float) -> list[bool]:
    k = T.shape[0]
    keep = [True] * k
    if k == 0:
        return keep
    fails = (~T).sum(axis=0)
    if not (fails == 0).any():  # no row to judge it by: generalising it would be a guess
        return keep
    while True:
        cover = fails == 0
        n = int(cover.sum())
        e = n - int((cover & good).sum())
        current = ucf(e, n, cf)
        near = np.flatnonzero(fails == 1)
        best, best_u = None, None
        if sum(keep) <= 1:  # a rule without conditions is the default's job, not a rule
            return keep
        for u in range(k):
            if not keep[u]:
                continue
            gained = near[~T[u, near]]
            n2 = n + gained.size
            e2 = e + gained.size - int(good[gained].sum())
            est = ucf(e2, n2, cf)
            if best_u is None or est < best_u - 1e-12:
                best, best_u = u, est
        if best is None or best_u > current + 1e-12:
            return keep
        keep[best] = False
        fails = fails - (~T[best])


# --- missing values the data never showed ------------------------------------------------------------------


def drop_unseen_missing(rb: RuleBase, X: Any, y: Any) -> RuleBase:
    """``(x <= 5 or x is missing)`` becomes ``x <= 5`` when no row of the data misses ``x``: the
    tree's choice of a side for missing values that it never saw is not something the data says,
    and a pruned rule base is not a copy of the tree anyway. Predictions on the data do not change;
    a row missing ``x`` later falls to the next rule or the default. Likewise a set test naming all
    values of the domain but a few (``f not in {a, b, c}``, which also holds for values the domain
    lacks) becomes the shorter positive test (``f = d``) when no row of the data has such a value."""
    with no_gc():
        ctx = _context(rb, X, y)
        seen: dict[Any, bool] = {}
        rules = []
        for r in rb.rules:
            box = _single_box(ctx, r)
            if box is None:
                rules.append(r)
                continue
            items = dict(box.items)
            for k, c in box.items.items():
                if c.missing and not c.with_missing(False).is_empty:
                    if k not in seen:
                        seen[k] = bool(np.isnan(ctx.ev.column(k)).any())
                    if not seen[k]:
                        c = items[k] = c.with_missing(False)
                if isinstance(c, NomSet) and UNSEEN in c.codes and 0 < len(c.codes) - 1 <= c.size // 2:
                    if ("unseen", k) not in seen:
                        seen[("unseen", k)] = bool((ctx.ev.column(k) == UNSEEN).any())
                    if not seen[("unseen", k)]:
                        items[k] = NomSet(c.codes - {UNSEEN}, c.size, c.missing)
            rules.append(r if items == box.items else _with_box(ctx, r, Box(items)))
        return rb.model_copy(update={"rules": tuple(rules)})


# --- reduced error ---------------------------------------------------------------------------------------


def reduced_error(rb: RuleBase, X: Any, y: Any) -> RuleBase:
    """Drop conditions, then whole rules, while first-hit accuracy on the pruning set does not fall."""
    with no_gc():
        ctx = _context(rb, X, y)
        oc = engine.outcomes(rb)
        n = ctx.ev.n
        R = len(rb.rules)
        boxes = [_single_box(ctx, r) for r in rb.rules]
        units = [units_of(b) if b is not None else [] for b in boxes]
        T = [_truths(ctx, u) for u in units]
        keep = [[True] * len(u) for u in units]
        match = np.zeros((R, n), bool)
        for i, r in enumerate(rb.rules):
            match[i] = ctx.ev.true(r.condition) if boxes[i] is None else (
                T[i].all(axis=0) if len(units[i]) else np.ones(n, bool))
        alive = np.ones(R, bool)
        cls = oc.cls
        default = cls[-1]
        first = _first(match, alive)
        pred = np.where(first >= 0, cls[np.maximum(first, 0)], default)
        for i in range(R):
            if boxes[i] is None or cls[i] < 0:
                continue
            fails = (~T[i]).sum(axis=0) if len(units[i]) else np.zeros(n, int)
            while True:
                best, best_d, best_rows = None, None, None
                for u in range(len(units[i]) if sum(keep[i]) > 1 else 0):
                    if not keep[i][u]:
                        continue
                    rows = np.flatnonzero((fails == 1) & ~T[i][u])
                    rows = rows[(first[rows] > i) | (first[rows] < 0)]
                    d = int((ctx.yc[rows] == cls[i]).sum() - (ctx.yc[rows] == pred[rows]).sum())
                    if best_d is None or d > best_d:
                        best, best_d, best_rows = u, d, rows
                if best is None or best_d < 0:
                    break
                keep[i][best] = False
                fails = fails - (~T[i][best])
                match[i] = fails == 0
                first[best_rows] = i
                pred[best_rows] = cls[i]
            # the whole rule: rows it decides go to the next matching rule or the default
            rows = np.flatnonzero(first == i)
            alive[i] = False
            nxt = _first(match[:, rows], alive) if rows.size else np.zeros(0, np.int64)
            new = np.where(nxt >= 0, cls[np.maximum(nxt, 0)], default)
            d = int((ctx.yc[rows] == new).sum() - (ctx.yc[rows] == cls[i]).sum())
            if d >= 0:
                first[rows] = nxt
                pred[rows] = new
            else:
                alive[i] = True
        out = []
        for i, r in enumerate(rb.rules):
            if not alive[i]:
                continue
            if boxes[i] is None:
                out.append(r)
            else:
                out.append(_with_box(ctx, r, box_of(boxes[i], [u for u, k in zip(units[i], keep[i]) if k])))
        return rb.model_copy(update={"rules": tuple(out)})


def _first(match: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """Index of the first alive matching rule per column (-1: none)."""
    m = match & alive[:, None]
    anym = m.any(axis=0)
    return np.where(anym, np.argmax(m, axis=0), -1)


# --- C4.5rules: class subsets, order, default, deletion ----------------------------------------------------


def organize(rb: RuleBase, X: Any, y: Any, *, mdl: bool = False, positive: Any = None,
             theory_weight: float = 0.5, min_rules: int = 0, grown_from: int | None = None) -> RuleBase:
    """Turn pruned (overlapping) rules into a C4.5rules decision list with a default class;
    deleting rules that add no errors stops at ``min_rules``. Rows from ``grown_from`` on are the
    rows the tree was grown on (``to_rules`` pools the pruning rows first): in the MDL choice each
    rule's errors on them count as C4.5's pessimistic estimate (:func:`_grown_extra`)."""
    with no_gc():
        return _organize(rb, X, y, mdl, positive, theory_weight, min_rules, grown_from)


def _organize(rb: RuleBase, X: Any, y: Any, mdl: bool, positive: Any, theory_weight: float,
              min_rules: int = 0, grown_from: int | None = None) -> RuleBase:
    ctx = _context(rb, X, y)
    grown = None
    if grown_from is not None:
        if not 0 <= grown_from <= ctx.ev.n:
            raise RulekitError(f"grown_from must be a row index between 0 and {ctx.ev.n} (got {grown_from})")
        grown = np.zeros(ctx.ev.n, bool)
        grown[grown_from:] = True
    oc = engine.outcomes(rb)
    K = len(ctx.classes)
    n = ctx.ev.n
    pos = None
    if positive is not None:
        pos = class_index(ctx.classes, positive, "positive class: ")
    # candidates: (rule, class, match, box); duplicates out. A rule another rule of its class subsumes
    # stays: the wider one may be a generalisation gone too far, and the subset choice and the
    # deletion below decide which goes (removing it first lost concept terms, docs/rules.md).
    cands: list[tuple[Rule, int, np.ndarray, Box | None]] = []
    seen: set = set()
    for i, r in enumerate(rb.rules):
        c = int(oc.cls[i])
        if c < 0 or (pos is not None and c != pos):
            continue
        box = _single_box(ctx, r)
        sig = (c, box.signature() if box is not None else id(r))
        if sig in seen:
            continue
        seen.add(sig)
        cands.append((r, c, ctx.ev.true(r.condition), box))
    by_class: dict[int, list] = {}
    for cd in cands:
        by_class.setdefault(cd[1], []).append(cd)
    if mdl:
        stats = _feature_stats(ctx)
        for c, lst in by_class.items():
            if grown is not None:  # the default path's choice (measured there only, session 8)
                lst = lst + _joined(ctx, lst, ctx.yc == c, ~grown)
            lst = _mdl_subset(lst, ctx.yc == c, stats, theory_weight, grown)
            by_class[c] = _mdl_refine(ctx, lst, ctx.yc == c, stats, theory_weight, grown)
    # classes with the fewest false positives first
    def fp(c: int) -> int:
        cov = np.zeros(n, bool)
        for cd in by_class[c]:
            cov |= cd[2]
        return int((cov & (ctx.yc != c)).sum())

    order = sorted(by_class, key=lambda c: (fp(c), c))
    ordered = [cd for c in order for cd in by_class[c]]
    default = _default_class(ctx, [cd[2] for cd in ordered], K, pos)
    ordered = _delete_rules(ctx, ordered, default, min_rules)
    if mdl and pos is None:
        ordered, default = _shortest_list(ctx, by_class, order, ordered, default, stats, theory_weight,
                                          min_rules)
    return _rebuild(rb, ctx, [(cd[0], cd[1]) for cd in ordered], default)


def _joined(ctx: _Ctx, lst: list, good: np.ndarray, pruning: np.ndarray) -> list:
    """One class's joined candidates (:mod:`rulekit.rules.join`) as candidates of this module."""
    out = []
    for i, box, m, _, _ in join.joins([cd[3] for cd in lst], [cd[2] for cd in lst], good, pruning, ucf,
                                      lambda box: _box_rows(ctx, box)):
        out.append((_with_box(ctx, lst[i][0], box), lst[i][1], m, box))
    return out


def _box_rows(ctx: _Ctx, box: Box) -> np.ndarray:
    """The rows a box holds on."""
    rows = [ctx.ev.member(k, c) for k, c in box.items.items()]
    return np.logical_and.reduce(rows) if rows else np.ones(ctx.ev.n, bool)


def _shortest_list(ctx: _Ctx, by_class: dict, order: list, ordered: list, default: int, stats: dict,
                   w: float, min_rules: int = 0) -> tuple[list, int]:
    """C4.5rules' list, or for some class d the other classes' rules with d as the default: the one
    with the shortest description (errors + ``w`` * theory bits) on the data. A class that is cheaper
    to describe as what is left over gets no rules of its own (they are exceptions to exceptions)."""
    n = ctx.ev.n
    K = len(ctx.classes)

    def bits(lst: list, d: int) -> float:
        e = _errors(ctx, lst, d)
        return (_log2_binom(n, e) + e * math.log2(max(1, K - 1))
                + w * sum(_theory_bits(cd[3], stats) for cd in lst))

    best = (bits(ordered, default), ordered, default)
    for d in sorted(range(K), key=lambda c: -int((ctx.yc == c).sum())):  # the majority first on ties
        lst = _delete_rules(ctx, [cd for c in order if c != d for cd in by_class[c]], d, min_rules)
        b = bits(lst, d)
        if b < best[0] - 1e-9 and (len(lst) >= min_rules or len(lst) >= len(best[1])):
            best = (b, lst, d)
    return best[1], best[2]


def _default_class(ctx: _Ctx, matches: list[np.ndarray], K: int, pos: int | None) -> int:
    cov = np.zeros(ctx.ev.n, bool)
    for m in matches:
        cov |= m
    yc = ctx.yc
    overall = np.bincount(yc[yc >= 0], minlength=K)
    if pos is not None:
        overall[pos] = -1
    unc = yc[~cov & (yc >= 0)]
    counts = np.bincount(unc, minlength=K) if unc.size else np.zeros(K, int)
    if pos is not None:
        counts[pos] = -1
    if counts.max() <= 0:
        counts = overall
    best = counts.max()
    ties = [c for c in range(K) if counts[c] == best]
    return max(ties, key=lambda c: (overall[c], -c))


def _errors(ctx: _Ctx, rules: list, default: int) -> int:
    n = ctx.ev.n
    pred = np.full(n, default, np.int64)
    open_ = np.ones(n, bool)
    for cd in rules:
        hit = cd[2] & open_
        pred[hit] = cd[1]
        open_ &= ~hit
    return int((pred != ctx.yc).sum())


def _delete_rules(ctx: _Ctx, rules: list, default: int, min_rules: int = 0) -> list:
    """Delete rules while that does not increase the training errors (largest gain first), down to
    ``min_rules``. Deleting rule j changes only the rows j decides (they pass to the next rule that
    holds, else the default), so one pass over the rows scores every deletion (:func:`_deletion_errors`)."""
    rules = list(rules)
    current = _errors(ctx, rules, default)
    while len(rules) > min_rules:
        errs = _deletion_errors(ctx, rules, default)
        best, best_err = None, None
        for j in range(len(rules)):
            key = (int(errs[j]), -count_literals(rules[j][0].condition), -j)
            if best_err is None or key < best_err:
                best, best_err = j, key
        if best_err[0] > current:
            return rules
        current = best_err[0]
        del rules[best]
    return rules


def _deletion_errors(ctx: _Ctx, rules: list, default: int) -> np.ndarray:
    """Per rule j, the errors of ``rules`` without rule j (first hit, ``default`` last): a row's first
    and second rules that hold give its label with and without its first rule."""
    n = ctx.ev.n
    first, second = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    for i, cd in enumerate(rules):
        m = cd[2]
        second[m & (first >= 0) & (second < 0)] = i
        first[m & (first < 0)] = i
    cls = np.array([cd[1] for cd in rules] + [default], np.int64)  # index -1: the default
    wrong_now = cls[first] != ctx.yc
    wrong_then = cls[second] != ctx.yc
    hit = first >= 0
    delta = np.bincount(first[hit], weights=(wrong_then[hit].astype(np.int64) - wrong_now[hit]),
                        minlength=len(rules))
    return int(wrong_now.sum()) + delta


def _rebuild(rb: RuleBase, ctx: _Ctx, rules: list[tuple[Rule, int]], default: int) -> RuleBase:
    """Rules in order, each concluding its class with the frequencies of the rows it decides."""
    n = ctx.ev.n
    K = len(ctx.classes)
    open_ = np.ones(n, bool)
    out = []
    for j, (r, c) in enumerate(rules):
        hit = ctx.ev.true(r.condition) & open_
        open_ &= ~hit
        out.append(r.model_copy(update={"id": f"r{j + 1}", "conclusion": _concl(ctx, hit, c, K), "stats": {}}))
    base = rb.model_copy(update={"rules": tuple(out), "default": _concl(ctx, open_, default, K),
                                 "semantics": "first-hit"})
    return base


def _concl(ctx: _Ctx, rows: np.ndarray, c: int, K: int) -> Conclusion:
    yc = ctx.yc[rows]
    counts = np.bincount(yc[yc >= 0], minlength=K).astype(float)
    if counts.sum() > 0:
        dist = tuple(float(v) for v in counts / counts.sum())
    else:
        dist = tuple(1.0 if k == c else 0.0 for k in range(K))
    return Conclusion(label=ctx.classes[c], distribution=dist)


# --- minimum description length (C4.5rules' subset choice) ---------------------------------------------------


def _log2_binom(n: int, k: int) -> float:
    if k <= 0 or k >= n:
        return 0.0
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)


def _feature_stats(ctx: _Ctx) -> dict:
    """Bits to name a feature and to pick a test on it (numeric: one of its distinct values)."""
    F = len(ctx.schema.features)
    out = {"feature": math.log2(max(2, F))}
    for k, f in enumerate(ctx.schema.features):
        if f.kind == "nominal":
            out[k] = math.log2(max(2, ctx.schema.size(k)))
        else:
            col = ctx.ev.column(k)
            out[k] = math.log2(max(2, np.unique(col[~np.isnan(col)]).size)) + 1.0
    return out


def _theory_bits(box: Box | None, stats: dict) -> float:
    if box is None:
        return 64.0
    units = units_of(box)
    bits = sum(stats["feature"] + stats.get(u.key, 8.0) for u in units)
    return bits - math.lgamma(len(units) + 1) / math.log(2)


# C4.5's pessimistic confidence for the errors a rule makes on the rows that grew it (the MDL choice
# with training rows). 0.05: of 0.25 (C4.5's default), 0.1 and 0.05 measured, the one that kept a
# 5-condition rule on 5 noisy training rows out of the subset (docs/rules.md, session 7b).
GROWN_CF = 0.05


def _grown_extra(m: np.ndarray, good: np.ndarray, grown: np.ndarray, cf: float = GROWN_CF) -> float:
    """Errors a rule is charged beyond those it makes on the rows that grew it: ``n * U_cf(e, n) - e``
    for its ``n`` such rows, ``e`` of them not of its class. The tree fit those rows, so their count
    is optimistic, most for a rule with few of them (5 error-free rows: 2.25 errors at cf 0.05)."""
    rows = m & grown
    return _grown_charge(int(rows.sum()), int((rows & ~good).sum()), cf)


def _grown_charge(n: int, e: int, cf: float = GROWN_CF) -> float:
    """:func:`_grown_extra` from the counts: ``n`` rows that grew the rule, ``e`` errors among them."""
    return n * ucf(e, n, cf) - e if n else 0.0


def _class_cost(matches: list[np.ndarray], theory: list[float], good: np.ndarray, w: float,
                extra: list[float] | None = None) -> float:
    """Exception bits (false positives, false negatives) plus ``w`` times the theory bits; ``extra``
    (per rule, :func:`_grown_extra`) adds to the false positives, which may then be fractional."""
    N = good.size
    cov = np.zeros(N, bool)
    for m in matches:
        cov |= m
    r = int(cov.sum())
    fp = int((cov & ~good).sum())
    fn = int((~cov & good).sum())
    if extra:
        fp = _charged(r, fp, sum(extra))
    return _log2_binom(r, fp) + _log2_binom(N - r, fn) + w * sum(theory)


def _charged(r: int, fp: int, extra: float) -> float:
    """The false positives with the pessimistic charge added, capped at half the covered rows: the
    exception bits log2 C(r, fp) fall again past r/2, so an uncapped charge could make a rule with
    more errors cheaper. A count already past r/2 stays as it is (C4.5's own encoding there)."""
    return min(fp + extra, max(fp, r / 2))


def _cost_of(rules: tuple, good: np.ndarray, w: float, gone: Any = (), j: int = -1, new: tuple = ()) -> float:
    """The class cost of the alive rules but those in ``gone``, rule ``j`` replaced by ``new`` (its
    match, theory bits, extra); ``rules``: the lists (matches, theory, extra, alive)."""
    matches, theory, extra, alive = rules
    live = [i for i, a in enumerate(alive) if a and i not in gone]
    ms = [new[0] if i == j else matches[i] for i in live]
    ts = [new[1] if i == j else theory[i] for i in live]
    xs = [new[2] if i == j else extra[i] for i in live]
    return _class_cost(ms, ts, good, w, xs)


def _mdl_refine(ctx: _Ctx, lst: list, good: np.ndarray, stats: dict, w: float,
                grown: np.ndarray | None = None) -> list:
    """Drop single conditions (or whole rules) while the class's description length shrinks
    (``grown``: the rows that grew the rules, their errors counted pessimistically). With ``grown``
    (the default path) a rule may also lose one value of a nominal feature whose cell is mostly
    another class (:mod:`rulekit.rules.exclude`): dropping never takes such a cell out again; or
    gain one whose cell is mostly its class (:mod:`rulekit.rules.widen`)."""
    lst = list(lst)
    if not lst:
        return lst
    units = [units_of(cd[3]) if cd[3] is not None else None for cd in lst]
    truths = [_truths(ctx, u) if u is not None else None for u in units]
    keep = [[True] * len(u) if u is not None else None for u in units]
    matches = [cd[2] for cd in lst]
    theory = [_theory_bits(cd[3], stats) for cd in lst]
    alive = [True] * len(lst)
    boxes = [cd[3] for cd in lst]
    extra = [_grown_extra(m, good, grown) if grown is not None else 0.0 for m in matches]
    changed = [False] * len(lst)
    rules = (matches, theory, extra, alive)
    current = _cost_of(rules, good, w)
    while True:
        best = None
        for j in range(len(lst)):
            if not alive[j]:
                continue
            c = _cost_of(rules, good, w, gone={j})  # the whole rule
            if best is None or c < best[0]:
                best = (c, j, None)
            if units[j] is None:
                continue
            for u in range(len(units[j])):
                if not keep[j][u]:
                    continue
                keep[j][u] = False
                rows = [t for t, k in zip(truths[j], keep[j]) if k]
                m = np.logical_and.reduce(rows) if rows else np.ones(good.size, bool)
                box = box_of(boxes[j], [uu for uu, k in zip(units[j], keep[j]) if k])
                t_new = _theory_bits(box, stats)
                x_new = _grown_extra(m, good, grown) if grown is not None else 0.0
                keep[j][u] = True
                gone = _subsumed(box, boxes, alive, j)  # they go with the wider rule (their theory bits saved)
                c = _cost_of(rules, good, w, gone, j, (m, t_new, x_new))
                if c < best[0]:
                    best = (c, j, (u, m, t_new, box, gone, x_new))
        if grown is not None and best is not None:
            best = _best_exclusion(ctx, best, good, stats, w, grown, rules, boxes)
        if best is None or best[0] >= current - 1e-9:
            break
        current, j, change = best
        if change is None:
            alive[j] = False
            continue
        u, m, t_new, box, gone, x_new = change
        matches[j], theory[j], boxes[j], extra[j] = m, t_new, box, x_new
        units[j] = units_of(box)
        truths[j] = _truths(ctx, units[j])
        keep[j] = [True] * len(units[j])
        changed[j] = True
        for i in gone:
            alive[i] = False
    out = []
    for j, cd in enumerate(lst):
        if not alive[j]:
            continue
        if not changed[j]:
            out.append(cd)
            continue
        out.append((_with_box(ctx, cd[0], boxes[j]), cd[1], matches[j], boxes[j]))
    return out


def _subsumed(box: Box, boxes: list, alive: list, j: int) -> set:
    """The alive rules of the class other than ``j`` that ``box`` (rule ``j`` widened) subsumes."""
    return {i for i in range(len(boxes)) if alive[i] and i != j and boxes[i] is not None and box.subsumes(boxes[i])}


def _best_exclusion(ctx: _Ctx, best: tuple, good: np.ndarray, stats: dict, w: float, grown: np.ndarray,
                    rules: tuple, boxes: list) -> tuple:
    """``best`` or a cheaper move that takes one value of a nominal feature out of a rule or puts
    one into its set test (:mod:`rulekit.rules.widen`; ``rules``: the lists (matches, theory,
    extra, alive))."""
    matches, _, _, alive = rules
    nominal = [(k, ctx.schema.size(k)) for k, f in enumerate(ctx.schema.features) if f.kind == "nominal"]

    def rate(n: int, g: int, ng: int, eg: int) -> float:  # rows of the class, those that grew the rules charged
        return ucf(g + _grown_charge(ng, eg), n)

    covers = np.zeros(good.size, np.int32)  # alive rules matching each row
    for m, a in zip(matches, alive):
        if a:
            covers += m
    for j in range(len(boxes)):
        if not alive[j] or boxes[j] is None:
            continue
        alone = covers == matches[j]  # no other alive rule of the class matches
        moves = itertools.chain(
            exclude.narrowed(boxes[j], matches[j], alone, good, grown, nominal, ctx.ev.column, rate),
            widen.widened(boxes[j], matches[j], good, grown, ctx.ev.column, lambda box: _box_rows(ctx, box),
                          rate))
        for box, m in moves:
            t_new = _theory_bits(box, stats)
            x_new = _grown_extra(m, good, grown)
            gone = _subsumed(box, boxes, alive, j)  # as when a condition is dropped
            c = _cost_of(rules, good, w, gone, j, (m, t_new, x_new))
            if c < best[0]:
                best = (c, j, (None, m, t_new, box, gone, x_new))
    return best


def _mdl_subset(lst: list, good: np.ndarray, stats: dict, w: float, grown: np.ndarray | None = None) -> list:
    """The subset of one class's rules with the smallest exceptions + w * theory bits (``grown``:
    the rows that grew the rules, their errors counted pessimistically)."""
    if len(lst) <= 1:
        return lst
    theory = [_theory_bits(cd[3], stats) for cd in lst]
    matches = [cd[2] for cd in lst]
    extra = [_grown_extra(m, good, grown) for m in matches] if grown is not None else None

    def cost(sel: tuple[bool, ...]) -> float:
        return _class_cost([m for s, m in zip(sel, matches) if s], [t for s, t in zip(sel, theory) if s], good, w,
                           None if extra is None else [x for s, x in zip(sel, extra) if s])

    k = len(lst)
    if k <= 10:
        best = min((tuple(bool(b >> j & 1) for j in range(k)) for b in range(1, 1 << k)), key=cost)
    else:  # hill climbing from the full set, one rule toggled at a time
        best = tuple([True] * k)
        best_c = cost(best)
        improved = True
        while improved:
            improved = False
            for j in range(k):
                cand = best[:j] + (not best[j],) + best[j + 1:]
                c = cost(cand)
                if c < best_c - 1e-9:
                    best, best_c, improved = cand, c, True
    return [cd for cd, s in zip(lst, best) if s]
