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
from rulekit.rules.join import with_test

# a cell leaves a rule only when its pessimistic rate of rows of the rule's class is below this:
# most of its rows are of other classes (a single noisy row never qualifies)
MAJORITY = 0.5

Column = Callable[[Any], np.ndarray]
# (rows, rows of the class, rows that grew the rules, those of the class) -> pessimistic rate of the class
Rate = Callable[[int, int, int, int], float]


def cell_counts(codes: np.ndarray, good: np.ndarray, grown: np.ndarray, length: int) -> np.ndarray:
    """Per value code ``0..length-1`` of ``codes`` (one row each; NaN and negative codes count
    nowhere): rows ``[:, 0]`` of other classes and not grown, ``[:, 1]`` of the class, ``[:, 2]``
    grown of other classes, ``[:, 3]`` grown of the class. One pass instead of a mask per value."""
    seen = ~np.isnan(codes) & (codes >= 0)
    c = codes[seen].astype(np.int64)
    if c.size:
        length = max(length, int(c.max()) + 1)
    key = c * 4 + good[seen] + 2 * grown[seen]
    return np.bincount(key, minlength=4 * length).reshape(length, 4)


def narrowed(box: Any, match: np.ndarray, alone: np.ndarray, good: np.ndarray, grown: np.ndarray,
             nominal: list[tuple[Any, int]], column: Column, rate: Rate) -> Iterator[tuple[Any, np.ndarray]]:
    """``(narrowed box, its rows)`` for every value ``v`` of a nominal feature ``k`` that ``box``
    (a rule matching ``match``) allows, when the cell's rows that no other rule of the class covers
    (``alone``: only those change the class's errors) hold rows of other classes and their
    pessimistic rate of rows of the rule's class (``good``; ``grown``: rows that grew the rules),
    ``rate`` of their counts, is below ``MAJORITY``. ``nominal``: (key, domain size) of each
    nominal feature; ``column(k)``: the value codes of ``k``. A rule is never left without a value
    of ``k``."""
    own = np.flatnonzero(match & alone)
    good_own, grown_own = good[own], grown[own]
    for k, size in nominal:
        c = box.items.get(k)
        allowed = nom_universe(size, True) if c is None else c
        values = sorted(allowed.codes - {UNSEEN})
        if not values:
            continue
        col = column(k)
        t = cell_counts(col[own], good_own, grown_own, max(size, values[-1] + 1))
        for v in values:
            n, g, ng, eg = int(t[v].sum()), int(t[v, 1] + t[v, 3]), int(t[v, 2] + t[v, 3]), int(t[v, 3])
            if n <= g or rate(n, g, ng, eg) >= MAJORITY:
                continue
            left = NomSet(allowed.codes - {v}, size, allowed.missing)
            if not (left.codes - {UNSEEN}):
                continue
            yield with_test(box, k, left), match & (col != v)
