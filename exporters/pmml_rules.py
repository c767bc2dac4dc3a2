"""A rulekit rule base as a PMML ``RuleSetModel``.

``first-hit`` -> ``firstHit`` (the default becomes a last rule with the predicate ``True``, so its
distribution is kept; distributions are ScoreDistribution probabilities, which rulekit's importer
reads back, though JPMML-Evaluator exposes no probabilities for a RuleSetModel); ``vote`` -> ``weightedSum`` with each rule's vote weight (its ``weight``,
else its ``confidence`` statistic, else 1) and the default as ``defaultScore``. PMML's three-valued
predicates are rulekit's (Kleene, a rule fires only when TRUE), so conditions map one to one;
``not`` is pushed down to the tests (``not x <= b`` is ``x > b``, UNKNOWN on a missing ``x`` in both).
Regression rule bases, ``weighted-sum`` semantics, ensembles of rules and linear tests have no
RuleSetModel form and are refused.
"""

from __future__ import annotations

from rulekit.exporters.pmml_doc import (
    E,
    category_test,
    compound,
    document,
    etree,
    label_text,
    mining_schema,
    num,
    numeric_test,
    simple,
    target_name,
)

from rulekit.errors import ExportError
from rulekit.rules.base import (
    And,
    Compare,
    Conclusion,
    InSet,
    IsMissing,
    Linear,
    Not,
    Or,
    RuleBase,
)
from rulekit.semantics import le_boundary, lt_boundary

_NEG = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "!=": "="}


def rules_document(rb: RuleBase) -> etree._Element:
    if rb.task != "classification":
        raise ExportError("PMML's RuleSetModel is a classifier; export a regression rule base's model "
                          "instead (--to pmml on the model file)")
    if rb.combiner is not None:
        raise ExportError("a rule base of an ensemble (rules grouped per tree) has no RuleSetModel form; "
                          "export the model file --to pmml")
    if rb.semantics == "weighted-sum":
        raise ExportError("'weighted-sum' rule bases have no PMML RuleSetModel form (PMML's weightedSum "
                          "sums votes, not distributions)")
    target = target_name(rb.features, rb.target)
    classes = list(rb.classes or ())
    first_hit = rb.semantics == "first-hit"
    pmml = document(rb.features, target, classes)
    model = E("RuleSetModel", pmml, functionName="classification")
    mining_schema(model, rb.features, target)
    rs = E("RuleSet", model)
    E("RuleSelectionMethod", rs, criterion="firstHit" if first_hit else "weightedSum")
    if rb.default is not None and rb.default.label is not None and not first_hit:
        rs.set("defaultScore", label_text(rb.default.label))
        rs.set("defaultConfidence", "1.0")
    for i, rule in enumerate(rb.rules):
        weight = _vote_weight(rule) if not first_hit else 1.0
        sr = E("SimpleRule", rs, id=rule.id or f"r{i + 1}", score=_label(rule.conclusion),
               weight=num(weight))
        condition(sr, rule.condition, rb)
        _distribution(sr, rule.conclusion, classes)
    if first_hit and rb.default is not None and rb.default.label is not None:
        sr = E("SimpleRule", rs, id="default", score=_label(rb.default), weight="1.0")
        E("True", sr)
        _distribution(sr, rb.default, classes)
    return pmml


def _label(c: Conclusion) -> str:
    if c.label is None:
        raise ExportError("a rule without a label has no PMML RuleSetModel form")
    return label_text(c.label)


def _vote_weight(rule) -> float:
    if rule.weight is not None:
        return float(rule.weight)
    if "confidence" in rule.stats:
        return float(rule.stats["confidence"])
    return 1.0


def _distribution(sr, c: Conclusion, classes) -> None:
    if c.distribution is None:
        return
    for cls, p in zip(classes, c.distribution):
        E("ScoreDistribution", sr, value=label_text(cls), recordCount=num(p), probability=num(p))


def condition(parent, cond, rb: RuleBase) -> None:
    """Write ``cond`` as one PMML predicate under ``parent`` (negations pushed down; no recursion)."""
    stack = [(cond, False, parent)]
    while stack:
        c, neg, where = stack.pop()
        if isinstance(c, Not):
            stack.append((c.item, not neg, where))
        elif isinstance(c, (And, Or)):
            is_and = isinstance(c, And) != neg  # De Morgan
            if not c.items:
                E("True" if is_and else "False", where)
            elif len(c.items) == 1:
                stack.append((c.items[0], neg, where))
            else:
                comp = compound(where, "and" if is_and else "or")
                for item in reversed(c.items):
                    stack.append((item, neg, comp))
                # children are appended in pop order: reversed push keeps the rule's order
        elif isinstance(c, IsMissing):
            simple(where, c.feature, "isNotMissing" if c.negated != neg else "isMissing")
        elif isinstance(c, InSet):
            category_test(where, c.feature, list(c.values), negated=c.negated != neg)
        elif isinstance(c, Compare):
            _compare(where, c, neg, rb)
        elif isinstance(c, Linear):
            raise ExportError("a linear (oblique) test has no PMML predicate form")
        else:  # pragma: no cover - the Condition union is closed
            raise ExportError(f"unknown condition {type(c).__name__}")


def _compare(where, c: Compare, neg: bool, rb: RuleBase) -> None:
    op = _NEG[c.op] if neg else c.op
    feature = rb.feature(c.feature)
    if feature.kind == "nominal":
        if op not in ("=", "!="):
            raise ExportError(f"comparison {op!r} on the nominal feature {c.feature!r}")
        category_test(where, c.feature, [c.value], negated=op == "!=")
        return
    value = float(c.value)
    if op in ("<", "<=", ">", ">="):
        numeric_test(where, c.feature, op, value, rb.precision)
        return
    # x = v  <=>  x <= le_b and x > lt_b (both UNKNOWN on a missing x)
    le_b, lt_b = le_boundary(value, rb.precision), lt_boundary(value, rb.precision)
    comp = compound(where, "and" if op == "=" else "or")
    if op == "=":
        simple(comp, c.feature, "lessOrEqual", num(le_b))
        simple(comp, c.feature, "greaterThan", num(lt_b))
    else:
        simple(comp, c.feature, "greaterThan", num(le_b))
        simple(comp, c.feature, "lessOrEqual", num(lt_b))
