"""The parts every rulekit PMML document shares: the skeleton, the DataDictionary, MiningSchemas and
the predicates rulekit's tests become.

Every numeric field is a ``double``: a test is written as its canonical float64 boundary
(:mod:`rulekit.semantics`), ``x <= b`` or ``x > b``, which is exactly the source's test whatever its
operator and precision. NaN is declared a missing value of each numeric field. Nominal values are
tested with ``equal``/``notEqual`` (combined with ``or``/``and``), so no PMML Array quoting is
needed; unseen categories are kept as they are (``invalidValueTreatment="asIs"``) and fail every
``equal``, as in rulekit. lxml writes all text: names and labels are escaped by the XML library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rulekit import __version__ as RULEKIT_VERSION
from rulekit.errors import ExportError, RulekitError

try:
    from lxml import etree
except ImportError:  # optional: the pmml extra
    raise RulekitError("writing PMML needs lxml (pip install 'rulekit[pmml]')") from None
from rulekit.ir.model import Feature
from rulekit.semantics import canonical

NS = "http://www.dmg.org/PMML-4_4"


def E(tag: str, parent: etree._Element | None = None, **attrs: str) -> etree._Element:
    """A PMML element (in the PMML 4.4 namespace) with string attributes, appended to ``parent``."""
    el = etree.Element(f"{{{NS}}}{tag}", nsmap={None: NS}) if parent is None else etree.SubElement(
        parent, f"{{{NS}}}{tag}")
    for k, v in attrs.items():
        el.set(k.replace("_", "-") if k.startswith("x_") else k, v)
    return el


def num(x: float) -> str:
    """A finite double written so that every PMML engine reads the same double back."""
    x = float(x)
    if not math.isfinite(x):
        raise ExportError(f"PMML cannot carry the number {x!r} here")
    return repr(x)


def label_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def label_type(values: Sequence) -> str:
    if values and all(isinstance(v, bool) for v in values):
        return "boolean"
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "integer"
    if values and all(isinstance(v, float) for v in values):
        return "double"
    return "string"


def document(features: Sequence[Feature], target: str, classes: Sequence | None) -> etree._Element:
    """``<PMML>`` with its Header and DataDictionary (features, then the target)."""
    pmml = E("PMML", version="4.4")
    header = E("Header", pmml, description="exported by rulekit")
    E("Application", header, name="rulekit", version=str(RULEKIT_VERSION))
    dd = E("DataDictionary", pmml, numberOfFields=str(len(features) + 1))
    for f in features:
        if f.kind == "nominal":
            df = E("DataField", dd, name=f.name, optype="categorical", dataType=label_type(f.domain or ()))
            for v in f.domain or ():
                E("Value", df, value=label_text(v))
        else:
            df = E("DataField", dd, name=f.name, optype="continuous", dataType="double")
            E("Value", df, value="NaN", property="missing")
    if classes is not None:
        df = E("DataField", dd, name=target, optype="categorical", dataType=label_type(classes))
        for c in classes:
            E("Value", df, value=label_text(c))
    else:
        E("DataField", dd, name=target, optype="continuous", dataType="double")
    return pmml


def target_name(features: Sequence[Feature], target: str | None) -> str:
    names = {f.name for f in features}
    name = target or "target"
    while name in names:
        name += "_"
    return name


def mining_schema(model_el: etree._Element, features: Sequence[Feature], target: str | None,
                  extra: Sequence[str] = ()) -> etree._Element:
    ms = E("MiningSchema", model_el)
    if target is not None:
        E("MiningField", ms, name=target, usageType="target")
    for f in features:
        if f.kind == "nominal":
            E("MiningField", ms, name=f.name, invalidValueTreatment="asIs")
        else:
            E("MiningField", ms, name=f.name)
    for name in extra:
        E("MiningField", ms, name=name)
    return ms


# --- predicates ------------------------------------------------------------------------------


def simple(parent, field: str, operator: str, value: str | None = None) -> etree._Element:
    el = E("SimplePredicate", parent, field=field, operator=operator)
    if value is not None:
        el.set("value", value)
    return el


def compound(parent, op: str) -> etree._Element:
    return E("CompoundPredicate", parent, booleanOperator=op)


def numeric_test(parent, field: str, op: str, value: float, precision: str) -> etree._Element:
    """``cast(field) op value`` (op in < <= > >=) as one canonical double comparison."""
    cop, b = canonical(op, value, precision)
    if math.isinf(b):
        if (cop == "<=") == (b > 0):  # x <= inf / x > -inf: true for every present value
            return simple(parent, field, "isNotMissing")
        raise ExportError(f"a test of {field!r} that only -inf passes has no PMML form")
    return simple(parent, field, "lessOrEqual" if cop == "<=" else "greaterThan", num(b))


def category_test(parent, field: str, labels: Sequence, negated: bool) -> etree._Element:
    """``field in labels`` (or not in) as equal/or (notEqual/and): UNKNOWN on a missing value."""
    if not labels:
        return E("True" if negated else "False", parent)
    op, join = ("notEqual", "and") if negated else ("equal", "or")
    if len(labels) == 1:
        return simple(parent, field, op, label_text(labels[0]))
    c = compound(parent, join)
    for v in labels:
        simple(c, field, op, label_text(v))
    return c


def serialize(pmml: etree._Element) -> str:
    return etree.tostring(pmml, xml_declaration=True, encoding="UTF-8", pretty_print=True).decode("utf-8")
