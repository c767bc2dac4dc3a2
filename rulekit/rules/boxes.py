"""Conditions as value sets ("boxes"): what each feature must be for a condition to be TRUE.

Every pass that reasons about conditions (simplify, prune, DNF merging, the engine's compiler) works
on boxes. A *box* is a conjunction written as one constraint per *key* -- a feature index, or a
``("linear", terms)`` key for an oblique sum -- where a constraint is the exact set of values that
make the condition TRUE:

* numeric: a union of closed float64 intervals ``[lo, hi]`` (canonical bounds from
  :func:`rulekit.semantics.canonical`, so ``float32(x) < t`` and friends are exact) plus whether a
  missing value satisfies it;
* nominal: a set of domain codes (``-1`` = a value outside the domain) plus the same missing flag.

A condition is a disjunction of boxes (DNF). Three-valued logic (see :mod:`rulekit.rules.base`)
survives the translation because negations are first pushed down to literals (Kleene's De Morgan
laws hold) and a literal on a missing value is never TRUE; ``is missing`` is the only way in.

Each bound remembers the literal that writes it, so a box renders back to the user's own
thresholds and operators (``x > 2 and x > 5`` -> ``x > 5``).
"""

from __future__ import annotations

import contextlib
import gc
import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from rulekit import semantics
from rulekit.errors import RulekitError
from rulekit.rules.conditions import TRUE, And, Compare, InSet, IsMissing, Linear, Not, Or

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

INF = math.inf
_NEGATE_OP = {"<=": ">", "<": ">=", ">": "<=", ">=": "<", "=": "!=", "!=": "="}
UNSEEN = -1


