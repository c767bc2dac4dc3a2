"""Export a model as Graphviz dot."""

from __future__ import annotations

from rulekit.exporters import register, reject_unknown
from rulekit.ir.model import Model


@register("dot")
def to_dot(obj, **options: object) -> str:
    reject_unknown('dot', options)
    if not isinstance(obj, Model):
        from rulekit.rule_pictures import rules_dot

        return rules_dot(obj)
    from rulekit.render import model_dot

    return model_dot(obj)
