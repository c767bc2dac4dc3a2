"""Joined candidates for the MDL rule choice: one nominal test of a rule widened by another's values.

A tree splits a nominal feature into value subsets, so a concept cell such as ``a1 != v2`` reaches
the rule choice as ``a1 in {v0, v1}`` (and ``a1 = v3`` elsewhere, or nowhere); C4.5rules'
generalisation only drops conditions, so no candidate holds the cell. Two joins add candidates of
one class (the parents stay; the MDL subset choice decides, docs/rules.md session 8); ``organize``
asks for them with ``grown_from`` (the default path, where they were measured):

- two rules whose tests are the same but for one nominal test join into one with both value sets
  (``a1 in {v0, v1}`` and ``a1 = v3`` -> ``a1 in {v0, v1, v3}``), kept when the joined rule's
  pessimistic error rate on the pruning rows is no worse than the worse parent's;
- a rule joins its unseen sibling cell (its tests with ``a1 = v3``) the same way, and only when that
  cell on its own is a rule of the class (pessimistic error rate below ``CELL_MAX``): without that,
  widening small rules by noise cells made spurious terms (session 4).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from rulekit.rules.constraints import NomSet, union

# joined candidates per class at most this many times the class's own (the MDL subset choice is
# exhaustive up to 10 rules and hill-climbs above)
MAX_GROWTH = 1.0
# a sibling cell joins only when its pessimistic error rate on the pruning rows is below this
# (0.5 lost dnf22 on dev sample 1; 0.3 kept it, docs/rules.md session 8)
CELL_MAX = 0.3

Ucf = Callable[[float, float], float]
Member = Callable[[Any], np.ndarray]


def _differ_in_one_nominal(a: Any, b: Any) -> Any:
    """The one key whose nominal tests differ when every other test of the two boxes is the same."""
    if a.items.keys() != b.items.keys():
        return None
    diff = [k for k in a.items if a.items[k] != b.items[k]]
    if len(diff) != 1:
        return None
    k = diff[0]
    return k if isinstance(a.items[k], NomSet) and isinstance(b.items[k], NomSet) else None


def pessimistic_rate(m: np.ndarray, good: np.ndarray, pruning: np.ndarray, ucf: Ucf) -> float:
    """U_cf(e, n) of a rule matching ``m`` on the pruning rows: ``n`` of them, ``e`` not of its class."""
    rows = m & pruning
    return ucf(int((rows & ~good).sum()), int(rows.sum()))


def with_test(box: Any, k: Any, c: Any) -> Any:
    """A copy of ``box`` whose test on ``k`` is ``c`` (no test when ``c`` always holds)."""
    out = box.copy()
    if c.is_true:
        del out.items[k]
    else:
        out.items[k] = c
    return out


def joins(boxes: list, matches: list[np.ndarray], good: np.ndarray, pruning: np.ndarray, ucf: Ucf,
          member: Member) -> list[tuple[int, Any, np.ndarray, Any, Any]]:
    """New candidates ``(parent index, joined box, match, left, right)`` from one class's rules:
    ``boxes[i]`` is rule i's conjunction (None: not one, never joined), ``good`` the rows of the
    class, ``pruning`` the rows the errors are counted on, ``member(box)`` the rows a box holds on;
    ``left`` and ``right`` are the two boxes joined (a rule and another, or a rule and its cell)."""
    seen = {b.signature() for b in boxes if b is not None}
    pool = [(i, b, m) for i, (b, m) in enumerate(zip(boxes, matches)) if b is not None]
    rate = [pessimistic_rate(m, good, pruning, ucf) for _, _, m in pool]
    limit = len(pool) + int(MAX_GROWTH * len(pool))
    out: list[tuple[int, Any, np.ndarray, Any, Any]] = []

    def keep(parent: int, box: Any, worst: float, left: Any, right: Any) -> None:
        if not box.items or box.signature() in seen:
            return
        m = member(box)
        r = pessimistic_rate(m, good, pruning, ucf)
        if r > worst + 1e-12:
            return
        seen.add(box.signature())
        pool.append((parent, box, m))
        rate.append(r)
        out.append((parent, box, m, left, right))

    i = 0
    while i < len(pool) and len(pool) < limit:  # joined rules join again: three value sets become one
        for j in range(i):
            k = _differ_in_one_nominal(pool[i][1], pool[j][1])
            if k is not None and len(pool) < limit:
                keep(pool[i][0], with_test(pool[i][1], k, union(pool[i][1].items[k], pool[j][1].items[k])),
                     max(rate[i], rate[j]), pool[i][1], pool[j][1])
        i += 1
    for (p, b, _), r0 in list(zip(pool, rate)):
        for k, c in b.items.items():
            if not isinstance(c, NomSet) or c.is_universe:
                continue
            for v in range(c.size):
                if v in c.codes or len(pool) >= limit:
                    continue
                cell = with_test(b, k, NomSet(frozenset({v}), c.size, False))
                rc = pessimistic_rate(member(cell), good, pruning, ucf)
                if rc < CELL_MAX:
                    keep(p, with_test(b, k, NomSet(c.codes | {v}, c.size, c.missing)), max(r0, rc), b, cell)
    return out
