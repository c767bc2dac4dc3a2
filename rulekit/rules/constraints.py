"""Constraints: the exact set of values of one key (a feature, or an oblique sum) that make a
condition TRUE, and their set algebra. Numeric: closed float64 intervals (the algebra is
:mod:`rulekit.semantics.intervals`) plus whether a missing value is in; nominal: domain codes
(``-1`` = a value outside the domain) plus the same missing flag."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from rulekit.rules.walk import negate_literal
from rulekit.semantics import intervals
from rulekit.semantics.intervals import HIGH, LOW, Interval

UNSEEN = -1


@dataclass(frozen=True, slots=True)
class NumSet:
    """Non-missing values in a sorted union of disjoint, non-adjacent closed intervals; ``missing``."""

    intervals: tuple[Interval, ...] = ()
    missing: bool = False

    @property
    def is_universe(self) -> bool:
        return intervals.is_universe(self.intervals)

    @property
    def is_empty(self) -> bool:
        return not self.intervals and not self.missing

    @property
    def is_true(self) -> bool:
        return self.missing and self.is_universe

    def with_missing(self, missing: bool) -> NumSet:
        return NumSet(self.intervals, missing)


@dataclass(frozen=True, slots=True)
class NomSet:
    """Codes (``-1`` = outside the domain) of a nominal feature with ``size`` domain values; ``missing``."""

    codes: frozenset[int]
    size: int
    missing: bool = False

    @property
    def is_universe(self) -> bool:
        return len(self.codes) == self.size + 1

    @property
    def is_empty(self) -> bool:
        return not self.codes and not self.missing

    @property
    def is_true(self) -> bool:
        return self.missing and self.is_universe

    def with_missing(self, missing: bool) -> NomSet:
        return NomSet(self.codes, self.size, missing)


Constraint = Union[NumSet, NomSet]


def num_universe(missing: bool = False) -> NumSet:
    return NumSet(((LOW, HIGH),), missing)


def nom_universe(size: int, missing: bool = False) -> NomSet:
    return NomSet(frozenset(range(-1, size)), size, missing)


def union(a: Constraint, b: Constraint) -> Constraint:
    if isinstance(a, NomSet):
        return NomSet(a.codes | b.codes, a.size, a.missing or b.missing)
    return NumSet(intervals.union(a.intervals, b.intervals), a.missing or b.missing)


def intersect(a: Constraint, b: Constraint) -> Constraint:
    if isinstance(a, NomSet):
        return NomSet(a.codes & b.codes, a.size, a.missing and b.missing)
    return NumSet(intervals.intersect(a.intervals, b.intervals), a.missing and b.missing)


def complement(a: Constraint) -> Constraint:
    """The non-missing values outside ``a`` (missing flag: not ``a.missing``)."""
    if isinstance(a, NomSet):
        return NomSet(frozenset(range(-1, a.size)) - a.codes, a.size, not a.missing)
    return NumSet(intervals.complement(a.intervals, negate_literal), not a.missing)


def contains(a: Constraint, b: Constraint) -> bool:
    """``b`` is a subset of ``a``."""
    if b.missing and not a.missing:
        return False
    if isinstance(a, NomSet):
        return b.codes <= a.codes
    return intervals.contains(a.intervals, b.intervals)


def disjoint(a: Constraint, b: Constraint) -> bool:
    return intersect(a, b).is_empty


__all__ = ["Constraint", "NomSet", "NumSet", "UNSEEN", "complement", "contains", "disjoint", "intersect",
           "nom_universe", "num_universe", "union"]
