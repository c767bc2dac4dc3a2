"""Rule bases: the IR (``base``), extraction from trees, simplification/pruning passes, the engine."""

from __future__ import annotations

from rulekit.rules.base import (And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or, Rule,
                                RuleBase)

__all__ = ["And", "Compare", "Conclusion", "InSet", "IsMissing", "Linear", "Not", "Or", "Rule",
           "RuleBase", "to_rules"]


def to_rules(model, **options):
    """Extract (and by default simplify) a RuleBase from a Model. See rulekit.rules.pipeline.

    The pipeline loads on first use (it pulls in the passes and the engine); an ImportError in it is
    a broken install and propagates as one, never reported as a feature that is "not built yet".
    """
    from rulekit.rules.pipeline import to_rules as _to_rules  # noqa: PLC0415 - lazy, not a cycle

    return _to_rules(model, **options)
