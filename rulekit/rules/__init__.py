"""Rule bases: the IR (``conditions``, ``base``), extraction from trees, simplification/pruning passes,
the engine.

The condition classes load with the package; ``RuleBase`` on first use (PEP 562), because
``rules.base`` reaches the engine and the linter, which live in modules that import this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulekit.rules.conditions import And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or, Rule

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

__all__ = ["And", "Compare", "Conclusion", "InSet", "IsMissing", "Linear", "Not", "Or", "Rule",
           "RuleBase", "to_rules"]


def __getattr__(name: str):
    if name != "RuleBase":
        raise AttributeError(f"module 'rulekit.rules' has no attribute {name!r}")
    from rulekit.rules.base import RuleBase  # noqa: PLC0415 - lazy, not a cycle (checked)

    globals()[name] = RuleBase
    return RuleBase


def to_rules(model, **options):
    """Extract (and by default simplify) a RuleBase from a Model. See rulekit.rules.pipeline.

    The pipeline loads on first use (it pulls in the passes and the engine); an ImportError in it is
    a broken install and propagates as one, never reported as a feature that is "not built yet".
    """
    from rulekit.rules.pipeline import to_rules as _to_rules  # noqa: PLC0415 - lazy, not a cycle

    return _to_rules(model, **options)
