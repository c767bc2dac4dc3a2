"""Rule conditions as SQL boolean expressions, literal by literal, in three-valued logic.

Each literal is written from the exact value set the rule engine gives it
(:meth:`rulekit.rules.boxes.LiteralSchema.literal_set`): closed float64 intervals from canonical boundaries,
domain codes for nominal tests. A literal is NULL when its column is NULL (``is missing`` excepted),
so SQL's AND/OR/NOT are the engine's Kleene logic. Conditions are walked with an explicit stack.
"""

from __future__ import annotations

import math

from rulekit.exporters.sql import expr
from rulekit.exporters.sql.trees import ALWAYS, Columns
from rulekit.rules.base import And, IsMissing, Not, Or
from rulekit.semantics import intervals


def _lower(d, col: str, at: float) -> str | None:
    """``col >= at`` for a closed lower bound (None: unbounded)."""
    if at == -math.inf:
        return None
    return expr.gt(d, col, intervals.next_down(at))  # x >= at  <=>  x > prev(at); prev(-DBL_MAX) = -inf is handled


def _upper(d, col: str, at: float) -> str | None:
    if at == math.inf:
        return None
    return expr.le(d, col, at)


class RuleConditions:
    """Renders conditions of one rule base for one dialect (literals cached by their value set)."""

    def __init__(self, rb, cols: Columns):
        from rulekit.rules.boxes import LiteralSchema  # noqa: PLC0415

        self.rb = rb
        self.cols = cols
        self.schema = LiteralSchema(rb)
        self._cache: dict = {}

    def literal(self, lit) -> str:
        if isinstance(lit, IsMissing):  # never unknown: TRUE or FALSE even on NULL
            col = self.cols.names[self.schema.key(lit.feature)]
            return f"{col} IS NOT NULL" if lit.negated else f"{col} IS NULL"
        key, s = self.schema.literal_set(lit)
        sig = (key, s)
        out = self._cache.get(sig)
        if out is None:
            out = self._literal(key, s)
            self._cache[sig] = out
        return out

    def _literal(self, key, s) -> str:
        from rulekit.rules.boxes import NomSet  # noqa: PLC0415

        d = self.cols.d
        if isinstance(key, tuple):  # ("linear", ((coef, name), ...))
            col = expr.linear_sum(d, [(w, self.cols.names[self.schema.key(n)]) for w, n in key[1]])
        else:
            col = None if isinstance(s, NomSet) else self.cols.names[key]
        if isinstance(s, NomSet):
            text = self.cols.nominal(key, frozenset(s.codes), s.missing)
            name = self.cols.names[key]
            if text is None:  # no value at all: FALSE, unknown when missing
                return f"{name} <> {name}"
            if text == ALWAYS:
                return expr.TRUE
            return text
        ors = []
        for lo, hi in s.intervals:
            parts = [p for p in (_lower(d, col, lo.at), _upper(d, col, hi.at)) if p is not None]
            if not parts:
                parts = [f"{col} = {col}"]
            ors.append(parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")")
        if s.missing:
            ors.append(expr.is_null(col))
        if not ors:
            return f"{col} <> {col}"
        return expr.join(ors, "OR") if len(ors) > 1 else ors[0]

    def condition(self, cond) -> str:
        """The whole condition tree (explicit stack, post-order)."""
        stack: list = [(cond, False)]
        results: list[str] = []
        while stack:
            node, done = stack.pop()
            kids = node.items if isinstance(node, (And, Or)) else (node.item,) if isinstance(node, Not) else None
            if kids is None:
                results.append(self.literal(node))
                continue
            if not done:
                stack.append((node, True))
                stack.extend((k, False) for k in reversed(kids))
                continue
            n = len(kids)
            args = results[len(results) - n:] if n else []
            if n:
                del results[len(results) - n:]
            if isinstance(node, Not):
                results.append(f"(NOT {args[0]})")
            else:
                results.append(expr.join(args, "AND" if isinstance(node, And) else "OR"))
        return results[0]


__all__ = ["RuleConditions"]
