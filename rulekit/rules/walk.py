"""Walking conditions without recursion: children, a post-order fold, the literals, negation pushed
down to literals (``nnf``), and the counts and shapes the passes report (``count_literals``,
``conjuncts``). One reason to change: how a condition tree is traversed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.rules.conditions import And, Compare, InSet, IsMissing, Linear, Not, Or

_NEGATE_OP = {"<=": ">", "<": ">=", ">": "<=", ">=": "<", "=": "!=", "!=": "="}


def with_op(lit: Any, op: str) -> Any:
    """``lit`` with another comparison operator."""
    return lit.model_copy(update={"op": op})


def negate_literal(lit: Any) -> Any:
    """The literal TRUE exactly where ``lit`` is FALSE (never at a missing value)."""
    if lit is None:
        return None
    if isinstance(lit, (Compare, Linear)):
        return with_op(lit, _NEGATE_OP[lit.op])
    if isinstance(lit, (InSet, IsMissing)):
        return lit.model_copy(update={"negated": not lit.negated})
    raise TypeError(f"not a literal: {lit!r}")


def children(cond: Any) -> tuple:
    if isinstance(cond, (And, Or)):
        return cond.items
    if isinstance(cond, Not):
        return (cond.item,)
    return ()


def fold(cond: Any, fn: Callable[[Any, list], Any]) -> Any:
    """Post-order fold without recursion: ``fn(node, [results of its children])``."""
    stack: list[tuple[Any, bool]] = [(cond, False)]
    results: list[Any] = []
    while stack:
        node, expanded = stack.pop()
        kids = children(node)
        if expanded or not kids:
            n = len(kids)
            args = results[len(results) - n:] if n else []
            if n:
                del results[len(results) - n:]
            results.append(fn(node, args))
            continue
        stack.append((node, True))
        for k in reversed(kids):
            stack.append((k, False))
    return results[0]


def iter_literals(cond: Any):
    stack = [cond]
    while stack:
        node = stack.pop()
        kids = children(node)
        if kids:
            stack.extend(reversed(kids))
        elif not isinstance(node, (And, Or, Not)):
            yield node


def nnf(cond: Any) -> Any:
    """Negations pushed down to literals (exact in three-valued logic)."""

    def step(node, args):
        if isinstance(node, And):
            return (And(items=tuple(a for a, _ in args)), Or(items=tuple(b for _, b in args)))
        if isinstance(node, Or):
            return (Or(items=tuple(a for a, _ in args)), And(items=tuple(b for _, b in args)))
        if isinstance(node, Not):
            pos, neg = args[0]
            return (neg, pos)
        return (node, negate_literal(node))

    return fold(cond, step)[0]


def count_literals(cond: Any) -> int:
    """Conditions a person reads: literals, where ``(x <= 5 or x is missing)`` counts once."""
    total = 0
    stack = [cond]
    while stack:
        node = stack.pop()
        if isinstance(node, Or):
            feats = {getattr(i, "feature", None) for i in node.items if not isinstance(i, IsMissing)}
            for i in node.items:
                if isinstance(i, IsMissing) and not i.negated and (i.feature in feats or _linear_feature(node, i)):
                    continue
                stack.append(i)
        elif isinstance(node, (And, Not)):
            stack.extend(children(node))
        else:
            total += 1
    return total


def rules_literals(rules: Any) -> int:
    """The literals of all ``rules``' conditions (:func:`count_literals` each): a rule base's size."""
    return sum(count_literals(r.condition) for r in rules)


def _linear_feature(node: Or, i: IsMissing) -> bool:
    for other in node.items:
        if isinstance(other, Linear) and any(n == i.feature for _, n in other.terms):
            return True
    return False


def conjuncts(cond: Any) -> tuple:
    """Top-level conjuncts of a condition (the condition itself when it is not an And)."""
    if isinstance(cond, And):
        return cond.items
    return (cond,)


def is_true(cond: Any) -> bool:
    return isinstance(cond, And) and not cond.items


def is_false(cond: Any) -> bool:
    return isinstance(cond, Or) and not cond.items


__all__ = ["children", "conjuncts", "count_literals", "fold", "is_false", "is_true", "iter_literals",
           "negate_literal", "nnf", "rules_literals", "with_op"]