@contextlib.contextmanager
def no_gc():
    """Pause the cyclic garbage collector while a pass builds many small acyclic objects (its
    repeated full collections otherwise dominate the run time on deep trees)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class TooComplex(Exception):
    """A condition whose DNF would exceed the size limit (the caller keeps it as written)."""


def _next(x: float) -> float:
    return math.nextafter(x, INF)


def _prev(x: float) -> float:
    return math.nextafter(x, -INF)


# --- constraints ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bound:
    """A closed bound: ``x >= at`` (lower) or ``x <= at`` (upper); ``lit`` writes it (None: unbounded)."""

    at: float
    lit: Any = field(default=None, compare=False, hash=False)


LOW = Bound(-INF)
HIGH = Bound(INF)
Interval = tuple[Bound, Bound]


@dataclass(frozen=True, slots=True)
class NumSet:
    """Non-missing values in a sorted union of disjoint, non-adjacent closed intervals; ``missing``."""

    intervals: tuple[Interval, ...] = ()
    missing: bool = False

    @property
    def is_universe(self) -> bool:
        return len(self.intervals) == 1 and self.intervals[0][0].at == -INF and self.intervals[0][1].at == INF

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


def _merge_intervals(ivs: list[Interval]) -> tuple[Interval, ...]:
    ivs = sorted(ivs, key=lambda iv: (iv[0].at, iv[1].at))
    out: list[Interval] = []
    for lo, hi in ivs:
        if lo.at > hi.at:
            continue
        if out and lo.at <= _next(out[-1][1].at):
            plo, phi = out[-1]
            if hi.at > phi.at:
                out[-1] = (plo, hi)
            continue
        out.append((lo, hi))
    return tuple(out)


def union(a: Constraint, b: Constraint) -> Constraint:
    if isinstance(a, NomSet):
        return NomSet(a.codes | b.codes, a.size, a.missing or b.missing)
    return NumSet(_merge_intervals(list(a.intervals) + list(b.intervals)), a.missing or b.missing)


def intersect(a: Constraint, b: Constraint) -> Constraint:
    if isinstance(a, NomSet):
        return NomSet(a.codes & b.codes, a.size, a.missing and b.missing)
    out: list[Interval] = []
    i = j = 0
    A, B = a.intervals, b.intervals
    while i < len(A) and j < len(B):
        (alo, ahi), (blo, bhi) = A[i], B[j]
        lo = alo if alo.at >= blo.at else blo
        hi = ahi if ahi.at <= bhi.at else bhi
        if lo.at <= hi.at:
            out.append((lo, hi))
        if ahi.at <= bhi.at:
            i += 1
        else:
            j += 1
    return NumSet(tuple(out), a.missing and b.missing)


def complement(a: Constraint) -> Constraint:
    """The non-missing values outside ``a`` (missing flag: not ``a.missing``)."""
    if isinstance(a, NomSet):
        return NomSet(frozenset(range(-1, a.size)) - a.codes, a.size, not a.missing)
    out: list[Interval] = []
    prev_hi: Bound | None = None
    for lo, hi in a.intervals:
        if lo.at > -INF:
            start = LOW if prev_hi is None else Bound(_next(prev_hi.at), negate_literal(prev_hi.lit))
            end = Bound(_prev(lo.at), negate_literal(lo.lit))
            if start.at <= end.at:
                out.append((start, end))
        prev_hi = hi
        if hi.at == INF:
            break
    else:
        if prev_hi is None:
            out.append((LOW, HIGH))
        elif prev_hi.at < INF:
            out.append((Bound(_next(prev_hi.at), negate_literal(prev_hi.lit)), HIGH))
    return NumSet(tuple(out), not a.missing)


def contains(a: Constraint, b: Constraint) -> bool:
    """``b`` is a subset of ``a``."""
    if b.missing and not a.missing:
        return False
    if isinstance(a, NomSet):
        return b.codes <= a.codes
    j = 0
    for lo, hi in b.intervals:
        while j < len(a.intervals) and a.intervals[j][1].at < hi.at:
            j += 1
        if j == len(a.intervals):
            return False
        alo, ahi = a.intervals[j]
        if alo.at > lo.at:
            return False
    return True


def disjoint(a: Constraint, b: Constraint) -> bool:
    return intersect(a, b).is_empty


# --- schema: feature names -> keys, literals -> value sets --------------------------------------------


class Schema:
    """The rule base's features and precision, resolving names and labels (errors name the rule)."""

    def __init__(self, rb: RuleBase):
        self.rb = rb
        self.features = list(rb.features)
        self.precision = rb.precision
        self.index = {f.name: i for i, f in enumerate(self.features)}
        self._codes: dict[int, dict[Any, int]] = {}
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
            table = {}
            for i, v in enumerate(self.features[key].domain or ()):
                table.setdefault((type(v), v), i)
                table.setdefault(("str", str(v)), i)
            self._codes[key] = table
        hit = table.get((type(value), value))
        if hit is None:
            hit = table.get(("str", str(value)))
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


def _with_op(lit: Any, op: str) -> Any:
    return lit.model_copy(update={"op": op})


def _numeric_set(op: str, value: float, precision: str, lit: Any) -> NumSet:
    if math.isnan(value):
        raise RulekitError("comparison with NaN (use 'is missing')")
    if op == "=":
        lo = _lower(">=", value, precision, _with_op(lit, ">="))
        hi = _upper("<=", value, precision, _with_op(lit, "<="))
        return NumSet(((lo, hi),) if lo.at <= hi.at else ())
    if op == "!=":
        return complement(_numeric_set("=", value, precision, lit)).with_missing(False)
    if op in ("<=", "<"):
        return NumSet(((LOW, _upper(op, value, precision, lit)),))
    lo = _lower(op, value, precision, lit)
    return NumSet(((lo, HIGH),) if lo.at < INF or op == ">=" else ())


_CANON: dict[tuple, tuple[str, float]] = {}


def _canonical(op: str, value: float, precision: str) -> tuple[str, float]:
    key = (op, value, precision)
    hit = _CANON.get(key)
    if hit is None:
        hit = semantics.canonical(op, value, precision)
        if len(_CANON) > 1 << 20:
            _CANON.clear()
        _CANON[key] = hit
    return hit


