"""Export as a rules file: a model is turned into its rule base first, then printed in the DSL."""

from __future__ import annotations

from rulekit.exporters import register, reject_unknown
from rulekit.ir.model import Model


@register("rules")
def to_rules_text(obj, **options: object) -> str:
    reject_unknown('rules', options)
    from rulekit import dsl
    from rulekit.rules import to_rules

    rb = to_rules(obj) if isinstance(obj, Model) else obj
    return dsl.dumps(rb)
