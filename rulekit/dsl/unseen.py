"""Unseen-value declarations: ``unseen wind counts as weak`` said once per nominal feature instead
of ``wind not in {strong}`` wherever a test must also hold for values outside the domain.

Pure notation, like :mod:`rulekit.dsl.missing`: the parser *expands* a declaration and the printer
*collapses* into one only when expanding gives back exactly the same conditions. Under ``unseen x
counts as v`` a test ``L`` of ``x`` reads as holding for a value outside the domain exactly when it
holds for ``v``. Expanding rewrites only the tests where that differs from what ``L`` says by itself:

* ``x = v`` or ``x in S`` (``v`` in ``S``) becomes ``x not in D - S`` (``D`` the domain, in its order);
* ``x != v`` or ``x not in T`` (``v`` in ``T``) becomes ``x in D - T``;

a set of one value is written ``x != a`` / ``x = a``, as rulekit's rules write one.

Every other test already treats an unseen value as ``v`` and stays as written. A rule base whose
``x not in T`` tests all leave out ``v`` and only ``v`` (so each holds for unseen values and for
``v`` alike, and for no other value) prints them as ``x = v`` under the declaration; where a test
would read ``x in {p, q, r}`` instead of ``x != s`` nothing is declared (the negative form is the
shorter one there). A test that holds for unseen values but
not for ``v`` (an ID3/C4.5 "other" branch: ``wind not in {strong, weak}``, which carries the parent's
distribution) blocks the declaration: those rule bases print as they are, so their meaning never
changes. Tests under ``not`` and linear tests block it too. Nothing here recurses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulekit.rules.conditions import And, Compare, InSet, Not, Or
from rulekit.rules.rewrite import rewrite
from rulekit.semantics.values import contains, same

if TYPE_CHECKING:  # rules.base reaches the linter, which loads the printer and this module
    from rulekit.rules.base import RuleBase


def _holds_known(lit, v) -> bool | None:
    """Whether nominal test ``lit`` holds for domain value ``v`` (None: not a test this handles)."""
    if type(lit) is InSet:
        return contains(lit.values, v) != lit.negated
    if type(lit) is Compare and lit.op in ("=", "!="):
        return same(lit.value, v) == (lit.op == "=")
    return None


def _holds_unseen(lit) -> bool | None:
    """Whether ``lit`` holds for a value outside the domain."""
    if type(lit) is InSet:
        return lit.negated
    if type(lit) is Compare and lit.op in ("=", "!="):
        return lit.op == "!="
    return None


def _domains(rb: RuleBase) -> dict:
    return {f.name: tuple(f.domain) for f in rb.features if f.kind == "nominal" and f.domain}


def expand(rb: RuleBase, declared: dict) -> RuleBase:
    """``rb`` with each declaration written out in every test of its feature."""
    if not declared:
        return rb
    domains = _domains(rb)

    def leaf(node):
        if type(node) not in (Compare, InSet) or node.feature not in declared:
            return node
        v = declared[node.feature]
        at_v, outside = _holds_known(node, v), _holds_unseen(node)
        if at_v is None or at_v == outside:
            return node
        keep = tuple(d for d in domains[node.feature] if _holds_known(node, d) != at_v)
        if len(keep) == 1:  # one value: written as rulekit's rules write it (`x != a`, `x = a`)
            return Compare(feature=node.feature, op="!=" if at_v else "=", value=keep[0])
        return InSet(feature=node.feature, values=keep, negated=at_v)

    rules = tuple(r.model_copy(update={"condition": rewrite(r.condition, leaf)}) for r in rb.rules)
    return rb.model_copy(update={"rules": rules})


def collapse(rb: RuleBase) -> tuple[RuleBase, dict]:
    """``(collapsed rule base, {feature: value})`` such that ``expand(collapsed, decl) == rb``; a
    feature is declared only when some ``x not in {a, b, ...}`` holds for unseen values (there is
    something to say) and a value ``v`` makes every test agree on ``v`` and unseen values."""
    domains = _domains(rb)
    tests: dict = {}
    blocked: set = set()
    for r in rb.rules:
        stack = [(r.condition, False)]
        while stack:
            node, negated = stack.pop()
            t = type(node)
            if t in (And, Or):
                stack.extend((k, negated) for k in node.items)
            elif t is Not:
                stack.append((node.item, True))
            elif t in (Compare, InSet):
                if node.feature in domains:
                    tests.setdefault(node.feature, []).append(node)
                    if negated or _holds_known(node, domains[node.feature][0]) is None:
                        blocked.add(node.feature)
            elif hasattr(node, "terms"):  # a linear test
                blocked.update(name for _, name in node.terms)
    declared: dict = {}
    for name, lits in tests.items():
        if name in blocked or not any(_holds_unseen(x) and type(x) is InSet and len(x.values) > 1 for x in lits):
            continue  # nothing to say: no `x not in {a, b, ...}` (an `x != a` is as short as `x = v`)
        for v in domains[name]:
            # only where every test holding for unseen values then reads `x = v` (one value): a
            # `x != s` or `x not in {a, b}` over a bigger domain is already the shorter form
            if all(_holds_unseen(x) == _holds_known(x, v) for x in lits) and \
                    all(sum(bool(_holds_known(x, d)) for d in domains[name]) == 1 for x in lits if _holds_unseen(x)):
                declared[name] = v
                break
    if not declared:
        return rb, {}

    def leaf(node):
        if type(node) not in (Compare, InSet) or node.feature not in declared or not _holds_unseen(node):
            return node
        keep = tuple(d for d in domains[node.feature] if _holds_known(node, d))
        if len(keep) == 1:
            return Compare(feature=node.feature, op="=", value=keep[0])
        return InSet(feature=node.feature, values=keep, negated=False)

    rules = tuple(r.model_copy(update={"condition": rewrite(r.condition, leaf)}) for r in rb.rules)
    out = rb.model_copy(update={"rules": rules})
    return (out, declared) if expand(out, declared) == rb else (rb, {})