def prime_canonical(thresholds: Sequence[float], precision: str) -> None:
    """Compute the canonical bounds of many thresholds at once (vectorized) for later lookups."""
    ts = np.unique(np.asarray([t for t in thresholds if not math.isnan(t)], dtype=np.float64))
    if not ts.size or len(_CANON) + 4 * ts.size > 1 << 20:
        return
    le = semantics.boundary_array("<=", ts, precision)
    lt = semantics.boundary_array("<", ts, precision)
    for t, a, b in zip(ts.tolist(), le.tolist(), lt.tolist()):
        _CANON[("<=", t, precision)] = ("<=", a)
        _CANON[(">", t, precision)] = (">", a)
        _CANON[("<", t, precision)] = ("<=", b)
        _CANON[(">=", t, precision)] = (">", b)


def remember_boxes(cond: Any, schema: Schema, boxes: list[Box], *, rendered: bool = False) -> None:
    """Record that ``cond`` is exactly the union of ``boxes`` (saves re-deriving it later);
    ``rendered``: ``cond`` is ``boxes_condition(boxes, schema)`` itself (see :func:`is_rendered`)."""
    key = (id(cond), id(schema.rb.features), schema.precision)
    _box_cache[key] = (cond, boxes, True) if rendered else (cond, boxes)


def is_rendered(cond: Any, schema: Schema) -> bool:
    """``cond`` was rendered from one box (``remember_boxes(..., rendered=True)``): simplifying it
    would merge that box with nothing and render it again, giving an equal condition."""
    hit = _box_cache.get((id(cond), id(schema.rb.features), schema.precision))
    return hit is not None and hit[0] is cond and len(hit) == 3 and len(hit[1]) == 1


def _upper(op: str, value: float, precision: str, lit: Any) -> Bound:
    _, b = _canonical(op, value, precision)
    return Bound(b, lit)


def _lower(op: str, value: float, precision: str, lit: Any) -> Bound:
    _, b = _canonical(op, value, precision)  # x > b
    if b == INF:
        return Bound(INF, lit)  # x > inf: nothing (callers drop it)
    return Bound(_next(b), lit)


def negate_literal(lit: Any) -> Any:
    """The literal TRUE exactly where ``lit`` is FALSE (never at a missing value)."""
    if lit is None:
        return None
    if isinstance(lit, (Compare, Linear)):
        return _with_op(lit, _NEGATE_OP[lit.op])
    if isinstance(lit, (InSet, IsMissing)):
        return lit.model_copy(update={"negated": not lit.negated})
    raise TypeError(f"not a literal: {lit!r}")


# --- condition walking (explicit stacks) ---------------------------------------------------------------


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


# --- boxes -----------------------------------------------------------------------------------------------


class Box:
    """A conjunction: ``items`` maps key -> constraint (insertion order = order of first appearance)."""

    __slots__ = ("items", "_sig")

    def __init__(self, items: dict | None = None):
        self.items: dict[Any, Constraint] = items if items is not None else {}
        self._sig: frozenset | None = None

    def signature(self) -> frozenset:
        if self._sig is None:
            self._sig = frozenset(self.items.items())
        return self._sig

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and self.signature() == other.signature()

    def __hash__(self) -> int:
        return hash(self.signature())

    def __repr__(self) -> str:
        return f"Box({self.items!r})"

    def copy(self) -> Box:
        return Box(dict(self.items))

    def restrict(self, key: Any, c: Constraint) -> Box | None:
        """This box AND ``key in c`` (None when that is empty)."""
        old = self.items.get(key)
        new = c if old is None else intersect(old, c)
        if new.is_empty:
            return None
        if new.is_true:
            if old is None:
                return self
            items = dict(self.items)
            del items[key]
            return Box(items)
        items = dict(self.items)
        items[key] = new
        return Box(items)

    def meet(self, other: Box) -> Box | None:
        out: Box | None = self
        for k, c in other.items.items():
            out = out.restrict(k, c)
            if out is None:
                return None
        return out

    def subsumes(self, other: Box) -> bool:
        """Every row satisfying ``other`` satisfies ``self``."""
        for k, c in self.items.items():
            oc = other.items.get(k)
            if oc is None or not contains(c, oc):
                return False
        return True

    def disjoint(self, other: Box) -> bool:
        for k, c in self.items.items():
            oc = other.items.get(k)
            if oc is not None and disjoint(c, oc):
                return True
        return False


_box_cache: OrderedDict[tuple, tuple[Any, list[Box]]] = OrderedDict()


