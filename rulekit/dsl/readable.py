"""The readable form of a rule base: what :func:`rulekit.dsl.dumps` prints unless asked for ``exact``.

Two kinds of numbers are treated differently:

* semantic numbers (thresholds, probabilities, values, weights, and ``confidence`` where it is a
  rule's vote weight) keep their meaning exactly. A threshold is replaced by the shortest decimal
  that is the *same test* under the rule base's precision (same canonical float64 boundary from
  :mod:`rulekit.semantics`): in a float32 base ``x <= 0.800000011920929`` becomes ``x <= 0.8``
  because ``float32(x) <= 0.8`` holds for exactly the same ``x``; where no shorter number is the
  same test the threshold stays as it is. Everything else stays bit-identical.
* informational statistics: only those a reviewer needs are kept (rows covered, errors, training
  rows: :data:`rulekit.dsl.stat_words.READABLE_KEYS`, printed as ``with 714 rows, 622 correct``),
  rounded to 4 significant digits; counts stay whole. The rest (laplace, support, lift, fired, ...)
  is in the exact form (``--exact``, JSON) only.

``loads(dumps(rb)) == readable(rb)`` and ``readable`` is idempotent; every rule fires on exactly the
same rows as before.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING

import numpy as np

from rulekit import semantics
from rulekit.semantics import intervals
from rulekit.rules.conditions import And, Compare, Not, Or
from rulekit.rules.rewrite import rewrite
from rulekit.dsl.stat_words import READABLE_KEYS
from rulekit.util import round_significant, significant_digits

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

DIGITS = 4  # significant digits of a statistic
_NUMERIC_OPS = ("<", "<=", ">", ">=", "=", "!=")


def readable(rb: RuleBase) -> RuleBase:
    """``rb`` with short thresholds and rounded statistics (see the module docstring)."""
    weighted = rb.semantics != "first-hit" or rb.combiner is not None
    numeric = {f.name for f in rb.features if f.kind == "numeric"}
    memo = _short_thresholds(rb, numeric)
    copies: dict = {}  # id(literal) -> (literal, its short copy): a tree's rules share its literals
    rules = []
    changed = False
    for r in rb.rules:
        cond = _short_condition(r.condition, numeric, rb.precision, memo, copies)
        stats = {k: (v if k == "confidence" else round_stat(v)) for k, v in r.stats.items()
                 if k in READABLE_KEYS or (k == "confidence" and weighted and r.weight is None)}
        if cond is not r.condition or stats != r.stats:
            r = r.model_copy(update={"condition": cond, "stats": stats})
            changed = True
        rules.append(r)
    return rb.model_copy(update={"rules": tuple(rules)}) if changed else rb


def round_stat(v: float) -> float:
    """A statistic for reading: whole numbers unchanged, others to :data:`DIGITS` significant digits."""
    if not math.isfinite(v) or v == int(v):
        return v
    return float(f"{v:.{DIGITS}g}")


def short_threshold(op: str, t: float, precision: str) -> float:
    """The shortest decimal ``s`` with ``cast(x) op s`` the same test as ``cast(x) op t`` for every x."""
    if precision == "float64" or not math.isfinite(t):
        return t  # a float64 test has one threshold per boundary: repr(t) is already the shortest
    try:
        want = _canon(op, t, precision)
        exact = Decimal(t)
        for digits in range(1, significant_digits(t)):
            for rounding in (ROUND_HALF_EVEN, ROUND_FLOOR, ROUND_CEILING):
                s = float(round_significant(exact, digits, rounding))
                if math.isfinite(s) and _canon(op, s, precision) == want:
                    return s
    except (ValueError, OverflowError, ArithmeticError):
        return t
    return t


def _canon(op: str, t: float, precision: str):
    """The canonical boundaries of a test (:func:`rulekit.semantics.intervals.canonical`, the same the
    rule engine and linter use); a rounded threshold is kept when they are unchanged."""
    if op in ("=", "!="):
        return intervals.canonical(">=", t, precision), intervals.canonical("<=", t, precision)
    return intervals.canonical(op, t, precision)


_KIND = {"<=": "le", ">": "le", "<": "lt", ">=": "lt", "=": "eq", "!=": "eq"}  # same canonical boundary


def _short_thresholds(rb: RuleBase, numeric: set) -> dict:
    """``{(boundary kind, t): short_threshold(op, t)}`` for every numeric threshold of ``rb``, found
    with one vectorized boundary check per (digits, rounding) step over all thresholds at once
    (one call per threshold took ~0.5 ms: 100 s at 200k leaves). Same results as
    :func:`short_threshold`: ``<=``/``>`` share a boundary, as do ``<``/``>=``."""
    if rb.precision == "float64":
        return {}
    keys: dict = {}

    def leaf(node):
        if type(node) is Compare and node.feature in numeric and type(node.value) is float \
                and node.op in _NUMERIC_OPS and math.isfinite(node.value) and node.value != 0.0:
            keys[(_KIND[node.op], node.value)] = None
        return node

    seen: set = set()
    for r in rb.rules:  # each shared subcondition once (a tree's rules share their split literals)
        stack = [r.condition]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            t = type(node)
            if t in (And, Or):
                stack.extend(node.items)
            elif t is Not:
                stack.append(node.item)
            else:
                leaf(node)
    return _short_many(list(keys), rb.precision)


def _boundaries(kind: str, ts: np.ndarray, precision: str) -> tuple:
    if kind == "le":
        return (semantics.boundary_array("<=", ts, precision),)
    if kind == "lt":
        return (semantics.boundary_array("<", ts, precision),)
    return semantics.boundary_array("<", ts, precision), semantics.boundary_array("<=", ts, precision)


def _short_many(keys: list, precision: str) -> dict:
    out: dict = {}
    for kind in ("le", "lt", "eq"):
        pending = [t for k, t in keys if k == kind]
        if not pending:
            continue
        try:
            want = _boundaries(kind, np.asarray(pending, np.float64), precision)
        except (ValueError, OverflowError, ArithmeticError):
            continue  # looked up one by one
        exact = [Decimal(t) for t in pending]
        digits = [significant_digits(t) for t in pending]
        live = list(range(len(pending)))
        d = 1
        while live:
            live = [i for i in live if d < digits[i]]
            for rounding in (ROUND_HALF_EVEN, ROUND_FLOOR, ROUND_CEILING):
                if not live:
                    break
                cand = [_rounded(exact[i], d, rounding) for i in live]
                for i, s in zip(live, cand):
                    if s is None:  # short_threshold gives up on the threshold
                        out[(kind, pending[i])] = pending[i]
                c = np.asarray([math.nan if s is None else s for s in cand], np.float64)
                ok = np.isfinite(c)
                c[~ok] = 0.0
                got = _boundaries(kind, c, precision)
                for w, g in zip(want, got):
                    ok &= g == w[live]
                rest = []
                for i, s, hit in zip(live, cand, ok.tolist()):
                    if hit:
                        out[(kind, pending[i])] = s
                    elif s is not None:
                        rest.append(i)
                live = rest
            d += 1
        for t in pending:
            out.setdefault((kind, t), t)
    return out


def _rounded(x: Decimal, digits: int, rounding) -> float | None:
    try:
        return float(round_significant(x, digits, rounding))
    except (ValueError, OverflowError, ArithmeticError):
        return None


def _short_condition(root, numeric: set, precision: str, memo: dict | None = None,
                     copies: dict | None = None):
    """``root`` with every numeric comparison's threshold shortened (the same object when nothing
    changes); ``memo`` holds thresholds already shortened (:func:`_short_thresholds`), ``copies``
    the literals already rewritten (one copy per shared literal, not one per rule)."""
    if precision == "float64":
        return root
    memo = {} if memo is None else memo
    copies = {} if copies is None else copies

    def leaf(node):
        hit = copies.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        out = _short_literal(node)
        copies[id(node)] = (node, out)
        return out

    def whole(node):  # an and/or of literals, e.g. ``(x <= t or x is missing)``: one copy as well
        t = type(node)
        if t is not And and t is not Or:
            return None
        hit = copies.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        if any(type(k) in (And, Or, Not) for k in node.items):
            return None
        items = tuple(leaf(k) for k in node.items)
        out = node if all(a is b for a, b in zip(items, node.items)) else node.model_copy(update={"items": items})
        copies[id(node)] = (node, out)
        return out

    def _short_literal(node):
        if type(node) is Compare and node.feature in numeric and type(node.value) is float \
                and node.op in _NUMERIC_OPS:
            s = memo.get((_KIND[node.op], node.value)) if node.value != 0.0 else None
            if s is None:
                s = short_threshold(node.op, node.value, precision)
            if not (s == node.value and repr(s) == repr(node.value)):
                return node.model_copy(update={"value": s})
        return node

    return rewrite(root, leaf, whole)

