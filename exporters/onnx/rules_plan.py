"""The ONNX rule export's plan: every distinct literal once (numeric and oblique tests as closed
float64 intervals of :mod:`rulekit.semantics.intervals`, nominal tests as code sets from
:mod:`rulekit.semantics.values`), and every condition as a reference to a literal or an And/Or node
with its level. Refusals are ExportError naming the rule."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from rulekit.errors import ExportError
from rulekit.rules.base import And, Compare, InSet, IsMissing, Linear, Not, Or, RuleBase
from rulekit.semantics import intervals
from rulekit.semantics.values import index_of


@dataclass(frozen=True)
class NumLit:
    column: Any  # feature index or ("linear", terms)
    intervals: tuple[tuple[float, float], ...]  # closed float64 intervals (TRUE set)
    negate: bool = False  # TRUE = a number outside the intervals
    missing: int = 0  # 1: `is missing`, -1: `is not missing` (never unknown)


@dataclass(frozen=True)
class NomLit:
    feature: int
    codes: frozenset  # codes in the TRUE set (-1 = a value outside the domain)
    missing: int = 0  # 1: `is missing`, -1: `is not missing`


def numeric_intervals(op: str, value: float, precision: str) -> tuple[tuple[tuple[float, float], ...], bool]:
    """(intervals, negate) of ``cast(x) op value`` (:func:`rulekit.semantics.intervals.closed`;
    ``!=`` is ``=`` negated, which keeps it one interval)."""
    if math.isnan(value):
        raise ExportError("comparison with NaN (use 'is missing')")
    if op in ("=", "!="):
        return intervals.closed("=", value, precision), op == "!="
    return intervals.closed(op, value, precision), False


class RuleColumns:
    """Feature names -> columns, labels -> codes (ExportError naming the rule on unknown names)."""

    def __init__(self, rb: RuleBase):
        self.rb = rb
        self.index = {f.name: i for i, f in enumerate(rb.features)}
        self.where = ""

    def key(self, name: str) -> int:
        if name not in self.index:
            raise ExportError(f"{self.where}unknown feature {name!r}")
        return self.index[name]

    def nominal(self, j: int) -> bool:
        return self.rb.features[j].kind == "nominal"

    def size(self, j: int) -> int:
        return len(self.rb.features[j].domain or ())

    def code(self, j: int, value: Any) -> int:
        i = index_of(self.rb.features[j].domain or (), value)
        if i is not None:
            return i
        raise ExportError(f"{self.where}{value!r} is not a value of nominal feature "
                          f"{self.rb.features[j].name!r}")

    def literal(self, lit: Any) -> NumLit | NomLit:
        if isinstance(lit, IsMissing):
            j = self.key(lit.feature)
            m = -1 if lit.negated else 1
            return NomLit(j, frozenset(), m) if self.nominal(j) else NumLit(j, (), False, m)
        if isinstance(lit, InSet):
            j = self.key(lit.feature)
            if not self.nominal(j):
                raise ExportError(f"{self.where}set test on numeric feature {lit.feature!r}")
            codes = frozenset(self.code(j, v) for v in lit.values)
            if lit.negated:
                codes = frozenset(range(-1, self.size(j))) - codes
            return NomLit(j, codes)
        if isinstance(lit, Linear):
            if not lit.terms:
                raise ExportError(f"{self.where}linear test without terms")
            for _, name in lit.terms:
                if self.nominal(self.key(name)):
                    raise ExportError(f"{self.where}linear test on nominal feature {name!r}")
            col = ("linear", tuple((float(c), self.key(n)) for c, n in lit.terms))
            ivs, neg = numeric_intervals(lit.op, float(lit.value), "float64")
            return NumLit(col, ivs, neg)
        if isinstance(lit, Compare):
            j = self.key(lit.feature)
            if self.nominal(j):
                if lit.op not in ("=", "!="):
                    raise ExportError(f"{self.where}operator {lit.op!r} on nominal feature {lit.feature!r}")
                codes = frozenset((self.code(j, lit.value),))
                if lit.op == "!=":
                    codes = frozenset(range(-1, self.size(j))) - codes
                return NomLit(j, codes)
            if isinstance(lit.value, (str, bool)):
                raise ExportError(f"{self.where}numeric feature {lit.feature!r} compared with {lit.value!r}")
            ivs, neg = numeric_intervals(lit.op, float(lit.value), self.rb.precision)
            return NumLit(j, ivs, neg)
        raise ExportError(f"{self.where}not a literal: {type(lit).__name__}")


Ref = tuple[int, bool]  # (column, negated)
TRUE_REF: Ref = (0, False)
FALSE_REF: Ref = (1, False)


@dataclass
class Plan:
    """Literals, then And/Or nodes by level; every condition becomes a reference to one column."""

    schema: RuleColumns
    literals: list = field(default_factory=list)
    lit_index: dict = field(default_factory=dict)
    nodes: list = field(default_factory=list)  # (level, "and"|"or", children refs)
    node_index: dict = field(default_factory=dict)
    level: dict = field(default_factory=dict)  # ref column -> level

    def literal_ref(self, lit: Any) -> Ref:
        key = self.schema.literal(lit)
        i = self.lit_index.get(key)
        if i is None:
            i = self.lit_index[key] = len(self.literals)
            self.literals.append(key)
        return ("lit", i), False  # resolved to a column later

    def node_ref(self, op: str, refs: list[Ref]) -> Ref:
        neutral = TRUE_REF if op == "and" else FALSE_REF
        absorbing = FALSE_REF if op == "and" else TRUE_REF
        kids = []
        for r in refs:
            if r == neutral:
                continue
            if r == absorbing:
                return absorbing
            kids.append(r)
        if not kids:
            return neutral
        if len(kids) == 1:
            return kids[0]
        key = (op, tuple(kids))
        i = self.node_index.get(key)
        if i is None:
            lvl = 1 + max(self._level(r) for r in kids)
            i = self.node_index[key] = len(self.nodes)
            self.nodes.append((lvl, op, tuple(kids)))
        return ("node", i), False

    def _level(self, ref: Ref) -> int:
        col = ref[0]
        if isinstance(col, tuple) and col[0] == "node":
            return self.nodes[col[1]][0]
        return 0

    def condition(self, cond: Any) -> Ref:
        stack: list[tuple[Any, bool]] = [(cond, False)]
        results: list[Ref] = []
        while stack:
            node, expanded = stack.pop()
            kids = node.items if isinstance(node, (And, Or)) else (node.item,) if isinstance(node, Not) else ()
            if isinstance(node, (And, Or)) and not kids:
                results.append(TRUE_REF if isinstance(node, And) else FALSE_REF)
                continue
            if not kids:
                results.append(self.literal_ref(node))
                continue
            if not expanded:
                stack.append((node, True))
                stack.extend((k, False) for k in reversed(kids))
                continue
            args = results[len(results) - len(kids):]
            del results[len(results) - len(kids):]
            if isinstance(node, Not):
                col, neg = args[0]
                results.append((col, not neg))
            else:
                results.append(self.node_ref("and" if isinstance(node, And) else "or", args))
        return results[0]


__all__ = ["FALSE_REF", "NomLit", "NumLit", "Plan", "Ref", "RuleColumns", "TRUE_REF", "numeric_intervals"]
