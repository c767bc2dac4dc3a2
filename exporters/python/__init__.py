"""Python source export: a standalone module (no rulekit import, numpy optional) that predicts
exactly like the model or rule base it came from. See :mod:`.model` and :mod:`.rules`."""

from __future__ import annotations

from typing import Any

from rulekit.errors import ExportError
from rulekit.exporters import register, reject_unknown


@register("python")
def to_python(obj: Any, **options: Any) -> str:
    """Source text of a module defining FEATURES, CLASSES (classification), predict(row),
    predict_proba(row) and the numpy batch functions predict_batch(X) / predict_proba_batch(X).

    Options: ``form`` ("auto", "nested" or "table") for models.
    """
    from rulekit.ir.model import Model
    from rulekit.rules.base import RuleBase

    if isinstance(obj, Model):
        reject_unknown("Python", options, ("form",))
        from .model import model_to_python

        return model_to_python(obj, **options)
    if isinstance(obj, RuleBase):
        reject_unknown("Python (rule base)", options)
        from .rules import rules_to_python

        return rules_to_python(obj, **options)
    raise ExportError(f"cannot export {type(obj).__name__} to Python: expected a Model or a RuleBase")
