"""Which features a model's splits or a rule base's conditions read: data may lack the others
(``predict`` and ``verify`` give them an all-missing column, which cannot change a prediction)."""

from __future__ import annotations

from typing import Any

from rulekit.ir.model import Model
from rulekit.rules.base import And, Linear, Not, Or, RuleBase


def used_features(source: Model | RuleBase) -> set[str]:
    """The names of the features that some split (model) or condition (rule base) tests."""
    if isinstance(source, Model):
        return _model_features(source)
    return _rule_features(source)


def _model_features(model: Model) -> set[str]:
    used: set[int] = set()
    for tree in model.trees:
        for _, a in tree.nodes(data=True):
            if a.get("feature") is not None:
                used.add(a["feature"])
            used.update(a.get("features") or ())
    return {model.features[j].name for j in used}


def _rule_features(rb: RuleBase) -> set[str]:
    used: set[str] = set()
    stack: list[Any] = [r.condition for r in rb.rules]
    while stack:
        c = stack.pop()
        if isinstance(c, (And, Or)):
            stack.extend(c.items)
        elif isinstance(c, Not):
            stack.append(c.item)
        elif isinstance(c, Linear):
            used.update(name for _, name in c.terms)
        else:
            used.add(c.feature)
    return used
