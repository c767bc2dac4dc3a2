"""PMML fields -> rulekit features: the DataDictionary, the model's MiningSchema and simple
field aliases (a DerivedField that is a FieldRef), with the precision each field compares in.

A ``float`` field is parsed to float32 by a PMML engine, so its tests compare in float32 (its
thresholds are read as float32 values, rounded from the decimal text exactly once); ``double`` and
``integer`` fields compare in float64. Categorical string/integer fields with listed values become
nominal features.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal

import numpy as np
from pydantic import ValidationError

from rulekit.importers.pmml_xml import Where, child, children, etree, local
from rulekit.ir.model import Feature

NUMERIC_TYPES = {"double": "float64", "float": "float32", "integer": "float64"}


@dataclass(frozen=True)
class FieldRef:
    """What a field name in a predicate means: feature index, how it compares, its replacement.

    ``mapping`` (a MapValues DerivedField over a categorical input, as sklearn2pmml writes an
    OrdinalEncoder): the number each of the input's domain values maps to (None: no row, so the
    derived value is missing), compared in ``precision``; ``missing_code`` what a missing input maps
    to (``mapMissingTo``, or the mapped replacement), None when it stays missing.
    ``steps`` (an increasing Apply of + - * / with constants on one double input, as sklearn2pmml
    writes scalers): the value tested is ``steps`` applied in float64, then cast to ``precision``."""

    index: int
    precision: str  # float32 | float64 (numeric) or "nominal"
    replacement: str | None = None  # MiningField missingValueReplacement (text, as in the file)
    mapping: tuple[float | None, ...] | None = None
    missing_code: float | None = None
    steps: tuple[tuple[str, float], ...] | None = None  # an Apply on the input: see :func:`apply_steps`


@dataclass
class PmmlFields:
    """A PMML model's fields: its active MiningFields as features, every field reference by name
    (DerivedFields included), the target and its classes (see :func:`read_schema`)."""

    features: list[Feature] = field(default_factory=list)
    refs: dict[str, FieldRef] = field(default_factory=dict)
    target: str | None = None
    classes: list | None = None
    target_type: str = "string"

    def ref_of(self, where: Where, pred) -> FieldRef:
        """The field a predicate element names (its ``field`` attribute), or the error naming it."""
        name = where.attr(pred, "field")
        ref = self.refs.get(name)
        if ref is None:
            raise where.error(pred, f"field {name!r} is not an input of the model")
        return ref


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


def read_schema(pmml: etree._Element, model: etree._Element, where: Where) -> PmmlFields:
    """Features (the model's active MiningFields, in order), the target and its classes."""
    dd = child(pmml, "DataDictionary")
    if dd is None:
        raise where.error(pmml, "no <DataDictionary>")
    fields = {f.get("name"): f for f in children(dd, "DataField")}
    derived = _derived(pmml, model, where)
    ms = child(model, "MiningSchema")
    if ms is None:
        raise where.error(model, f"<{local(model)}> has no <MiningSchema>")
    schema = PmmlFields()
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
    pending = dict(derived)
    while pending:  # each DerivedField once its source is known (they may refer to each other)
        ready = [name for name, d in pending.items() if d[1] in schema.refs]
        if not ready:
            name, (_kind, source, _dtype, el) = next(iter(pending.items()))
            what = "a DerivedField cycle" if source in pending else "not an input field"
            raise where.error(el, f"DerivedField {name!r} refers to {source!r}, {what}")
        for name in ready:
            schema.refs[name] = _derive(schema, schema.refs[pending[name][1]], pending.pop(name), where)
    return schema


def _add_feature(schema: PmmlFields, df: etree._Element, mf: etree._Element, where: Where) -> FieldRef:
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


def _derived(pmml: etree._Element, model: etree._Element, where: Where) -> dict:
    """DerivedFields rulekit folds: name -> (kind, source field, dataType, element); kind is
    "ref" (a FieldRef: a rename or re-type) or "map" (MapValues of one categorical field)."""
    out: dict = {}
    holders = [child(pmml, "TransformationDictionary")]
    holders += [el for el in model.iter() if isinstance(el.tag, str) and local(el) == "LocalTransformations"]
    for holder in holders:
        if holder is None:
            continue
        for d in children(holder, "DerivedField"):
            exprs = children(d)
            kind = local(exprs[0]) if len(exprs) == 1 else None
            if kind == "FieldRef" and exprs[0].get("mapMissingTo") is None:
                out[where.attr(d, "name")] = ("ref", where.attr(exprs[0], "field"), d.get("dataType", ""), d)
            elif kind == "Apply":
                refs = [r for r in exprs[0].iter() if isinstance(r.tag, str) and local(r) == "FieldRef"]
                if len(refs) != 1:
                    raise where.error(d, f"DerivedField {d.get('name')!r} computes an Apply of {len(refs)} "
                                         f"fields; rulekit folds an Apply of one field")
                out[where.attr(d, "name")] = ("apply", where.attr(refs[0], "field"), d.get("dataType", ""), d)
            elif kind == "MapValues" and len(children(exprs[0], "FieldColumnPair")) == 1:
                pair = children(exprs[0], "FieldColumnPair")[0]
                out[where.attr(d, "name")] = ("map", where.attr(pair, "field"), d.get("dataType", ""), d)
            else:
                what = local(exprs[0]) if exprs else "nothing"
                raise where.error(d, f"DerivedField {d.get('name')!r} computes {what}; rulekit reads "
                                     f"DerivedFields that are a FieldRef, a MapValues of one "
                                     f"categorical field or an Apply (+ - * /) of one field")
    return out


def _derive(schema: PmmlFields, base: FieldRef, d: tuple, where: Where) -> FieldRef:
    kind, source, dtype, el = d
    if kind == "ref":
        prec = base.precision
        if prec != "nominal" and dtype in NUMERIC_TYPES:
            prec = "float32" if "float32" in (prec, NUMERIC_TYPES[dtype]) else "float64"
            if prec == "float32" and base.mapping is not None:  # the codes are cast once more
                return replace(base, precision=prec, mapping=tuple(_f32(c) for c in base.mapping),
                               missing_code=_f32(base.missing_code))
        return replace(base, precision=prec)
    if kind == "apply":
        return _apply(base, el, dtype, where)
    if base.precision != "nominal" or base.mapping is not None:
        raise where.error(el, f"DerivedField {el.get('name')!r} maps {source!r}, which is not a categorical "
                              f"input field")
    if dtype not in NUMERIC_TYPES:
        raise where.error(el, f"DerivedField {el.get('name')!r} maps to dataType {dtype!r} (rulekit folds "
                              f"MapValues to numbers: double, float, integer)")
    mv = children(el)[0]
    pair = children(mv, "FieldColumnPair")[0]
    in_col, out_col = where.attr(pair, "column"), where.attr(mv, "outputColumn")
    table = child(mv, "InlineTable")
    if table is None:
        raise where.error(mv, "MapValues needs an <InlineTable> (rulekit reads no TableLocator)")
    prec = NUMERIC_TYPES[dtype]
    rows: dict[str, float] = {}
    for row in children(table, "row"):
        cells = {local(c): (c.text or "") for c in row.iterchildren(etree.Element)}
        key, value = cells.get(_local_name(in_col)), cells.get(_local_name(out_col))
        if key is None or value is None:
            raise where.error(row, f"an InlineTable row without the columns {in_col!r} and {out_col!r}")
        rows.setdefault(key, _code(value, prec, row, where))
    default = mv.get("defaultValue")
    domain = schema.features[base.index].domain or ()
    mapping = []
    for label in domain:
        code = rows.get(str(label))
        if code is None and default is not None:
            code = _code(default, prec, mv, where)
        mapping.append(code)
    missing = mv.get("mapMissingTo")
    missing_code = _code(missing, prec, mv, where) if missing is not None else None
    if base.replacement is not None:  # the replacement is mapped like any value
        missing_code = rows.get(base.replacement.strip(), _code(default, prec, mv, where) if default else None)
    return FieldRef(base.index, prec, None, tuple(mapping), missing_code)


_STEP = {"+": ("+", "+"), "-": ("-", "r-"), "*": ("*", "*"), "/": ("/", "r/")}  # (x op c, c op x)


def _apply(base: FieldRef, el, dtype: str, where: Where) -> FieldRef:
    """Steps from the input up to the DerivedField: each Apply has the input's side and a Constant."""
    if base.precision != "float64" or base.mapping is not None or base.steps is not None:
        raise where.error(el, f"DerivedField {el.get('name')!r}: rulekit folds an Apply of a double or "
                              f"integer input field")
    if dtype not in NUMERIC_TYPES:
        raise where.error(el, f"DerivedField {el.get('name')!r} has dataType {dtype!r}")
    node = next(r for r in el.iter() if isinstance(r.tag, str) and local(r) == "FieldRef")
    if node.get("mapMissingTo") is not None:
        raise where.error(node, "a FieldRef with mapMissingTo in an Apply is not supported")
    steps, sign = [], 1
    while node.getparent() is not el:
        app = node.getparent()
        args = children(app)
        fn = app.get("function")
        if local(app) != "Apply" or fn not in _STEP or len(args) != 2 or any(
                app.get(a) is not None for a in ("mapMissingTo", "defaultValue")) or \
                app.get("invalidValueTreatment", "returnInvalid") != "returnInvalid":
            raise where.error(app, f"<{local(app)} function={fn!r}>: rulekit folds Apply + - * / of the "
                                   f"field and a Constant")
        other = args[1] if args[0] is node else args[0]
        if local(other) != "Constant" or other.get("missing") == "true":
            raise where.error(app, f"Apply {fn!r} of two computed values (rulekit folds one field and a Constant)")
        c = _code(other.text or "", "float32" if other.get("dataType") == "float" else "float64", other, where)
        op = _STEP[fn][0 if args[0] is node else 1]
        if op in ("*", "/") and c == 0 or op == "r/":
            raise where.error(app, f"Apply {fn!r} with {c!r} is not an increasing function of the field")
        if op == "r-" or op in ("*", "/") and c < 0:
            sign = -sign
        steps.append((op, c))
        node = app
    if sign < 0:
        raise where.error(el, f"DerivedField {el.get('name')!r} decreases as its field grows (rulekit folds "
                              f"increasing Applies)")
    return FieldRef(base.index, NUMERIC_TYPES[dtype], base.replacement, steps=tuple(steps))


def apply_steps(ref: FieldRef, x: np.ndarray) -> np.ndarray:
    """The derived value of raw doubles ``x``: each step in float64 (as PMML's Apply on doubles),
    then cast to the field's precision."""
    v = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        for op, c in ref.steps or ():
            fn = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op.lstrip("r")]
            v = fn(c, v) if op.startswith("r") else fn(v, c)
    return v.astype(np.float32).astype(np.float64) if ref.precision == "float32" else v


def _local_name(column: str) -> str:
    return column.split(":", 1)[-1]


def _code(text: str, precision: str, el, where: Where) -> float:
    try:
        v = parse_float32(text) if precision == "float32" else float(text)
    except (ValueError, ArithmeticError):
        raise where.error(el, f"MapValues output {text!r} is not a number") from None
    if v != v:
        raise where.error(el, f"MapValues output {text!r} is not a number")
    return v


def _f32(v: float | None) -> float | None:
    return None if v is None else float(np.float32(v))
