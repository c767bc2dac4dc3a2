"""A rule base's schema for the rule algebra: feature names -> keys, nominal values -> domain codes
(:mod:`rulekit.semantics.values`), and each literal -> its TRUE set (:class:`LiteralSchema.literal_set`;
numeric bounds from :mod:`rulekit.semantics.intervals`, each carrying the literal that writes it)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rulekit import semantics
from rulekit.errors import RulekitError
from rulekit.rules.conditions import Compare, InSet, IsMissing, Linear
from rulekit.rules.constraints import Constraint, NomSet, NumSet, complement, nom_universe, num_universe
from rulekit.rules.walk import with_op
from rulekit.semantics import intervals
from rulekit.semantics.intervals import HIGH, LOW, Bound
from rulekit.semantics.values import Index

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase


class LiteralSchema:
    """The rule base's features and precision, resolving names and labels (errors name the rule)."""

    def __init__(self, rb: RuleBase):
        self.rb = rb
        self.features = list(rb.features)
        self.precision = rb.precision
        self.index = {f.name: i for i, f in enumerate(self.features)}
        self._codes: dict[int, Index] = {}
        self._lits: dict[int, tuple[Any, tuple[Any, Constraint]]] = {}
        self.where = ""

    def key(self, name: str) -> int:
        try:
            return self.index[name]
        except KeyError:
            raise RulekitError(f"{self.where}unknown feature {name!r}") from None

    def is_nominal(self, key: Any) -> bool:
        return isinstance(key, int) and self.features[key].kind == "nominal"

    def size(self, key: int) -> int:
        return len(self.features[key].domain or ())

    def code(self, key: int, value: Any) -> int:
        table = self._codes.get(key)
        if table is None:
            table = self._codes[key] = Index(self.features[key].domain or ())
        hit = table.get(value)
        if hit is None:
            f = self.features[key]
            raise RulekitError(f"{self.where}{value!r} is not a value of nominal feature {f.name!r} "
                               f"(domain: {', '.join(map(str, f.domain or ()))})")
        return hit

    def universe(self, key: Any, missing: bool = False) -> Constraint:
        if self.is_nominal(key):
            return nom_universe(self.size(key), missing)
        return num_universe(missing)

    def literal_set(self, lit: Any) -> tuple[Any, Constraint]:
        """(key, TRUE set) of one literal (Compare, InSet, IsMissing, Linear)."""
        hit = self._lits.get(id(lit))
        if hit is not None and hit[0] is lit:
            return hit[1]
        out = self._literal_set(lit)
        if len(self._lits) < 1 << 18:
            self._lits[id(lit)] = (lit, out)
        return out

    def _literal_set(self, lit: Any) -> tuple[Any, Constraint]:
        if isinstance(lit, IsMissing):
            key = self.key(lit.feature)
            if lit.negated:
                return key, self.universe(key, False)
            return key, (NomSet(frozenset(), self.size(key), True) if self.is_nominal(key)
                         else NumSet((), True))
        if isinstance(lit, InSet):
            key = self.key(lit.feature)
            if not self.is_nominal(key):
                raise RulekitError(f"{self.where}set test on numeric feature {lit.feature!r}")
            codes = frozenset(self.code(key, v) for v in lit.values)
            s = NomSet(codes, self.size(key))
            return key, (complement(s).with_missing(False) if lit.negated else s)
        if isinstance(lit, Linear):
            if not lit.terms:
                raise RulekitError(f"{self.where}linear test without terms")
            for _, name in lit.terms:
                k = self.key(name)
                if self.is_nominal(k):
                    raise RulekitError(f"{self.where}linear test on nominal feature {name!r}")
            key = ("linear", tuple((float(c), n) for c, n in lit.terms))
            return key, _numeric_set(lit.op, float(lit.value), "float64", lit)
        if isinstance(lit, Compare):
            key = self.key(lit.feature)
            if self.is_nominal(key):
                if lit.op not in ("=", "!="):
                    raise RulekitError(f"{self.where}operator {lit.op!r} on nominal feature {lit.feature!r}")
                s = NomSet(frozenset((self.code(key, lit.value),)), self.size(key))
                return key, (complement(s).with_missing(False) if lit.op == "!=" else s)
            if isinstance(lit.value, (str, bool)):
                raise RulekitError(f"{self.where}numeric feature {lit.feature!r} compared with {lit.value!r}")
            return key, _numeric_set(lit.op, float(lit.value), self.precision, lit)
        raise TypeError(f"not a literal: {lit!r}")


def _numeric_set(op: str, value: float, precision: str, lit: Any) -> NumSet:
    """The TRUE set of ``cast(x) op value`` (:mod:`rulekit.semantics.intervals`), each bound
    carrying the literal that writes it (``x = v``: ``x >= v`` and ``x <= v``)."""
    if math.isnan(value):
        raise RulekitError("comparison with NaN (use 'is missing')")
    if op == "=":
        lo = intervals.lower(">=", value, precision)
        hi = intervals.upper("<=", value, precision)
        if lo is None or lo > hi:
            return NumSet(())
        return NumSet(((Bound(lo, with_op(lit, ">=")), Bound(hi, with_op(lit, "<="))),))
    if op == "!=":
        return complement(_numeric_set("=", value, precision, lit)).with_missing(False)
    if op in ("<=", "<"):
        return NumSet(((LOW, Bound(intervals.upper(op, value, precision), lit)),))
    lo = intervals.lower(op, value, precision)
    return NumSet(() if lo is None else ((Bound(lo, lit), HIGH),))


_CANON = intervals._CANON  # the same dict (the LSP tests read it here)


def prime_canonical(thresholds: Sequence[float], precision: str) -> None:
    """Compute the canonical bounds of many thresholds at once (vectorized) for later lookups.
    numpy is imported here, where it is used: `rulekit check` never calls this and so loads no numpy."""
    import numpy as np  # noqa: PLC0415 (start-up: numpy only for callers that prime)

    ts = np.unique(np.asarray([t for t in thresholds if not math.isnan(t)], dtype=np.float64))
    if not ts.size:
        return
    if intervals.known() + 4 * ts.size > intervals.CANON_KEPT:
        return
    le = semantics.boundary_array("<=", ts, precision)
    lt = semantics.boundary_array("<", ts, precision)
    entries = []
    for t, a, b in zip(ts.tolist(), le.tolist(), lt.tolist()):
        entries += [(("<=", t, precision), ("<=", a)), ((">", t, precision), (">", a)),
                    (("<", t, precision), ("<=", b)), ((">=", t, precision), (">", b))]
    intervals.remember(entries)


__all__ = ["LiteralSchema", "prime_canonical"]
