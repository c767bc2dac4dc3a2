"""A PMML ``RuleSetModel`` -> a rulekit rule base (:mod:`rulekit.rules.base`), one rule per
``SimpleRule``, so a 45-rule set stays 45 rules (read as a tree, a 5-rule list grew to 14,081 nodes).

PMML 4.4's criteria and the rule-base semantics that say the same thing:

``firstHit``     ``first-hit``, rules in document order (CompoundRules flattened: a nested rule fires
                 when every enclosing predicate and its own are TRUE).
``weightedMax``  ``first-hit`` over the rules sorted by weight, highest first, stably (the spec: the
                 firing rule with the highest weight; on equal weights the first in the rule set).
``weightedSum``  ``vote`` with each rule's weight (the spec: the score with the highest total weight;
                 on equal totals the first in the DataDictionary, which is rulekit's class order).
                 Weights must be positive: a zero or negative total could make a class that no rule
                 fired win rulekit's vote, so such a weight is refused with its line.

Predicates keep PMML's three-valued logic, which is rulekit's (a test on a missing value is
UNKNOWN, ``and``/``or`` are Kleene's, a rule fires only when TRUE): ``xor`` of two predicates
becomes ``(a and not b) or (not a and b)`` (UNKNOWN when either is), ``surrogate`` tests whether its
simple predicate's field is missing. A ``missingValueReplacement`` makes its field's tests TRUE or
FALSE on a missing value, as the replacement decides. JPMML-Evaluator gives no probabilities for a
rule set; a rule's ScoreDistribution becomes its distribution, its confidence a ``confidence``
statistic. What has no exact form is refused with ``FILE:LINE``.
"""

from __future__ import annotations

import math

from rulekit.importers.pmml_fields import FieldRef, PmmlFields
from rulekit.importers.pmml_tree import PREDICATES, GraphMaker, TreeContext, predicate_of, set_predicate
from rulekit.importers.pmml_xml import Where, child, children, etree, local
from rulekit.rules.base import (
    TRUE,
    And,
    Compare,
    Condition,
    Conclusion,
    InSet,
    IsMissing,
    Not,
    Or,
    Rule,
    RuleBase,
)

FALSE = Or(items=())
_NUM_OPS = {"lessThan": "<", "lessOrEqual": "<=", "greaterThan": ">", "greaterOrEqual": ">=",
            "equal": "=", "notEqual": "!="}
_HOLDS = {"<": float.__lt__, "<=": float.__le__, ">": float.__gt__, ">=": float.__ge__,
          "=": float.__eq__, "!=": float.__ne__}
SEMANTICS = {"firstHit": "first-hit", "weightedMax": "first-hit", "weightedSum": "vote"}


