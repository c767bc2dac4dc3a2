"""What each rule pass did: rules, literals and accuracy on the pruning data after every step.

``to_rules(..., steps=Steps())`` fills one :class:`Step` per pass; the ``rules`` command prints them
on stderr, so that a user sees where a rule base grew, shrank or lost accuracy, and why it ended
empty when it did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rulekit.ir.tree import root_of
from rulekit.rules.boxes import rules_literals
from rulekit.util import count


@dataclass(frozen=True)
class Step:
    name: str
    rules: int
    literals: int
    accuracy: float | None  # on the pruning data
    default: Any = None


@dataclass
class Steps:
    items: list[Step] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)  # (after how many steps, text)

    def model(self, name: str, model: Any, X: Any, y: Any) -> None:
        """A tree: its leaves are its rules, its splits along every path its literals."""
        g = model.graph
        leaves, lits, stack = 0, 0, [(root_of(g), 0)]
        while stack:
            node, depth = stack.pop()
            if g.nodes[node]["kind"] == "leaf":
                leaves += 1
                lits += depth
            else:
                stack.extend((k, depth + 1) for k in g.successors(node))
        self.items.append(Step(name, leaves, lits, accuracy(model.predict(X), y)))

    def note(self, text: str) -> None:
        """A line about a decision between passes (no counts)."""
        self.notes.append((len(self.items), text))

    def rules(self, name: str, rb: Any, X: Any, y: Any) -> None:
        acc = accuracy(rb.predict(X), y) if X is not None else None
        default = rb.default.label if rb.default is not None else None
        self.items.append(Step(name, len(rb.rules), rules_literals(rb.rules),
                               acc, default))

    def lines(self) -> list[str]:
        out = []
        for i, s in enumerate(self.items):
            out += [text for at, text in self.notes if at == i]
            acc = "" if s.accuracy is None else f", accuracy on the pruning data {s.accuracy:.4f}"
            out.append(f"{s.name}: {count(s.rules, 'rule')}, {count(s.literals, 'condition')}{acc}")
        out += [text for at, text in self.notes if at >= len(self.items)]
        return out


def accuracy(pred: Any, y: Any) -> float:
    """Share of the labels ``pred`` that equal ``y`` (NaN for no rows)."""
    pred = np.asarray(pred, dtype=object)
    y = np.asarray(y, dtype=object)
    if not len(y):
        return float("nan")
    return float(np.mean(pred == y))
