"""Conditions as value sets ("boxes"): what each feature must be for a condition to be TRUE.

Every pass that reasons about conditions (simplify, prune, DNF merging, the engine's compiler) works
on boxes. A *box* is a conjunction written as one constraint per *key* -- a feature index, or a
``("linear", terms)`` key for an oblique sum -- where a constraint is the exact set of values that
make the condition TRUE:

* numeric: a union of closed float64 intervals ``[lo, hi]`` (:mod:`rulekit.semantics.intervals`,
  so ``float32(x) < t`` and friends are exact) plus whether a missing value satisfies it;
* nominal: a set of domain codes (``-1`` = a value outside the domain) plus the same missing flag.

A condition is a disjunction of boxes (DNF). Three-valued logic (see :mod:`rulekit.rules.base`)
survives the translation because negations are first pushed down to literals (Kleene's De Morgan
laws hold) and a literal on a missing value is never TRUE; ``is missing`` is the only way in.

Each bound remembers the literal that writes it, so a box renders back to the user's own
thresholds and operators (``x > 2 and x > 5`` -> ``x > 5``).

This module builds boxes from conditions, merges them and caches them per condition; the parts
live in :mod:`rulekit.rules.constraints` (value sets), :mod:`rulekit.rules.literal_sets` (the
schema: literals -> sets), :mod:`rulekit.rules.box_conditions` (boxes -> conditions) and
:mod:`rulekit.rules.walk` (condition traversal), all re-exported here.
"""

from __future__ import annotations

import contextlib
import gc
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from rulekit.rules.conditions import TRUE, And, Not, Or
from rulekit.rules.constraints import (UNSEEN, Constraint, NomSet, NumSet, complement, contains, disjoint,
                                       intersect, nom_universe, num_universe, union)
from rulekit.rules.literal_sets import (  # noqa: F401 (the LSP tests read _CANON)
    _CANON, LiteralSchema, prime_canonical)
from rulekit.rules.box_conditions import box_condition, boxes_condition, constraint_condition, forget_rendered
from rulekit.rules.walk import (children, conjuncts, count_literals, fold, is_false, is_true, iter_literals,
                                negate_literal, nnf, rules_literals)
from rulekit.semantics.intervals import HIGH, INF, LOW, Bound, Interval


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


def remember_boxes(cond: Any, schema: LiteralSchema, boxes: list[Box], *, rendered: bool = False) -> None:
    """Record that ``cond`` is exactly the union of ``boxes`` (saves re-deriving it later);
    ``rendered``: ``cond`` is ``boxes_condition(boxes, schema)`` itself (see :func:`is_rendered`)."""
    key = (id(cond), id(schema.rb.features), schema.precision)
    _box_cache[key] = (cond, boxes, True) if rendered else (cond, boxes)


def is_rendered(cond: Any, schema: LiteralSchema) -> bool:
    """``cond`` was rendered from one box (``remember_boxes(..., rendered=True)``): simplifying it
    would merge that box with nothing and render it again, giving an equal condition."""
    hit = _box_cache.get((id(cond), id(schema.rb.features), schema.precision))
    return hit is not None and hit[0] is cond and len(hit) == 3 and len(hit[1]) == 1


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


def condition_boxes(cond: Any, schema: LiteralSchema, *, limit: int = 256) -> list[Box]:
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
    forget_rendered()


def _has_not(cond: Any) -> bool:
    stack = [cond]
    while stack:
        node = stack.pop()
        if isinstance(node, Not):
            return True
        if isinstance(node, (And, Or)):
            stack.extend(node.items)
    return False


def _condition_boxes(cond: Any, schema: LiteralSchema, limit: int) -> list[Box]:

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


__all__ = ["Box", "Bound", "Constraint", "HIGH", "INF", "Interval", "LOW", "LiteralSchema", "NomSet", "NumSet",
           "TRUE", "TooComplex", "UNSEEN", "box_condition", "boxes_condition", "children", "complement",
           "condition_boxes", "conjuncts", "constraint_condition", "contains", "count_literals", "disjoint",
           "fold", "forget_boxes", "is_false", "is_rendered", "is_true", "iter_literals", "merge_boxes",
           "negate_literal", "nnf", "no_gc", "nom_universe", "num_universe", "prime_canonical", "remember_boxes",
           "rules_literals", "union"]
