"""Export a model as Graphviz dot."""

from __future__ import annotations

from rulekit.errors import NotBuiltError
from rulekit.exporters import register
from rulekit.ir.model import Model


@register("dot")
def to_dot(obj, **_: object) -> str:
    if not isinstance(obj, Model):
        raise NotBuiltError("dot for rule bases is not built yet (issue #9)")
    from rulekit.render import model_dot

    return model_dot(obj)
