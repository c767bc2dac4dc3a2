"""PMML fields -> rulekit features: the DataDictionary, the model's MiningSchema and simple
field aliases (a DerivedField that is a FieldRef), with the precision each field compares in.

A ``float`` field is parsed to float32 by a PMML engine, so its tests compare in float32 (its
thresholds are read as float32 values, rounded from the decimal text exactly once); ``double`` and
``integer`` fields compare in float64. Categorical string/integer fields with listed values become
nominal features.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
from pydantic import ValidationError

from rulekit.importers.pmml_xml import Where, child, children, etree, local
from rulekit.ir.model import Feature

NUMERIC_TYPES = {"double": "float64", "float": "float32", "integer": "float64"}


@dataclass(frozen=True)
class FieldRef:
    """What a field name in a predicate means: feature index, how it compares, its replacement."""

    index: int
    precision: str  # float32 | float64 (numeric) or "nominal"
    replacement: str | None = None  # MiningField missingValueReplacement (text, as in the file)


@dataclass
class Schema:
    features: list[Feature] = field(default_factory=list)
    refs: dict[str, FieldRef] = field(default_factory=dict)
    target: str | None = None
    classes: list | None = None
    target_type: str = "string"


def parse_float32(text: str) -> float:
    """The float32 nearest to the decimal ``text`` (ties to even), as Java's Float.parseFloat does:
    rounded once from the exact decimal, not through a double."""
    d = Decimal(text.strip())
    if not d.is_finite():
        return float(np.float32(float(text)))
    guess = np.float32(float(text))
    cands = [guess, np.nextafter(guess, np.float32(-np.inf)), np.nextafter(guess, np.float32(np.inf))]
    best = None
    for c in cands:
        if not np.isfinite(c):
            continue
        dist = abs(Decimal(float(c)) - d)
        key = (dist, int(np.float32(c).view(np.uint32)) & 1)
        if best is None or key < best[0]:
            best = (key, c)
    return float(best[1]) if best else float(guess)


def label_value(text: str, data_type: str):
    """A class or category label in the field's data type (integers stay ints)."""
    if data_type == "integer":
        return int(text)
    if data_type in ("double", "float"):
        return float(text)
    if data_type == "boolean":
        return text.strip().lower() == "true"
    return text


def _values(df: etree._Element, where: Where) -> list[str]:
    return [where.attr(v, "value") for v in children(df, "Value") if v.get("property", "valid") == "valid"]


def _labels(df: etree._Element, where: Where, dtype: str) -> list:
    try:
        return [label_value(v, dtype) for v in _values(df, where)]
    except ValueError:
        raise where.error(df, f"a <Value> of {df.get('name')!r} is not of dataType {dtype!r}") from None


def _feature(where: Where, el: etree._Element, **kw) -> Feature:
    try:
        return Feature(**kw)
    except ValidationError as err:
        first = err.errors()[0]
        raise where.error(el, f"field {kw.get('name')!r}: {first.get('msg', 'invalid')}") from None


def read_schema(pmml: etree._Element, model: etree._Element, where: Where) -> Schema:
    """Features (the model's active MiningFields, in order), the target and its classes."""
    dd = child(pmml, "DataDictionary")
    if dd is None:
        raise where.error(pmml, "no <DataDictionary>")
    fields = {f.get("name"): f for f in children(dd, "DataField")}
    aliases = _aliases(pmml, model, where)
    ms = child(model, "MiningSchema")
    if ms is None:
        raise where.error(model, f"<{local(model)}> has no <MiningSchema>")
    schema = Schema()
    for mf in children(ms, "MiningField"):
        name = where.attr(mf, "name")
        usage = mf.get("usageType", "active")
        df = fields.get(name)
        if usage in ("target", "predicted"):
            if df is None:
                raise where.error(mf, f"target field {name!r} is not in the DataDictionary")
            schema.target = name
            schema.target_type = df.get("dataType", "string")
            if df.get("optype") == "categorical":
                schema.classes = _labels(df, where, schema.target_type)
            continue
        if usage not in ("active",):
            continue
        if df is None:
            raise where.error(mf, f"field {name!r} is not in the DataDictionary")
        if mf.get("outliers", "asIs") != "asIs":
            raise where.error(mf, f"MiningField outliers={mf.get('outliers')!r} is not supported "
                                  f"(only asIs)")
        invalid = mf.get("invalidValueTreatment", "returnInvalid")
        if invalid == "asValue":
            raise where.error(mf, "MiningField invalidValueTreatment='asValue' is not supported")
        schema.refs[name] = _add_feature(schema, df, mf, where)
    for name, (source, dtype, el) in aliases.items():
        base = schema.refs.get(source)
        if base is None:
            raise where.error(el, f"DerivedField {name!r} refers to {source!r}, not an input field")
        prec = base.precision
        if prec != "nominal" and dtype in NUMERIC_TYPES:
            prec = "float32" if "float32" in (prec, NUMERIC_TYPES[dtype]) else "float64"
        schema.refs[name] = FieldRef(base.index, prec, base.replacement)
    return schema


def _add_feature(schema: Schema, df: etree._Element, mf: etree._Element, where: Where) -> FieldRef:
    name = where.attr(df, "name")
    optype = df.get("optype")
    dtype = df.get("dataType", "string")
    replacement = mf.get("missingValueReplacement")
    index = len(schema.features)
    if optype == "continuous" or (optype == "ordinal" and dtype in NUMERIC_TYPES):
        if dtype not in NUMERIC_TYPES:
            raise where.error(df, f"continuous field {name!r} has dataType {dtype!r} "
                                  f"(rulekit reads double, float and integer)")
        schema.features.append(_feature(where, df, name=name))
        return FieldRef(index, NUMERIC_TYPES[dtype], replacement)
    if optype == "categorical":
        values = _values(df, where)
        if not values:
            raise where.error(df, f"categorical field {name!r} lists no values")
        if dtype not in ("string", "integer"):
            raise where.error(df, f"categorical field {name!r} has dataType {dtype!r} "
                                  f"(rulekit reads string and integer categories)")
        domain = tuple(_labels(df, where, dtype))
        schema.features.append(_feature(where, df, name=name, kind="nominal", domain=domain,
                                        match="exact" if dtype == "integer" else None))
        return FieldRef(index, "nominal", replacement)
    raise where.error(df, f"field {name!r} has optype {optype!r} and dataType {dtype!r}, "
                          f"which rulekit cannot read")


def _aliases(pmml: etree._Element, model: etree._Element, where: Where) -> dict:
    """DerivedFields that only rename (or re-type) another field: name -> (source, dataType, el)."""
    out: dict = {}
    holders = [child(pmml, "TransformationDictionary")]
    holders += [el for el in model.iter() if isinstance(el.tag, str) and local(el) == "LocalTransformations"]
    for holder in holders:
        if holder is None:
            continue
        for d in children(holder, "DerivedField"):
            exprs = children(d)
            if len(exprs) != 1 or local(exprs[0]) != "FieldRef" or exprs[0].get("mapMissingTo") is not None:
                what = local(exprs[0]) if exprs else "nothing"
                raise where.error(d, f"DerivedField {d.get('name')!r} computes {what}; rulekit reads "
                                     f"only DerivedFields that are a FieldRef")
            out[d.get("name")] = (exprs[0].get("field"), d.get("dataType", ""), d)
    # aliases of aliases resolve to the input field
    for name in list(out):
        seen = {name}
        source, dtype, el = out[name]
        while source in out and source not in seen:
            seen.add(source)
            source = out[source][0]
        out[name] = (source, dtype, el)
    return out
