"""Exact simplification passes (RuleBase -> RuleBase): every prediction and probability is unchanged.

``simplify``          per rule: one interval per numeric feature (``x > 2 and x > 5`` -> ``x > 5``),
                      merged set tests (``c in {a, b} and c != b`` -> ``c = a``), tautologies dropped,
                      a disjunction's terms absorbed and joined; rules that can never hold removed.
``drop_shadowed``     first-hit: rules that an earlier rule of their group always pre-empts, and
                      trailing rules that conclude exactly what the default concludes.
"""

from __future__ import annotations

from rulekit.rules.base import Rule, RuleBase
from rulekit.rules.boxes import (Box, LiteralSchema, TooComplex, boxes_condition, condition_boxes, count_literals,
                                 is_rendered, merge_boxes, no_gc, remember_boxes)

MAX_PAIRWISE = 4000  # boxes; above this the quadratic shadow check is skipped (it is only an economy)


def rule_name(rb: RuleBase, i: int) -> str:
    r = rb.rules[i]
    return r.id if r.id else f"#{i + 1}"


def simplify(rb: RuleBase) -> RuleBase:
    """Each rule's condition in its simplest equivalent form; never-true rules dropped."""
    with no_gc():
        return _simplify(rb)


def _simplify(rb: RuleBase) -> RuleBase:
    schema = LiteralSchema(rb)
    out: list[Rule] = []
    for i, r in enumerate(rb.rules):
        if is_rendered(r.condition, schema):
            out.append(r)  # extract's rendering of one box: already as simple as it gets
            continue
        schema.where = f"rule {rule_name(rb, i)}: "
        try:
            boxes = merge_boxes(condition_boxes(r.condition, schema))
        except TooComplex:
            out.append(r)
            continue
        if not boxes:
            continue  # never TRUE: it cannot fire, vote or add anything
        cond = boxes_condition(boxes, schema)
        if len(boxes) > 1 and count_literals(cond) > count_literals(r.condition):
            cond = r.condition  # the user's factored form is shorter than its DNF
        if cond is not r.condition and cond == r.condition:
            out.append(r)  # (remembering ``cond`` would only keep an unused copy in the box cache)
            continue
        remember_boxes(cond, schema, boxes)
        out.append(r if cond is r.condition else r.model_copy(update={"condition": cond}))
    rb = rb.model_copy(update={"rules": tuple(out)})
    if rb.semantics == "first-hit" or rb.combiner is not None:
        rb = drop_shadowed(rb)
    return rb


def rule_boxes(rb: RuleBase, schema: LiteralSchema | None = None, *, limit: int = 256) -> list[list[Box] | None]:
    """Each rule's condition as boxes (None where the DNF would be too large)."""
    schema = schema or LiteralSchema(rb)
    out: list[list[Box] | None] = []
    for i, r in enumerate(rb.rules):
        schema.where = f"rule {rule_name(rb, i)}: "
        try:
            out.append(condition_boxes(r.condition, schema, limit=limit))
        except TooComplex:
            out.append(None)
    return out


def drop_shadowed(rb: RuleBase) -> RuleBase:
    """First-hit: remove rules covered by earlier rules of their group, and trailing default rules."""
    keep = [True] * len(rb.rules)
    if len(rb.rules) <= MAX_PAIRWISE:
        boxes = rule_boxes(rb)
        seen: dict[int, list[Box]] = {}
        for i, (r, bs) in enumerate(zip(rb.rules, boxes)):
            earlier = seen.setdefault(r.group, [])
            if bs is not None and bs and all(any(e.subsumes(b) for e in earlier) for b in bs):
                keep[i] = False
                continue
            if bs is not None:
                earlier.extend(bs)
    if rb.combiner is None and rb.default is not None:
        for i in range(len(rb.rules) - 1, -1, -1):
            if not keep[i]:
                continue
            if rb.rules[i].conclusion == rb.default:
                keep[i] = False
                continue
            break
    if all(keep):
        return rb
    return rb.model_copy(update={"rules": tuple(r for r, k in zip(rb.rules, keep) if k)})
