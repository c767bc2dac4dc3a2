"""Boxes rendered back into conditions: per key the literals that say ``key in set``, using the
literals the bounds remember (``x > 2 and x > 5`` -> ``x > 5``), ``x != v`` for two rays, and shared
objects for the literals a tree's rules repeat. One reason to change: how a box is written."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rulekit.rules.conditions import And, Compare, InSet, IsMissing, Linear, Not, Or
from rulekit.rules.constraints import UNSEEN, Constraint, NomSet, NumSet
from rulekit.semantics.intervals import INF, Bound

if TYPE_CHECKING:
    from rulekit.rules.boxes import Box
    from rulekit.rules.literal_sets import LiteralSchema


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


def nan_sum(terms: tuple[tuple[float, str], ...]) -> tuple:
    """Disjuncts that say "this oblique sum is NaN though no input is missing" (``inf - inf``,
    ``0 * inf``; empty when it cannot be: one nonzero term), from
    :func:`rulekit.semantics.routing.nan_sum_tests`; made once per sum."""
    # routing loads numpy: imported here so that 'rulekit check' (lint_base renders boxes) stays
    # without numpy unless a rule base has an oblique sum (no cycle: routing imports no rulekit)
    from rulekit.semantics import routing  # noqa: PLC0415

    def make() -> tuple:
        items = []
        for clause in routing.nan_sum_tests(terms):
            lits = tuple(Linear(terms=t, op=op, value=v) for t, op, v in clause)
            items.append(lits[0] if len(lits) == 1 else And(items=lits))
        return tuple(items)

    return _shared(("nan_sum", tuple((w.hex(), n) for w, n in terms)), make)  # -0.0 prints as itself


def constraint_condition(key: Any, c: Constraint, schema: LiteralSchema, *, nan_sums: bool = False) -> list[Any]:
    """Conjuncts that say ``key in c`` (empty list: no constraint; ``[Or()]``: never TRUE).

    ``nan_sums``: an oblique sum's missing flag (the sum is NaN: a missing input, or ``inf - inf`` as
    the tree routes it) is spelled with :func:`nan_sum` as well as ``is missing``, and a sum that may
    be any number but NaN gets ``not (<NaN clauses>)``, as rulekit.rules.extract spells tree paths;
    without it only the missing inputs are spelled (a NaN sum then fires neither side)."""
    if c.is_true:
        return []
    if nan_sums and isinstance(key, tuple) and (c.missing or c.is_universe):
        nan = nan_sum(key[1])
        if nan:
            return _with_nan_sum(key, c, schema, nan)
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


def _with_nan_sum(key: tuple, c: NumSet, schema: LiteralSchema, nan: tuple) -> list[Any]:
    """``key in c`` for a sum whose NaN (``nan``: its clauses) is in ``c`` or is all ``c`` leaves out."""
    core = constraint_condition(key, c.with_missing(False), schema)
    if not c.missing:  # every sum but a NaN one: inputs present and not inf - inf
        return [*core, Not(item=Or(items=nan))]
    inner = [] if core == [Or(items=())] else [core[0] if len(core) == 1 else And(items=tuple(core))]
    miss = [_is_missing(n) for n in dict.fromkeys(n for _, n in key[1])]
    return [Or(items=(*inner, *miss, *nan))]


def _nominal_literal(key: int, c: NomSet, schema: LiteralSchema, name: str) -> list[Any] | None:
    if not c.codes:
        return None
    if c.is_universe:
        return [_is_missing(name, True)]
    return [_shared(("nominal", name, id(schema.features[key]), c.codes),
                    lambda: _nominal_test(key, c, schema, name), schema.features[key])]


def _nominal_test(key: int, c: NomSet, schema: LiteralSchema, name: str) -> Any:
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


def box_condition(box: Box, schema: LiteralSchema) -> Any:
    items: list[Any] = []
    for k, c in box.items.items():
        items.extend(constraint_condition(k, c, schema, nan_sums=True))
    if len(items) == 1:
        return items[0]
    return And(items=tuple(items))


def boxes_condition(boxes: Sequence[Box], schema: LiteralSchema) -> Any:
    if not boxes:
        return Or(items=())
    if len(boxes) == 1:
        return box_condition(boxes[0], schema)
    terms = [box_condition(b, schema) for b in boxes]
    return Or(items=tuple(terms))


def forget_rendered() -> None:
    """Empty the shared rendered literals (a long-lived process bounds its memory this way)."""
    _SHARED.clear()


__all__ = ["box_condition", "boxes_condition", "constraint_condition", "forget_rendered", "nan_sum"]