class RuleSetReader:
    """Reads one RuleSetModel whose fields ``schema`` describes."""

    def __init__(self, schema: PmmlFields, where: Where):
        self.schema = schema
        self.where = where
        self.maker = GraphMaker(schema, where)
        self.precisions: dict[str, etree._Element] = {}  # numeric precision -> first test using it

    def read(self, el: etree._Element) -> RuleBase:
        rs = child(el, "RuleSet")
        if rs is None:
            raise self.where.error(el, "a RuleSetModel needs a <RuleSet>")
        methods = children(rs, "RuleSelectionMethod")
        if not methods:
            raise self.where.error(rs, "a RuleSet needs a RuleSelectionMethod")
        criterion = self.where.attr(methods[0], "criterion")  # the first method is the one scored
        if criterion not in SEMANTICS:
            raise self.where.error(methods[0], f"RuleSelectionMethod criterion={criterion!r} (PMML has "
                                               f"firstHit, weightedMax and weightedSum)")
        ctx = TreeContext(el=el, classes=tuple(self.schema.classes), class_type=self.schema.target_type)
        index = {c: i for i, c in enumerate(self.schema.classes)}
        rules, seen = [], set()
        for n, (preds, sr) in enumerate(self._flat_rules(rs), start=1):
            weight = self._finite(sr, "weight", "1")
            if criterion == "weightedSum" and not weight > 0:
                raise self.where.error(sr, f"weight={sr.get('weight')!r}: rulekit's vote (PMML's weightedSum) "
                                           f"needs positive weights (with a zero or negative total a class "
                                           f"no rule fired could win)")
            rid = sr.get("id", str(n))  # JPMML names an id-less rule by its 1-based position
            if rid in seen:
                raise self.where.error(sr, f"a second SimpleRule with id {rid!r}")
            seen.add(rid)
            label = self.schema.classes[self.maker.class_index_of(sr, self.where.attr(sr, "score"), ctx, index)]
            stats = {"confidence": self._finite(sr, "confidence")} if sr.get("confidence") is not None else {}
            cond = self.condition(preds)
            rules.append((weight, Rule(id=rid, condition=cond, stats=stats,
                                       weight=weight if criterion == "weightedSum" else None,
                                       conclusion=Conclusion(label=label,
                                                             distribution=self.maker.distribution(sr, ctx)))))
        if criterion == "weightedMax":
            rules.sort(key=lambda wr: -wr[0])  # stable: the first of equal weights stays first
        default = None
        if rs.get("defaultScore") is not None:
            default = Conclusion(label=self.schema.classes[self.maker.class_index_of(rs, rs.get("defaultScore"),
                                                                                    ctx, index)])
        precision = "float64"
        if len(self.precisions) > 1:
            raise self.where.error(self.precisions["float32"], "this rule set compares float fields (in "
                                   "float32) and double fields (in float64); a rulekit rule base has one precision")
        if self.precisions:
            precision = next(iter(self.precisions))
        note = {"firstHit": "PMML firstHit: the first rule that fires decides",
                "weightedMax": "PMML weightedMax: rules sorted by weight, highest first (stable); "
                               "the first that fires decides",
                "weightedSum": "PMML weightedSum: every rule that fires votes with its weight"}[criterion]
        if rs.get("defaultConfidence") is not None:
            note += f"; defaultConfidence {self._finite(rs, 'defaultConfidence')!r}"
        return RuleBase(name=el.get("modelName") or "rules", task="classification",
                        target=self.schema.target or "target", classes=tuple(self.schema.classes),
                        features=tuple(self.schema.features), semantics=SEMANTICS[criterion],
                        precision=precision, rules=tuple(r for _, r in rules), default=default,
                        comments=(note,))

    def _finite(self, el, name: str, default: str | None = None) -> float:
        v = self.where.number(el, name, default)
        if not math.isfinite(v):
            raise self.where.error(el, f"{name}={el.get(name)!r} is not a finite number")
        return v

    def _flat_rules(self, rs) -> list:
        """(predicates to AND, SimpleRule) in document order; CompoundRules flattened (work stack)."""
        kinds = ("SimpleRule", "CompoundRule")
        out = []
        stack = [(r, ()) for r in reversed([c for c in children(rs) if local(c) in kinds])]
        while stack:
            r, outer = stack.pop()
            preds = outer + (predicate_of(r, self.where),)
            if local(r) == "SimpleRule":
                out.append((preds, r))
            else:
                stack.extend((c, preds) for c in reversed([c for c in children(r) if local(c) in kinds]))
        return out

    # --- predicates -> conditions (post-order over an explicit stack) ---------------------------
    def condition(self, preds: tuple) -> Condition:
        items = [self._predicate(p) for p in preds]
        items = [c for c in items if c != TRUE]
        return items[0] if len(items) == 1 else And(items=tuple(items))

    def _predicate(self, top: etree._Element) -> Condition:
        done: dict = {}
        stack: list = [(top, None)]
        while stack:
            el, kids = stack.pop()
            name = local(el)
            if name == "CompoundPredicate" and kids is None:
                kids = [c for c in children(el) if local(c) in PREDICATES]
                if not kids:
                    raise self.where.error(el, "a CompoundPredicate without predicates")
                stack.append((el, kids))
                stack.extend((k, None) for k in kids)
                continue
            if name == "CompoundPredicate":
                done[el] = self._compound(el, kids, [done[k] for k in kids])
            else:
                done[el] = self._leaf(el)
        return done[top]

    def _compound(self, el, kids: list, conds: list) -> Condition:
        op = self.where.attr(el, "booleanOperator")
        if op == "and":
            return And(items=tuple(conds))
        if op == "or":
            return Or(items=tuple(conds))
        if op == "xor":
            if len(conds) != 2:
                raise self.where.error(el, f"xor of {len(conds)} predicates (rulekit reads xor of two: "
                                           f"'(a and not b) or (not a and b)')")
            a, b = conds
            return Or(items=(And(items=(a, Not(item=b))), And(items=(Not(item=a), b))))
        if op == "surrogate":
            out = conds[-1]
            for k, c in zip(reversed(kids[:-1]), reversed(conds[:-1])):
                field = self._unknown_iff_missing(k)
                if field is None:  # never UNKNOWN: it decides
                    out = c
                else:
                    out = Or(items=(And(items=(IsMissing(feature=field, negated=True), c)),
                                    And(items=(IsMissing(feature=field), out))))
            return out
        raise self.where.error(el, f"CompoundPredicate booleanOperator={op!r}")

    def _unknown_iff_missing(self, el) -> str | None:
        """The field whose missing value makes ``el`` UNKNOWN; None when ``el`` is never UNKNOWN."""
        name = local(el)
        if name in ("True", "False"):
            return None
        if name in ("SimplePredicate", "SimpleSetPredicate"):
            ref = self._field(el)
            if ref.replacement is not None or el.get("operator") in ("isMissing", "isNotMissing") or \
                    (ref.mapping is not None and ref.missing_code is not None):
                return None
            return self._name(ref)
        raise self.where.error(el, "a surrogate's predicates before the last must be simple (rulekit "
                                   "tells when a compound predicate is UNKNOWN only through its fields)")

    def _field(self, pred) -> FieldRef:
        return self.schema.ref_of(self.where, pred)

    def _name(self, ref: FieldRef) -> str:
        return self.schema.features[ref.index].name

    def _leaf(self, el) -> Condition:
        name = local(el)
        if name == "True":
            return TRUE
        if name == "False":
            return FALSE
        if name not in ("SimplePredicate", "SimpleSetPredicate"):
            raise self.where.error(el, f"<{name}> is not a predicate rulekit reads")
        ref = self._field(el)
        feature = self._name(ref)
        if ref.mapping is not None:  # a number mapped from a category: a test on the category
            if name != "SimplePredicate":
                raise self.where.error(el, "SimpleSetPredicate on a continuous field is not supported")
            codes, on_missing = self.maker.mapped_codes(el, ref, self.where.attr(el, "operator"))
            domain = self.schema.features[ref.index].domain or ()
            cond = InSet(feature=feature, values=tuple(domain[i] for i in codes))
            if on_missing is None:
                return cond
            if on_missing:
                return Or(items=(cond, IsMissing(feature=feature)))
            return And(items=(IsMissing(feature=feature, negated=True), cond))
        if name == "SimplePredicate" and el.get("operator") in ("isMissing", "isNotMissing"):
            yes = el.get("operator") == "isMissing"
            if ref.replacement is not None:  # replaced before the model sees it: never missing
                return FALSE if yes else TRUE
            return IsMissing(feature=feature, negated=not yes)
        cond, holds = self._test(el, ref, feature)
        if ref.replacement is None:
            return cond
        if holds:  # a missing value is the replacement, which passes the test
            return Or(items=(cond, IsMissing(feature=feature)))
        return And(items=(IsMissing(feature=feature, negated=True), cond))

    def _test(self, el, ref: FieldRef, feature: str) -> tuple[Condition, bool]:
        """The test on a present value, and whether the field's replacement value passes it."""
        if local(el) == "SimpleSetPredicate":
            op, items = set_predicate(el, ref, self.where)
            labels = self._labels(el, ref, items)
            rep = self._labels(el, ref, [ref.replacement], True) if ref.replacement is not None else ()
            holds = any(r in labels for r in rep) == (op == "isIn")
            return InSet(feature=feature, values=labels, negated=op == "isNotIn"), holds
        op = self.where.attr(el, "operator")
        if op not in _NUM_OPS:
            raise self.where.error(el, f"SimplePredicate operator {op!r} is not supported")
        text = self.where.attr(el, "value")
        if ref.precision == "nominal":
            if op not in ("equal", "notEqual"):
                raise self.where.error(el, f"operator {op!r} on a categorical field (rulekit reads "
                                           f"equal and notEqual there)")
            (label,) = self._labels(el, ref, [text])
            rep = self._labels(el, ref, [ref.replacement], True) if ref.replacement is not None else ()
            holds = (label in rep) == (op == "equal")
            return Compare(feature=feature, op="=" if op == "equal" else "!=", value=label), holds
        if ref.steps is not None:  # an Apply on the input: the same test on the raw double
            self.precisions.setdefault("float64", el)
            lo, hi = self.maker.raw_interval(el, ref, op)
            parts = [Compare(feature=feature, op=">", value=lo)] if lo != -math.inf else []
            if hi != math.inf or not parts:
                parts.append(Compare(feature=feature, op="<=", value=hi))
            cond = parts[0] if len(parts) == 1 else And(items=tuple(parts))
            r = self.maker.threshold_of(el, FieldRef(ref.index, "float64"), ref.replacement) \
                if ref.replacement is not None else math.nan
            return (Not(item=cond), not lo < r <= hi) if op == "notEqual" else (cond, lo < r <= hi)
        self.precisions.setdefault(ref.precision, el)
        value = self.maker.threshold_of(el, ref, text)
        rk_op = _NUM_OPS[op]
        holds = ref.replacement is not None and _HOLDS[rk_op](self.maker.threshold_of(el, ref, ref.replacement), value)
        return Compare(feature=feature, op=rk_op, value=value), holds

    def _labels(self, el, ref: FieldRef, texts, lenient: bool = False) -> tuple:
        """Domain labels of ``texts``; a value outside the field's values is refused (PMML would
        treat it as invalid) unless ``lenient``, where it is dropped."""
        domain = self.schema.features[ref.index].domain or ()
        codes = self.maker.codes_of(el, ref, texts)
        if len(codes) != len(set(texts)) and not lenient:
            known = {str(domain[c]) for c in codes}
            bad = next(t for t in texts if t.strip() not in known)
            raise self.where.error(el, f"value {bad!r} is not one of the field's values")
        return tuple(domain[c] for c in codes)