def condition_boxes(cond: Any, schema: Schema, *, limit: int = 256) -> list[Box]:
    """The condition as a list of boxes whose union is exactly where it is TRUE (raises TooComplex).

    Results are cached per condition object and schema (conditions are immutable)."""
    key = (id(cond), id(schema.rb.features), schema.precision)
    hit = _box_cache.get(key)
    if hit is not None and hit[0] is cond:
        if len(hit[1]) > limit:
            raise TooComplex
        return hit[1]
    out = _condition_boxes(cond, schema, limit)
    _box_cache[key] = (cond, out)
    if len(_box_cache) > 1 << 17:
        for _ in range(1 << 15):
            _box_cache.popitem(last=False)
    return out


def forget_boxes() -> None:
    """Empty the per-condition cache: a long-lived process (``rulekit lsp``) that lints a new rule
    base on every edit would otherwise keep up to 131,072 stale conditions and their boxes (and up
    to 262,144 shared rendered literals)."""
    _box_cache.clear()
    _SHARED.clear()


def _has_not(cond: Any) -> bool:
    stack = [cond]
    while stack:
        node = stack.pop()
        if isinstance(node, Not):
            return True
        if isinstance(node, (And, Or)):
            stack.extend(node.items)
    return False


def _condition_boxes(cond: Any, schema: Schema, limit: int) -> list[Box]:

    def step(node, args):
        if isinstance(node, And):
            if all(len(b) == 1 for b in args):  # a plain conjunction: one box, built in place
                return _conjunction([b for (b,) in args])
            acc = [Box()]
            for boxes in args:
                nxt = []
                for a in acc:
                    for b in boxes:
                        m = a.meet(b)
                        if m is not None:
                            nxt.append(m)
                if len(nxt) > limit:
                    raise TooComplex
                acc = nxt
                if not acc:
                    break
            return acc
        if isinstance(node, Or):
            out = [b for boxes in args for b in boxes]
            if len(out) > 1 and all(len(b.items) == 1 for b in out):
                keys = {k for b in out for k in b.items}
                if len(keys) == 1:  # one feature: a single union, e.g. `x <= t or x is missing`
                    (k,) = keys
                    u = out[0].items[k]
                    for b in out[1:]:
                        u = union(u, b.items[k])
                    return [Box()] if u.is_true else [Box({k: u})]
            if len(out) > 1:
                out = merge_boxes(out)
            if len(out) > limit:
                raise TooComplex
            return out
        key, s = schema.literal_set(node)
        if s.is_empty:
            return []
        if s.is_true:
            return [Box()]
        return [Box({key: s})]

    return fold(nnf(cond) if _has_not(cond) else cond, step)


def _conjunction(boxes: list[Box]) -> list[Box]:
    """The intersection of single boxes; single numeric intervals are narrowed without building
    intermediate sets (long raw tree paths are thousands of literals on a few features)."""
    items: dict = {}
    spans: dict = {}  # key -> [lo, hi, missing] for single-interval numeric constraints
    for b in boxes:
        for k, c in b.items.items():
            if isinstance(c, NumSet) and len(c.intervals) == 1 and k not in items:
                lo, hi = c.intervals[0]
                sp = spans.get(k)
                if sp is None:
                    spans[k] = [lo, hi, c.missing]
                else:
                    if lo.at > sp[0].at:
                        sp[0] = lo
                    if hi.at < sp[1].at:
                        sp[1] = hi
                    sp[2] = sp[2] and c.missing
                continue
            if k in spans:
                lo, hi, m = spans.pop(k)
                items[k] = NumSet(((lo, hi),) if lo.at <= hi.at else (), m)
            old = items.get(k)
            items[k] = c if old is None else intersect(old, c)
    order = {}
    for b in boxes:
        for k in b.items:
            order.setdefault(k, None)
    out = {}
    for k in order:
        if k in spans:
            lo, hi, m = spans[k]
            c = NumSet(((lo, hi),) if lo.at <= hi.at else (), m)
        else:
            c = items[k]
        if c.is_empty:
            return []
        if not c.is_true:
            out[k] = c
    return [Box(out)]


