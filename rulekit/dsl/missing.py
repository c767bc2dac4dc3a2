"""Missing-value declarations: ``missing outlook counts as rainy`` said once instead of
``(outlook = rainy or outlook is missing)`` on every test of ``outlook``.

A declaration is pure notation: the parser *expands* it (every test ``L`` of the feature that holds
for the declared value becomes ``(L or x is missing)``), and the printer *collapses* a rule base into
it only when expanding gives back exactly the same conditions. That is the case when every
``x is missing`` of the feature stands as ``(L or x is missing)`` with ``L`` true at the declared
value, every other test of the feature is false there, and no test of the feature stands under a
``not`` (where a missing value would not act like the declared value). Then a missing ``x`` makes
every rule fire exactly as the declared value would, which is what the line says.
Nothing here recurses: conditions are rebuilt bottom-up with an explicit stack.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING

from rulekit.rules.conditions import And, Compare, InSet, IsMissing, Not, Or, atoms
from rulekit.rules.rewrite import rewrite
from rulekit.semantics import intervals
from rulekit.semantics.values import contains, same

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

_OPS = ("<", "<=", ">", ">=", "=", "!=")


def holds(lit, v, precision: str) -> bool | None:
    """Whether test ``lit`` holds for value ``v`` of its feature (None: not a test this handles)."""
    if type(lit) is InSet:
        inside = contains(lit.values, v)
        return inside != lit.negated
    if type(lit) is not Compare:
        return None
    if isinstance(lit.value, float) and not isinstance(v, (str, bool)):
        if lit.op not in _OPS or lit.value != lit.value:
            return None
        try:
            pairs = intervals.closed("=" if lit.op == "!=" else lit.op, lit.value, precision)
        except (ValueError, OverflowError):
            return None
        inside = intervals.member(pairs, float(v))
        return not inside if lit.op == "!=" else inside
    eq = same(lit.value, v)
    return eq if lit.op == "=" else (not eq if lit.op == "!=" else None)


def expand(rb: RuleBase, declared: dict) -> RuleBase:
    """``rb`` with each declaration written out in every test of its feature."""
    if not declared:
        return rb
    rules = tuple(r.model_copy(update={"condition": _rebuild(r.condition, declared, rb.precision)})
                  for r in rb.rules)
    return rb.model_copy(update={"rules": rules})


def leaf_expansions(root, declared: dict, precision: str) -> list[bool]:
    """Per test of ``root`` in reading order: whether :func:`expand` pairs it with ``is missing``."""
    return [type(x) in (Compare, InSet) and x.feature in declared and holds(x, declared[x.feature], precision) is True
            for x in atoms(root, reading_order=True)]


def _rebuild(root, declared: dict, precision: str):
    def leaf(node):
        if type(node) in (Compare, InSet) and node.feature in declared and \
                holds(node, declared[node.feature], precision):
            return Or(items=(node, IsMissing(feature=node.feature)))
        return node

    return rewrite(root, leaf)


def collapse(rb: RuleBase) -> tuple[RuleBase, dict]:
    """``(collapsed rule base, {feature: value})`` such that ``expand(collapsed, decl) == rb``."""
    uses = _uses(rb)
    declared: dict = {}
    for f in rb.features:
        u = uses.get(f.name)
        if u is None or not u["paired"] or u["blocked"]:
            continue
        v = _value(f, u, rb.precision)
        if v is not None:
            declared[f.name] = v
    if not declared:
        return rb, {}
    rules = tuple(r.model_copy(update={"condition": _fold(r.condition, declared)}) for r in rb.rules)
    out = rb.model_copy(update={"rules": rules})
    return (out, declared) if expand(out, declared) == rb else (rb, {})


def _pair(node):
    """``L`` when ``node`` is ``(L or x is missing)`` with ``L`` a test of ``x``, else None."""
    if type(node) is Or and len(node.items) == 2:
        a, b = node.items
        if type(b) is IsMissing and not b.negated and type(a) in (Compare, InSet) and a.feature == b.feature:
            return a
    return None


def _uses(rb: RuleBase) -> dict:
    """Per feature: tests paired with ``is missing``, bare tests, and whether anything else blocks."""
    uses: dict = {}

    def entry(name):
        return uses.setdefault(name, {"paired": [], "bare": [], "blocked": False})

    for r in rb.rules:
        stack = [(r.condition, False)]
        while stack:
            node, negated = stack.pop()
            t = type(node)
            lit = _pair(node)
            if lit is not None:
                e = entry(lit.feature)
                e["paired"].append(lit)
                e["blocked"] |= negated
            elif t in (And, Or):
                stack.extend((k, negated) for k in node.items)
            elif t is Not:
                stack.append((node.item, True))
            elif t is IsMissing:
                entry(node.feature)["blocked"] |= not node.negated
            elif t in (Compare, InSet):
                e = entry(node.feature)
                e["bare"].append(node)
                e["blocked"] |= negated
            else:  # a linear test: its features are left as they are
                for _, name in node.terms:
                    entry(name)["blocked"] = True
    return uses


def _value(f, u: dict, precision: str):
    """A value true for every paired test and false for every bare one (None when there is none)."""
    def fits(v) -> bool:
        return all(holds(x, v, precision) is True for x in u["paired"]) and \
            all(holds(x, v, precision) is False for x in u["bare"])

    if f.kind == "nominal":
        return next((v for v in f.domain or () if fits(v)), None)
    cands = [-math.inf, math.inf, 0.0]
    points = sorted({float(x.value) for x in u["paired"] + u["bare"] if isinstance(x.value, float)})
    for a, b in zip(points, points[1:]):
        cands.extend(_short_between(a, b))
    cands.extend(points)
    return next((v for v in cands if fits(v)), None)


def _short_between(a: float, b: float) -> list[float]:
    """Short decimals strictly between ``a`` and ``b`` (finite), shortest first."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return []
    m = Decimal(a) / 2 + Decimal(b) / 2
    out = []
    for digits in range(1, 18):
        exp = m.adjusted() - digits + 1 if m != 0 else 0
        s = float(m.quantize(Decimal(1).scaleb(exp), rounding=ROUND_HALF_EVEN))
        if a < s < b:
            out.append(s)
            break
    return out


def _fold(root, declared: dict):
    def whole(node):
        lit = _pair(node)
        return lit if lit is not None and lit.feature in declared else None

    return rewrite(root, lambda node: node, whole)


def undeclared(rb: RuleBase) -> list[str]:
    """The features whose ``is missing`` tests stay in the text after :func:`collapse` (the model
    sends a missing value to sides no single value takes), in feature order."""
    out, _ = collapse(rb)
    names = {node.feature for r in out.rules for node in atoms(r.condition)
             if type(node) is IsMissing and not node.negated}
    return [f.name for f in rb.features if f.name in names]


def missing_comment(names: list[str]) -> str:
    """The header comment for an exact copy whose ``is missing`` tests no declaration replaces."""
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return (f"{shown}: the model sends a missing value to different sides at different splits, which no\n"
            "'missing ... counts as' line can say: their tests say 'or ... is missing' where it goes\n"
            "(with --prune-data, such tests go where no pruning row misses the feature)")


def with_missing_comment(rb: RuleBase) -> RuleBase:
    """``rb`` with :func:`missing_comment` last among its header comments when some feature keeps its
    ``is missing`` tests (the text ``rulekit rules MODEL`` and the studio write for a model)."""
    kept = undeclared(rb)
    if not kept:
        return rb
    return rb.model_copy(update={"comments": tuple(rb.comments) + (missing_comment(kept),)})
