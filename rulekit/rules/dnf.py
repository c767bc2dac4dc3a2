"""Per-class DNF merging (RuleBase -> RuleBase): one rule per class, a disjunction of conjunctions.

Rules of a class are joined into one rule whose condition is the union of their boxes, simplified
exactly (absorption; terms that differ in one condition joined, so ``x <= 5 or x > 5`` vanish and
adjacent intervals meet; see :func:`rulekit.rules.boxes.merge_boxes`). A rule only moves up past
rules of other classes it cannot overlap, so labels never change. Then one class becomes the
default and its rules go: when the rules cover every case (path rules do) any class can, and the
one with the largest DNF is chosen; otherwise it is the base's default class. The result predicts
the same labels as its input (probabilities become the merged rules' class frequencies).

With data, ``mdl=True`` first keeps, per class, the subset of terms with the shortest description
(C4.5rules) -- that one may change labels, by design.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.rules import engine
from rulekit.rules.base import Conclusion, Rule, RuleBase
from rulekit.rules.outcomes import class_index
from rulekit.rules.boxes import (Box, LiteralSchema, TooComplex, boxes_condition, condition_boxes, count_literals,
                                 merge_boxes, no_gc, remember_boxes)
from rulekit.rules.stats import class_codes


def dnf(rb: RuleBase, X: Any = None, y: Any = None, *, mdl: bool = False, positive: Any = None,
        merge: bool = True) -> RuleBase:
    """One rule per class plus a default class (``positive``: keep that class's rule only)."""
    if rb.task != "classification" or rb.combiner is not None:
        raise RulekitError("DNF merging needs a single classification tree's rule base")
    if rb.semantics != "first-hit":
        raise RulekitError("DNF merging works on a first-hit rule list")
    with no_gc():
        return _dnf(rb, X, y, mdl, positive, merge)


def _dnf(rb: RuleBase, X: Any, y: Any, mdl: bool, positive: Any, merge: bool) -> RuleBase:
    schema = LiteralSchema(rb)
    oc = engine.outcomes(rb)
    classes = oc.classes
    K = len(classes)
    groups: list[tuple[int, list[Box], list[int]]] = []  # (class, boxes, source rules), in order
    for i, r in enumerate(rb.rules):
        c = int(oc.cls[i])
        schema.where = f"rule {engine.rule_name(rb, i)}: "
        try:
            boxes = condition_boxes(r.condition, schema, limit=1024)
        except TooComplex:
            raise RulekitError(f"rule {engine.rule_name(rb, i)}: condition too complex to merge") from None
        if not boxes:
            continue
        # move up to the latest group of the same class, past groups it cannot overlap
        target = None
        for g in range(len(groups) - 1, -1, -1):
            gc_, gboxes, _ = groups[g]
            if gc_ == c:
                target = g
                break
            if any(not a.disjoint(b) for a in gboxes for b in boxes):
                break
        if target is None or not merge:
            groups.append((c, list(boxes), [i]))
        else:
            groups[target][1].extend(boxes)
            groups[target][2].append(i)
    groups = [(c, merge_boxes(bs), src) for c, bs, src in groups]
    if mdl and X is not None:
        groups = _mdl_groups(rb, schema, groups, X, y)
    complete = _complete(rb)
    exclusive = _exclusive(groups)
    base_default = int(oc.cls[-1]) if rb.default is not None and oc.cls[-1] >= 0 else None
    pos = class_index(classes, positive, "positive class: ") if positive is not None else None
    free = sorted({c for c, _, _ in groups}) if complete and exclusive else (
        [base_default] if base_default is not None else [])
    if pos is not None:
        free = [c for c in (free or range(K)) if c != pos] or [c for c in range(K) if c != pos]
    default_cls = max(free, key=lambda c: _size(rb, schema, groups, c)) if free else None
    if pos is not None:
        keep = [g for g in groups if g[0] == pos]
    else:
        keep = []
        for j, g in enumerate(groups):
            if g[0] == default_cls and all(h[0] == default_cls or all(a.disjoint(b) for a in g[1] for b in h[1])
                                           for h in groups[j + 1:]):
                continue  # its rows fall to the default: the same class
            if keep and keep[-1][0] == g[0]:  # neighbours of one class join
                keep[-1] = (g[0], merge_boxes(keep[-1][1] + g[1]), keep[-1][2] + g[2])
            else:
                keep.append(g)
    out: list[Rule] = []
    dist_src: list[list[int]] = []
    for c, boxes, src in keep:
        cond = boxes_condition(boxes, schema)
        remember_boxes(cond, schema, boxes)
        out.append(Rule(id=f"r{len(out) + 1}", condition=cond, conclusion=Conclusion(label=classes[c])))
        dist_src.append(src)
    kept = {i for _, _, src in keep for i in src}
    trimmed = [i for i in range(len(rb.rules)) if i not in kept]
    default = Conclusion(label=classes[default_cls]) if default_cls is not None else rb.default
    res = rb.model_copy(update={"rules": tuple(out), "default": default})
    return _distributions(rb, res, oc, dist_src, trimmed, X, y, K)


def _size(rb: RuleBase, schema: LiteralSchema, groups: list, c: int) -> tuple:
    """How much a class's rules weigh: literals, then training cases, then the earlier class."""
    lits = sum(count_literals(boxes_condition(bs, schema)) for cc, bs, _ in groups if cc == c)
    train = sum(rb.rules[i].stats.get("train_n", 0.0) for cc, _, src in groups if cc == c for i in src)
    return (lits, train, -c)


def _exclusive(groups: list) -> bool:
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            if groups[a][0] == groups[b][0]:
                continue
            if any(not p.disjoint(q) for p in groups[a][1] for q in groups[b][1]):
                return False
    return True


def _complete(rb: RuleBase) -> bool:
    """Every row matches some rule (the compiled diagram has no default leaf)."""
    from rulekit.rules import decision_diagram as diagram  # noqa: PLC0415

    d = diagram.get(rb, tuple(range(len(rb.rules))))
    if d is None:
        return False
    leaves = d.ct.kind == diagram.LEAF
    return bool((d.rule[leaves] >= 0).all())


def _distributions(rb: RuleBase, res: RuleBase, oc, src: list[list[int]], trimmed: list[int], X: Any, y: Any,
                   K: int) -> RuleBase:
    """Conclusion distributions: class frequencies on data, else the merged rules' training mix."""
    rules = list(res.rules)
    if X is not None and y is not None:
        M = engine.matrix(res, X)
        yc = class_codes(y, oc.classes)
        hit = engine.first_hit(res, M)
        dists = []
        for j in range(len(rules) + 1):
            sel = yc[(hit == (j if j < len(rules) else -1)) & (yc >= 0)]
            dists.append(np.bincount(sel, minlength=K).astype(float) if sel.size else None)
    else:
        dists = []
        for s in src + [trimmed]:
            acc = np.zeros(K)
            for i in s:
                w = rb.rules[i].stats.get("train_n", 1.0)
                acc += w * oc.vec[i]
            dists.append(acc if acc.sum() > 0 else None)
    out = []
    for j, r in enumerate(rules):
        out.append(_with_dist(r, dists[j], K))
    default = _with_dist_concl(res.default, dists[-1], K)
    return res.model_copy(update={"rules": tuple(out), "default": default})


def _with_dist(r: Rule, d: np.ndarray | None, K: int) -> Rule:
    return r.model_copy(update={"conclusion": _with_dist_concl(r.conclusion, d, K)})


def _with_dist_concl(c: Conclusion, d: np.ndarray | None, K: int) -> Conclusion:
    if d is None or d.sum() <= 0:
        return c
    return c.model_copy(update={"distribution": tuple(float(v) for v in d / d.sum())})


def _mdl_groups(rb: RuleBase, schema: LiteralSchema, groups: list, X: Any, y: Any) -> list:
    """Per class, the subset of its terms with the shortest description (C4.5rules)."""
    from rulekit.rules.prune import _feature_stats, _mdl_subset, _context  # noqa: PLC0415

    ctx = _context(rb, X, y)
    stats = _feature_stats(ctx)
    out = []
    for c, boxes, src in groups:
        cands = []
        for b in boxes:
            cond = boxes_condition([b], schema)
            cands.append((None, c, ctx.ev.true(cond), b))
        chosen = _mdl_subset(cands, ctx.yc == c, stats, 0.5)
        out.append((c, [cd[3] for cd in chosen] or boxes[:1], src))
    return out
