"""The literal algebra: which float64 values make a comparison TRUE, and the set operations on them.

A comparison ``cast(x) op value`` (op in ``< <= > >= = !=``, cast by the precision) holds, for a
non-missing float64 ``x``, on a union of *closed* float64 intervals ``[lo, hi]``; the bounds come
from :func:`rulekit.semantics.thresholds.canonical` (``x <= b`` / ``x > b``, the latter being
``x >= nextup(b)``). The rule passes (``rules.boxes``), the linter and the ONNX rule export all ask
this module, so that a test means the same interval everywhere. A set is a sorted tuple of
disjoint, non-adjacent intervals whose ends are :class:`Bound` objects; each bound may carry the
literal that writes it (``lit``), which the operations keep so a set renders back to the user's
own tests. Plain functions on ``math`` only: no numpy, so ``rulekit check`` starts fast.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rulekit.semantics import thresholds

INF = math.inf


def next_up(x: float) -> float:
    """The float64 just above ``x`` (``inf`` stays ``inf``)."""
    return math.nextafter(x, INF)


def next_down(x: float) -> float:
    """The float64 just below ``x`` (``-inf`` stays ``-inf``)."""
    return math.nextafter(x, -INF)


@dataclass(frozen=True, slots=True)
class Bound:
    """A closed bound: ``x >= at`` (lower) or ``x <= at`` (upper); ``lit`` writes it (None: unbounded)."""

    at: float
    lit: Any = field(default=None, compare=False, hash=False)


LOW = Bound(-INF)
HIGH = Bound(INF)
Interval = tuple[Bound, Bound]
ALL: tuple[Interval, ...] = ((LOW, HIGH),)


# --- one comparison -> its TRUE interval ---------------------------------------------------------------

# canonical boundaries already computed: (op, value, precision) -> (kind, b); rules.boxes fills it in
# bulk (``remember``) and a long-lived process empties it (``forget``)
_CANON: dict[tuple, tuple[str, float]] = {}
CANON_KEPT = 1 << 20  # entries kept (the store is emptied past it)


def canonical(op: str, value: float, precision: str) -> tuple[str, float]:
    """:func:`thresholds.canonical`, remembered (a model's literals repeat the same thresholds;
    zeros are not, as ``0.0`` and ``-0.0`` are one dictionary key but may give signed boundaries)."""
    if value == 0.0:
        return thresholds.canonical(op, value, precision)
    key = (op, value, precision)
    hit = _CANON.get(key)
    if hit is None:
        hit = thresholds.canonical(op, value, precision)
        if len(_CANON) > CANON_KEPT:
            _CANON.clear()
        _CANON[key] = hit
    return hit


def remember(entries: Iterable[tuple[tuple, tuple[str, float]]]) -> None:
    """Store precomputed ``((op, value, precision), (kind, b))`` pairs (rules.boxes computes a
    model's thresholds at once with numpy; check :func:`known` against the limit first)."""
    _CANON.update(entries)


def known() -> int:
    """How many canonical boundaries are remembered."""
    return len(_CANON)


def forget() -> None:
    """Empty the remembered boundaries (a long-lived process bounds its memory this way)."""
    _CANON.clear()


def upper(op: str, value: float, precision: str) -> float:
    """``b`` with ``cast(x) op value`` <=> ``x <= b`` (op ``<=`` or ``<``)."""
    return canonical(op, value, precision)[1]


def lower(op: str, value: float, precision: str) -> float | None:
    """``a`` with ``cast(x) op value`` <=> ``x >= a`` (op ``>`` or ``>=``); None when no float64 holds."""
    b = canonical(op, value, precision)[1]  # x > b
    return None if b == INF else next_up(b)


def closed(op: str, value: float, precision: str) -> tuple[tuple[float, float], ...]:
    """The non-missing float64 values where ``cast(x) op value`` holds, as closed ``(lo, hi)`` pairs
    (sorted, disjoint; ``()`` when none). ValueError for a NaN value or an unknown operator."""
    if math.isnan(value):
        raise ValueError("comparison with NaN (use 'is missing')")
    if op in ("<=", "<"):
        return ((-INF, upper(op, value, precision)),)
    if op in (">", ">="):
        a = lower(op, value, precision)
        return () if a is None else ((a, INF),)
    if op in ("=", "!="):
        a = lower(">=", value, precision)
        hi = upper("<=", value, precision)
        eq = ((a, hi),) if a is not None and a <= hi else ()
        if op == "=":
            return eq
        return tuple((lo.at, hi.at) for lo, hi in complement(tuple((Bound(lo), Bound(hi)) for lo, hi in eq)))
    raise ValueError(f"unsupported comparison operator {op!r}")


def member(pairs: Iterable[tuple[float, float]], x: float) -> bool:
    """``x`` lies in one of the closed ``(lo, hi)`` pairs (never for NaN)."""
    return any(lo <= x <= hi for lo, hi in pairs)


def bounds(pairs: Iterable[tuple[float, float]]) -> tuple[Interval, ...]:
    """Closed ``(lo, hi)`` float pairs as a set of :class:`Bound` intervals (no literals)."""
    return tuple((Bound(lo), Bound(hi)) for lo, hi in pairs)


# --- sets of intervals -----------------------------------------------------------------------------


def is_universe(a: tuple[Interval, ...]) -> bool:
    """Every float64 value (``[-inf, inf]``)."""
    return len(a) == 1 and a[0][0].at == -INF and a[0][1].at == INF


def merge(ivs: Iterable[Interval]) -> tuple[Interval, ...]:
    """The union of any intervals as a set: sorted, overlapping and adjacent ones joined, empty
    ones (``lo > hi``) dropped."""
    ivs = sorted(ivs, key=lambda iv: (iv[0].at, iv[1].at))
    out: list[Interval] = []
    for lo, hi in ivs:
        if lo.at > hi.at:
            continue
        if out and lo.at <= next_up(out[-1][1].at):
            plo, phi = out[-1]
            if hi.at > phi.at:
                out[-1] = (plo, hi)
            continue
        out.append((lo, hi))
    return tuple(out)


def union(a: tuple[Interval, ...], b: tuple[Interval, ...]) -> tuple[Interval, ...]:
    return merge(list(a) + list(b))


def intersect(a: tuple[Interval, ...], b: tuple[Interval, ...]) -> tuple[Interval, ...]:
    """The values in both sets (the tighter bound, with its literal, wins)."""
    out: list[Interval] = []
    i = j = 0
    while i < len(a) and j < len(b):
        (alo, ahi), (blo, bhi) = a[i], b[j]
        lo = alo if alo.at >= blo.at else blo
        hi = ahi if ahi.at <= bhi.at else bhi
        if lo.at <= hi.at:
            out.append((lo, hi))
        if ahi.at <= bhi.at:
            i += 1
        else:
            j += 1
    return tuple(out)


def _keep(lit: Any) -> Any:
    return lit


def complement(a: tuple[Interval, ...], negate: Callable[[Any], Any] = _keep) -> tuple[Interval, ...]:
    """The float64 values outside ``a``; a new bound next to an old one carries ``negate(old.lit)``
    (the literal true exactly where the old one is false)."""
    out: list[Interval] = []
    prev_hi: Bound | None = None
    for lo, hi in a:
        if lo.at > -INF:
            start = LOW if prev_hi is None else Bound(next_up(prev_hi.at), negate(prev_hi.lit))
            end = Bound(next_down(lo.at), negate(lo.lit))
            if start.at <= end.at:
                out.append((start, end))
        prev_hi = hi
        if hi.at == INF:
            break
    else:
        if prev_hi is None:
            out.append((LOW, HIGH))
        elif prev_hi.at < INF:
            out.append((Bound(next_up(prev_hi.at), negate(prev_hi.lit)), HIGH))
    return tuple(out)


def contains(a: tuple[Interval, ...], b: tuple[Interval, ...]) -> bool:
    """Every value of ``b`` is in ``a``."""
    j = 0
    for lo, hi in b:
        while j < len(a) and a[j][1].at < hi.at:
            j += 1
        if j == len(a):
            return False
        if a[j][0].at > lo.at:
            return False
    return True


__all__ = ["ALL", "Bound", "CANON_KEPT", "HIGH", "INF", "Interval", "LOW", "bounds", "canonical", "closed",
           "complement", "contains", "forget", "intersect", "is_universe", "known", "lower", "member", "merge",
           "next_down", "next_up", "remember", "union", "upper"]
