"""The rule base: a :class:`RuleBase` of rules (:mod:`rulekit.rules.conditions`) over features.

Semantics of a rule base:

``first-hit``     ordered decision list: the first rule whose condition holds decides; else default.
``vote``          unordered: every matching rule votes for its label with its weight (its
                  ``weight`` or else its ``confidence`` statistic or 1); ties go to the earlier class
                  in ``classes``; probabilities are the vote shares; no match -> default. (Regression:
                  the weighted mean of the matching values.)
``weighted-sum``  unordered: the prediction is the default's value plus the sum of ``weight * value``
                  over matching rules (regression / scores). Classification: the default's
                  distribution plus ``weight * distribution`` of the matching rules; the label is the
                  argmax, probabilities the normalised sums.
A rule's ``label`` decides its prediction; its ``distribution`` (one-hot of the label when absent) its
probabilities. No rule and no default: the prediction is missing (None / NaN probabilities).
Regression (every semantics): no rule and no default gives 0.0 -- the empty sum (the default's value
taken as 0), the same in the engine, Python, SQL and ONNX exports.
Ensembles (``combiner`` set): rules carry a ``group`` (their tree, numbered 0.. in tree order); within
a group the first matching rule decides (no match: the default's value, else zeros), and the groups'
conclusions -- distributions, or ``value`` for ``sum`` -- are combined as the model's combiner says,
in its arithmetic order (``rulekit.ir.model``), ``decision`` included.
"""

from __future__ import annotations

from typing import Literal

from rulekit.ir.schema import Combiner, Feature, Label
from rulekit.rules.conditions import (TRUE, And, CmpOp, Compare, Conclusion, Condition, InSet, IsMissing,
                                      Linear, Literal_, Not, NumOp, Or, Rule, _Frozen)

__all__ = ["TRUE", "And", "CmpOp", "Compare", "Conclusion", "Condition", "InSet", "IsMissing", "Linear",
           "Literal_", "Not", "NumOp", "Or", "Rule", "RuleBase"]


class RuleBase(_Frozen):
    name: str = "rules"
    task: Literal["classification", "regression"]
    target: str = "target"
    classes: tuple[Label, ...] | None = None
    features: tuple[Feature, ...]
    semantics: Literal["first-hit", "vote", "weighted-sum"] = "first-hit"
    precision: Literal["float32", "float64"] = "float64"
    rules: tuple[Rule, ...] = ()
    default: Conclusion | None = None
    combiner: Combiner | None = None
    comments: tuple[str, ...] = ()  # comment lines of the header (printed at the top of the DSL file)
    footer_comments: tuple[str, ...] = ()  # comment lines after the last rule in the DSL

    def feature(self, name: str) -> Feature:
        for f in self.features:
            if f.name == name:
                return f
        raise KeyError(name)

    # evaluation lives in rulekit.rules.engine (vectorized); these are the contract's entry points
    def predict(self, X):
        from rulekit.rules.engine import predict

        return predict(self, X)

    def predict_proba(self, X):
        from rulekit.rules.engine import predict_proba

        return predict_proba(self, X)

    def explain(self, X):
        from rulekit.rules.explain import explain

        return explain(self, X)

    def lint(self):
        """Errors and warnings about this rule base (:func:`rulekit.dsl.lint.lint`): a list of
        ``Finding(rule, literal, message, severity)``."""
        from rulekit.dsl.lint import lint

        return lint(self)
