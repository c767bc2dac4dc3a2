"""Rule bases: the IR (``base``), extraction from trees, simplification/pruning passes, the engine."""

from __future__ import annotations

from rulekit.rules.base import (And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or, Rule,
                                RuleBase)

__all__ = ["And", "Compare", "Conclusion", "InSet", "IsMissing", "Linear", "Not", "Or", "Rule",
           "RuleBase", "to_rules"]


def to_rules(model, **options):
    """Extract (and by default simplify) a RuleBase from a Model. See rulekit.rules.pipeline."""
    try:
        from rulekit.rules.pipeline import to_rules as _to_rules
    except ImportError:
        from rulekit.errors import NotBuiltError

        raise NotBuiltError("rule extraction is not built yet (issue #4)") from None
    return _to_rules(model, **options)
