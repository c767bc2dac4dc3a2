"""PMML 4.4 export (``rulekit export SOURCE --to pmml``): a model as a TreeModel or a MiningModel of
trees (:mod:`.pmml_tree`), a rule base as a RuleSetModel (:mod:`.pmml_rules`).

    >>> text = to_pmml(model)      # an XML document (str), UTF-8 declared

Scored by a PMML engine (JPMML), the document gives rulekit's predictions on every row, threshold
and missing rows included (tests/exporters/test_pmml*.py).
"""

from __future__ import annotations

from rulekit.exporters import register, reject_unknown
from rulekit.exporters.pmml_doc import serialize
from rulekit.exporters.pmml_rules import rules_document
from rulekit.exporters.pmml_tree import model_document

from rulekit.ir.model import Model


@register("pmml")
def to_pmml(obj, **options: object) -> str:
    reject_unknown("PMML", options)
    doc = model_document(obj) if isinstance(obj, Model) else rules_document(obj)
    return serialize(doc)
