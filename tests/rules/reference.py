"""A deliberately naive row-by-row oracle for rule semantics (plain Python floats, no boundaries).

It reads the rule base's docstring literally: ``cast(x) op value`` in the base's precision, a literal
on a missing value is UNKNOWN, Kleene and/or/not, a rule fires only when its condition is TRUE.
"""

from __future__ import annotations

import math

import numpy as np

from rulekit.rules.base import And, InSet, IsMissing, Linear, Not, Or


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _cast(x: float, precision: str) -> float:
    if precision == "float32":
        with np.errstate(over="ignore"):
            return float(np.float32(x))
    return float(x)


def _cmp(a, op, b) -> bool:
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "=": a == b, "!=": a != b}[op]


def _same_label(a, b) -> bool:
    return (type(a) is type(b) and a == b) or str(a) == str(b)


def literal(lit, row: dict, rb) -> bool | None:
    if isinstance(lit, IsMissing):
        m = _missing(row[lit.feature])
        return (not m) if lit.negated else m
    if isinstance(lit, Linear):
        vals = [row[n] for _, n in lit.terms]
        s = lit.terms[0][0] * float(vals[0]) if not _missing(vals[0]) else math.nan
        for (c, _), v in zip(lit.terms[1:], vals[1:]):
            s = s + c * (math.nan if _missing(v) else float(v))
        if math.isnan(s):
            return None
        return _cmp(s, lit.op, lit.value)
    v = row[lit.feature]
    if _missing(v):
        return None
    feat = rb.feature(lit.feature)
    if isinstance(lit, InSet):
        inside = any(_same_label(v, w) for w in lit.values) and any(_same_label(v, d) for d in feat.domain)
        return (not inside) if lit.negated else inside
    if feat.kind == "nominal":
        eq = _same_label(v, lit.value) and any(_same_label(v, d) for d in feat.domain)
        return eq if lit.op == "=" else not eq
    return _cmp(_cast(float(v), rb.precision), lit.op, float(lit.value))


def truth(cond, row: dict, rb) -> bool | None:
    if isinstance(cond, And):
        vals = [truth(c, row, rb) for c in cond.items]
        if any(v is False for v in vals):
            return False
        return None if any(v is None for v in vals) else True
    if isinstance(cond, Or):
        vals = [truth(c, row, rb) for c in cond.items]
        if any(v is True for v in vals):
            return True
        return None if any(v is None for v in vals) else False
    if isinstance(cond, Not):
        v = truth(cond.item, row, rb)
        return None if v is None else not v
    return literal(cond, row, rb)


def first_hit(rb, rows: list[dict], rules=None) -> list[int]:
    idx = range(len(rb.rules)) if rules is None else rules
    out = []
    for row in rows:
        hit = -1
        for i in idx:
            if truth(rb.rules[i].condition, row, rb) is True:
                hit = i
                break
        out.append(hit)
    return out


def matches(rb, rows: list[dict]) -> np.ndarray:
    return np.array([[truth(r.condition, row, rb) is True for r in rb.rules] for row in rows], bool)
