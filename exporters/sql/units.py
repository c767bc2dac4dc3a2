"""The pieces a prediction is summed from: trees, or first-hit rule groups, or single rules.

A unit has *payloads* (a tree's leaves, a rule list's rules plus its default) each with a value
vector and a class index, and renders as one expression given the SQL text of every payload.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rulekit.exporters.sql import expr
from rulekit.exporters.sql.trees import TreeSQL


@dataclass
class TreeUnit:
    tree: TreeSQL
    leaves: list  # graph node ids of the leaves, payload order
    vec: list[tuple[float, ...]]
    budget: int
    cls: list[int] = field(default_factory=list)  # argmax of each leaf value (numpy's first max)

    def __post_init__(self) -> None:
        self.cls = [int(np.argmax(v)) for v in self.vec]

    def render(self, texts: list[str]) -> str:
        return self.tree.case(dict(zip(self.leaves, texts)), self.budget)


@dataclass
class RuleListUnit:
    """First hit over ``conditions``; the last payload is the default (no rule matched)."""

    conditions: list[str]
    vec: list[tuple[float, ...]]
    cls: list[int] = field(default_factory=list)

    def render(self, texts: list[str]) -> str:
        default = texts[-1]
        whens = list(zip(self.conditions, texts[:-1]))
        while whens and whens[-1][1] == default:  # trailing rules that give the default anyway
            whens.pop()
        return expr.case(whens, default)


@dataclass
class MatchUnit:
    """One unordered rule: its payload 0 when it matches, payload 1 (zero) when not."""

    condition: str
    vec: list[tuple[float, ...]]
    cls: list[int] = field(default_factory=list)

    def render(self, texts: list[str]) -> str:
        if texts[0] == texts[1]:
            return texts[0]
        return expr.case([(self.condition, texts[0])], texts[1])


def size(unit) -> int:
    """Payloads (leaves, rules) of a unit: what its SQL grows with."""
    return len(unit.vec)


def tree_unit(tree, cols, value_size: int, budget: int) -> TreeUnit:
    sql = TreeSQL(tree, cols)
    leaves = [n for n in sql.order if n not in sql.kids]
    vec = [tuple(float(v) for v in tree.nodes[n]["value"]) for n in leaves]
    return TreeUnit(sql, leaves, vec, budget)


__all__ = ["MatchUnit", "RuleListUnit", "TreeUnit", "tree_unit"]