def merge_boxes(boxes: Sequence[Box]) -> list[Box]:
    """Exact simplification of a union of boxes: duplicates, absorption, and boxes that differ in one
    key joined (``x <= 5 or x > 5`` vanish; ``a = 1`` and ``a = 2`` give ``a in {1, 2}``; adjacent
    intervals join). Order of first appearance is kept."""
    cur = _absorb(list(dict.fromkeys(boxes)))
    while True:
        groups: dict[tuple, list[int]] = {}
        for i, b in enumerate(cur):
            for k in b.items:
                rest = frozenset((kk, c) for kk, c in b.items.items() if kk != k)
                groups.setdefault((k, rest), []).append(i)
        used: set[int] = set()
        replaced: dict[int, Box] = {}
        for (k, _), idx in groups.items():
            idx = [i for i in idx if i not in used]
            if len(idx) < 2:
                continue
            merged = cur[idx[0]].items[k]
            for i in idx[1:]:
                merged = union(merged, cur[i].items[k])
            items = dict(cur[idx[0]].items)
            if merged.is_true:
                del items[k]
            else:
                items[k] = merged
            replaced[idx[0]] = Box(items)
            used.update(idx)
        if not replaced:
            return cur
        cur = _absorb([replaced.get(i, b) for i, b in enumerate(cur) if i not in used or i in replaced])


def _absorb(boxes: list[Box]) -> list[Box]:
    """Drop duplicates and boxes contained in another box (the more general one stays)."""
    boxes = list(dict.fromkeys(boxes))
    if len(boxes) < 2:
        return boxes
    order = sorted(range(len(boxes)), key=lambda i: len(boxes[i].items))
    kept: list[int] = []
    for i in order:
        b = boxes[i]
        if any(boxes[j].subsumes(b) for j in kept):
            continue
        kept.append(i)
    keep = set(kept)
    return [b for i, b in enumerate(boxes) if i in keep]


# --- rendering boxes back into conditions ------------------------------------------------------------


# Literals and small conditions that rendering builds over and over (``x is missing``, the nominal
# tests, ``(x <= t or x is missing)`` around a split's shared literal) are made once and shared:
# conditions are immutable, and a tree's rules repeat them on every leaf below a split. Per rule
# this saves several pydantic objects (~0.5 KB each); see docs/engines.md, big models.
_SHARED: dict[tuple, tuple[Any, Any]] = {}
_SHARED_MAX = 1 << 18


def _shared(key: tuple, make: Callable[[], Any], keep: Any = None) -> Any:
    """The object made by ``make`` for ``key``, made once (``keep``: objects whose ``id`` is in
    ``key``, held so that the ids stay theirs)."""
    hit = _SHARED.get(key)
    if hit is not None:
        return hit[0]
    obj = make()
    if len(_SHARED) >= _SHARED_MAX:
        _SHARED.clear()
    _SHARED[key] = (obj, keep)
    return obj


def _is_missing(name: str, negated: bool = False) -> IsMissing:
    return _shared(("missing", name, negated), lambda: IsMissing(feature=name, negated=True) if negated
                   else IsMissing(feature=name))


def _joined(kind: type, items: tuple) -> Any:
    """``And``/``Or`` of ``items`` (shared when every item is)."""
    return _shared((kind, tuple(map(id, items))), lambda: kind(items=items), items)


def constraint_condition(key: Any, c: Constraint, schema: Schema) -> list[Any]:
    """Conjuncts that say ``key in c`` (empty list: no constraint; ``[Or()]``: never TRUE)."""
    if c.is_true:
        return []
    if isinstance(key, tuple):  # linear
        name = None
        is_missing = [_is_missing(n) for n in dict.fromkeys(n for _, n in key[1])]
    else:
        name = schema.features[key].name
        is_missing = [_is_missing(name)]
    if isinstance(c, NomSet):
        core = _nominal_literal(key, c, schema, name)
    else:
        core = _numeric_literals(key, c, name)
    if core is None:  # no non-missing value
        if not c.missing:
            return [Or(items=())]
        return is_missing if len(is_missing) == 1 else [Or(items=tuple(is_missing))]
    if not c.missing:
        return core
    inner = core[0] if len(core) == 1 else _joined(And, tuple(core))
    return [_joined(Or, (inner, *is_missing))]


