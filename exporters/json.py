"""Export a model as rulekit model JSON."""

from __future__ import annotations

from rulekit.errors import ExportError
from rulekit.exporters import register
from rulekit.ir.model import Model


@register("json")
def to_json(obj, **_: object) -> str:
    if not isinstance(obj, Model):
        raise ExportError("a rule base has no model JSON form: export it --to rules")
    from rulekit.ir.modelfile import dumps_model

    return dumps_model(obj)
