"""Narrowed rules for the MDL refinement: one value of a nominal feature taken out of a rule.

C4.5rules' generalisation drops a rule's conditions one at a time, each judged on the rows the rule
covers at that moment. While tests on irrelevant features still narrow it, a concept test such as
``a1 != v3`` can go for free (its other-class cell has no row there); once the refinement has
dropped those tests the cell is back, and nothing takes it out: the refinement only drops. So the
refinement may also take one value out of a rule (``a1 != v3``, or ``v3`` out of a set test) when
that cell is, pessimistically, mostly rows of other classes; the description length decides
whether it is kept (docs/rules.md, session 10).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from rulekit.rules.constraints import UNSEEN, NomSet, nom_universe

# a cell leaves a rule only when its pessimistic rate of rows of the rule's class is below this:
# most of its rows are of other classes (a single noisy row never qualifies)
MAJORITY = 0.5

Cell = Callable[[Any, int], np.ndarray]
Rate = Callable[[np.ndarray], float]


def narrowed(box: Any, match: np.ndarray, alone: np.ndarray, good: np.ndarray, nominal: list[tuple[Any, int]],
             cell: Cell, rate: Rate) -> Iterator[tuple[Any, np.ndarray]]:
    """``(narrowed box, its rows)`` for every value ``v`` of a nominal feature ``k`` that ``box``
    (a rule matching ``match``) allows, when the cell's rows that no other rule of the class covers
    (``alone``: only those change the class's errors) hold rows of other classes and ``rate(rows)``,
    the pessimistic rate of rows of the rule's class (``good``) among them, is below ``MAJORITY``.
    ``nominal``: (key, domain size) of each nominal feature; ``cell(k, v)``: the rows with value
    ``v`` of ``k``. A rule is never left without a value of ``k``."""
    for k, size in nominal:
        c = box.items.get(k)
        allowed = nom_universe(size, True) if c is None else c
        for v in sorted(allowed.codes - {UNSEEN}):
            rows = match & cell(k, v)
            own = rows & alone
            if not (own & ~good).any() or rate(own) >= MAJORITY:
                continue
            left = NomSet(allowed.codes - {v}, size, allowed.missing)
            if not (left.codes - {UNSEEN}):
                continue
            out = box.copy()
            out.items[k] = left
            yield out, match & ~rows