def _nominal_literal(key: int, c: NomSet, schema: Schema, name: str) -> list[Any] | None:
    if not c.codes:
        return None
    if c.is_universe:
        return [_is_missing(name, True)]
    return [_shared(("nominal", name, id(schema.features[key]), c.codes),
                    lambda: _nominal_test(key, c, schema, name), schema.features[key])]


def _nominal_test(key: int, c: NomSet, schema: Schema, name: str) -> Any:
    dom = schema.features[key].domain or ()
    if UNSEEN in c.codes:
        out = [dom[i] for i in range(len(dom)) if i not in c.codes]
        if len(out) == 1:
            return Compare(feature=name, op="!=", value=out[0])
        return InSet(feature=name, values=tuple(out), negated=True)
    vals = [dom[i] for i in sorted(c.codes)]
    if len(vals) == 1:
        return Compare(feature=name, op="=", value=vals[0])
    return InSet(feature=name, values=tuple(vals))


def _bound_lit(b: Bound, key: Any, name: str | None, op: str) -> Any:
    if b.lit is not None:
        return b.lit
    # a bound without a literal (cannot come from user conditions; kept total for safety)
    if isinstance(key, tuple):
        return Linear(terms=key[1], op=op, value=b.at)
    return Compare(feature=name, op=op, value=b.at)


def _numeric_literals(key: Any, c: NumSet, name: str | None) -> list[Any] | None:
    if not c.intervals:
        return None
    if c.is_universe:
        if isinstance(key, tuple):
            return [Not(item=Or(items=tuple(IsMissing(feature=n) for n in dict.fromkeys(n for _, n in key[1]))))]
        return [IsMissing(feature=name, negated=True)]
    parts = []
    for lo, hi in c.intervals:
        lits = []
        if lo.at > -INF or lo.lit is not None:
            lits.append(_bound_lit(lo, key, name, ">="))
        if hi.at < INF or hi.lit is not None:
            lits.append(_bound_lit(hi, key, name, "<="))
        if len(lits) == 2 and _is_eq_pair(lits[0], lits[1]):
            lits = [lits[0].model_copy(update={"op": "="})]
        if not lits:
            lits = [IsMissing(feature=name, negated=True)]
        parts.append(lits)
    if len(parts) == 1:
        return parts[0]
    # x != v reads better than (x < v or x > v)
    if len(parts) == 2 and len(parts[0]) == 1 and len(parts[1]) == 1:
        a, b = parts[0][0], parts[1][0]
        if isinstance(a, Compare) and isinstance(b, Compare) and a.op == "<" and b.op == ">" \
                and a.value == b.value:
            return [a.model_copy(update={"op": "!="})]
    return [Or(items=tuple(p[0] if len(p) == 1 else And(items=tuple(p)) for p in parts))]


def _is_eq_pair(a: Any, b: Any) -> bool:
    return (isinstance(a, Compare) and isinstance(b, Compare) and a.op == ">=" and b.op == "<="
            and a.value == b.value and a.feature == b.feature)


def box_condition(box: Box, schema: Schema) -> Any:
    items: list[Any] = []
    for k, c in box.items.items():
        items.extend(constraint_condition(k, c, schema))
    if len(items) == 1:
        return items[0]
    return And(items=tuple(items))


def boxes_condition(boxes: Sequence[Box], schema: Schema) -> Any:
    if not boxes:
        return Or(items=())
    if len(boxes) == 1:
        return box_condition(boxes[0], schema)
    terms = [box_condition(b, schema) for b in boxes]
    return Or(items=tuple(terms))


# --- counting ---------------------------------------------------------------------------------------------


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


__all__ = ["Box", "Bound", "Constraint", "NomSet", "NumSet", "Schema", "TooComplex", "TRUE", "box_condition",
           "boxes_condition", "complement", "condition_boxes", "contains", "count_literals", "fold",
           "intersect", "iter_literals", "merge_boxes", "negate_literal", "nnf", "union"]
