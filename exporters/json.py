"""Export a model as rulekit model JSON."""

from __future__ import annotations

from rulekit.errors import ExportError
from rulekit.exporters import register, reject_unknown
from rulekit.ir.model import Model


@register("json")
def to_json(obj, **options: object) -> str:
    reject_unknown('JSON', options)
    if not isinstance(obj, Model):
        raise ExportError("a rule base has no model JSON form: export it --to rules")
    from rulekit.ir.modelfile import dumps_model

    return dumps_model(obj)
