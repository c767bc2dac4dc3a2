"""Widened rules for the MDL refinement: one value of a nominal feature put into a rule's set test.

The refinement generalises a rule by dropping whole conditions; a tree's set test such as
``a1 in {v0, v1}`` can then only stay or go, although the concept may be ``a1 != v3``: the cell
``a1 = v2`` is the class's, but the rule's other tests were fitted on rows where it had no say.
:mod:`rulekit.rules.join` adds such cells before the subset choice, judged on the pruning rows
of the rules as the tree left them (irrelevant tests still narrow them, so the cells are small);
here, the mirror of :mod:`rulekit.rules.exclude`, the refinement may put one value into a rule's
set test when the cell's rows are, pessimistically, mostly of the rule's class; the description
length decides whether it is kept, with the rules of the class the widened rule now subsumes
gone (docs/rules.md).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from rulekit.rules.constraints import NomSet, nom_universe
from rulekit.rules.exclude import MAJORITY, Rate, cell_counts
from rulekit.rules.join import with_test

Column = Callable[[Any], np.ndarray]
Member = Callable[[Any], np.ndarray]


def widened(box: Any, match: np.ndarray, good: np.ndarray, grown: np.ndarray, column: Column, member: Member,
            rate: Rate) -> Iterator[tuple[Any, np.ndarray]]:
    """``(widened box, its rows)`` for every value ``v`` that a nominal set test of ``box`` (a rule
    matching ``match``) leaves out, when the cell (the box with ``v`` for that test) holds rows of
    the rule's class (``good``) and the pessimistic rate of other classes among all its rows,
    ``rate(n, e, grown n, grown e)`` (``grown``: rows that grew the rules), is below ``MAJORITY``.
    All the cell's rows: those other rules of the class cover still say whose the cell is, and a
    rule widened over them may subsume those rules (the refinement then drops them). ``column(k)``:
    the value codes of ``k``; ``member(box)``: the rows a box holds on."""
    for k, c in box.items.items():
        if not isinstance(c, NomSet):
            continue
        values = [v for v in range(c.size) if v not in c.codes]
        if not values:
            continue
        col = column(k)
        rest = member(with_test(box, k, nom_universe(c.size, True)))
        rows = np.flatnonzero(rest)
        t = cell_counts(col[rows], good[rows], grown[rows], c.size)
        for v in values:
            n, g = int(t[v].sum()), int(t[v, 1] + t[v, 3])
            ng, eg = int(t[v, 2] + t[v, 3]), int(t[v, 2])
            if g == 0 or rate(n, n - g, ng, eg) >= MAJORITY:
                continue
            yield with_test(box, k, NomSet(c.codes | {v}, c.size, c.missing)), match | (rest & (col == v))
