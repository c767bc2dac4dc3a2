"""Reading PMML predicates against a model's fields, with no graph: which predicate an element holds,
a test's threshold as the field's precision reads it, the domain codes of categories, the categories
or raw interval a mapped or derived field's test passes, and when two tests are complements.

Shared by the tree reader (:mod:`rulekit.importers.pmml_tree`) and the rule set reader
(:mod:`rulekit.importers.pmml_rules`); the tree reader's ``GraphMaker`` is a :class:`PredicateReader`.
"""

from __future__ import annotations

import math

import numpy as np

from rulekit.importers.folding_bounds import largest_passing
from rulekit.importers.pmml_fields import FieldRef, PmmlFields, apply_steps, parse_float32
from rulekit.importers.pmml_xml import Where, child, etree, local

PREDICATES = ("SimplePredicate", "SimpleSetPredicate", "CompoundPredicate", "True", "False")

_HOLDS = {"lessThan": float.__lt__, "lessOrEqual": float.__le__, "greaterThan": float.__gt__,
          "greaterOrEqual": float.__ge__, "equal": float.__eq__, "notEqual": float.__ne__}
_COMPLEMENT = {("lessOrEqual", "greaterThan"), ("lessThan", "greaterOrEqual"), ("equal", "notEqual"),
               ("isMissing", "isNotMissing"), ("isIn", "isNotIn")}


def predicate_of(el: etree._Element, where: Where) -> etree._Element:
    """The predicate child of a ``Node`` or rule (refused when it has none)."""
    for c in el.iterchildren(etree.Element):
        if local(c) in PREDICATES:
            return c
    raise where.error(el, f"<{local(el)}> has no predicate")


class PredicateReader:
    """PMML tests read against ``schema``'s fields; errors name the element through ``where``."""

    schema: PmmlFields
    where: Where

    def _field(self, pred) -> FieldRef:
        return self.schema.ref_of(self.where, pred)

    def mapped_codes(self, pred, ref: FieldRef, op: str) -> tuple[tuple[int, ...], bool | None]:
        """For a test on a MapValues field: the input categories (domain indices) whose mapped
        number passes it, and whether a missing input passes it (None: UNKNOWN, it stays missing).
        A category with no mapped number would make the test UNKNOWN: refused."""
        if op in ("isMissing", "isNotMissing"):
            yes = op == "isMissing"
            codes = tuple(i for i, c in enumerate(ref.mapping) if (c is None) == yes)
            return codes, (ref.missing_code is None) == yes
        unmapped = [i for i, c in enumerate(ref.mapping) if c is None]
        if unmapped:
            label = self.schema.features[ref.index].domain[unmapped[0]]
            raise self.where.error(pred, f"category {label!r} has no mapped value: the test is UNKNOWN "
                                         f"there, which a nominal test cannot say")
        if op not in _HOLDS:
            raise self.where.error(pred, f"SimplePredicate operator {op!r} is not supported")
        value = self.threshold_of(pred, ref, self.where.attr(pred, "value"))
        holds = _HOLDS[op]
        codes = tuple(i for i, c in enumerate(ref.mapping) if holds(c, value))
        return codes, (None if ref.missing_code is None else holds(ref.missing_code, value))

    def raw_interval(self, pred, ref: FieldRef, op: str) -> tuple[float, float]:
        """A test on an Apply field (increasing in its input) as ``lo < x <= hi`` on the raw double
        (``notEqual``: outside it), with the exact float64 bounds found by bisection over the doubles
        (:func:`folding_bounds.largest_passing`), never by inverting the arithmetic."""
        if op not in _HOLDS:
            raise self.where.error(pred, f"SimplePredicate operator {op!r} is not supported")
        v = self.threshold_of(pred, ref, self.where.attr(pred, "value"))
        below = float(np.nextafter(np.float32(v), np.float32(-np.inf))) if ref.precision == "float32" \
            else math.nextafter(v, -math.inf)  # F < v  <=>  F <= below (F takes values of the precision)
        le_v, le_below = largest_passing(lambda x: apply_steps(ref, x), np.array([v, below])).tolist()
        return {"lessOrEqual": (-math.inf, le_v), "lessThan": (-math.inf, le_below),
                "greaterThan": (le_v, math.inf), "greaterOrEqual": (le_below, math.inf),
                "equal": (le_below, le_v), "notEqual": (le_below, le_v)}[op]

    def threshold_of(self, pred, ref: FieldRef, text: str) -> float:
        try:
            v = parse_float32(text) if ref.precision == "float32" else float(text)
        except (ValueError, ArithmeticError):
            raise self.where.error(pred, f"value {text!r} is not a number") from None
        if math.isnan(v):
            raise self.where.error(pred, f"value {text!r} is not a number")
        return v

    def _holds(self, op: str, ref: FieldRef, text: str, value: float, pred) -> bool:
        r = self.threshold_of(pred, ref, text)
        return r <= value if op == "<=" else r < value

    def codes_of(self, pred, ref: FieldRef, texts) -> tuple[int, ...]:
        feat = self.schema.features[ref.index]
        domain = feat.domain or ()
        out = []
        for text in texts:
            for i, d in enumerate(domain):
                if str(d) == text.strip() or (isinstance(d, int) and _int_text(text) == d):
                    out.append(i)
                    break
        return tuple(sorted(set(out)))


def category_codes(p, reader: PredicateReader) -> frozenset | None:
    """The domain codes a set or (not-)equal test on a plain categorical field holds for."""
    ref = reader.schema.refs.get(p.get("field"))
    if ref is None or ref.precision != "nominal":
        return None
    n = len(reader.schema.features[ref.index].domain or ())
    if local(p) == "SimpleSetPredicate" and p.get("booleanOperator") in ("isIn", "isNotIn"):
        arr = child(p, "Array")
        if arr is None:
            return None
        codes = frozenset(reader.codes_of(p, ref, array_items(arr, reader.where)))
        return codes if p.get("booleanOperator") == "isIn" else frozenset(range(n)) - codes
    if local(p) == "SimplePredicate" and p.get("operator") in ("equal", "notEqual") and p.get("value") is not None:
        codes = frozenset(reader.codes_of(p, ref, [p.get("value")]))
        return codes if p.get("operator") == "equal" else frozenset(range(n)) - codes
    return None


def complements(p, q, reader: PredicateReader) -> bool:
    """Whether ``q`` is exactly ``not p`` on every present value (same field, same value; or two
    category tests that split the field's values between them, as sklearn2pmml writes
    HistGradientBoosting's categorical splits)."""
    if p.get("field") is not None and p.get("field") == q.get("field") and \
            local(p) in PREDICATES[:2] and local(q) in PREDICATES[:2]:
        a, b = category_codes(p, reader), category_codes(q, reader)
        if a is not None and b is not None:
            n = len(reader.schema.features[reader.schema.refs[p.get("field")].index].domain or ())
            return not (a & b) and len(a | b) == n
    if local(p) != local(q) or local(p) not in ("SimplePredicate", "SimpleSetPredicate"):
        return False
    if p.get("field") != q.get("field") or p.get("field") is None:
        return False
    key = "operator" if local(p) == "SimplePredicate" else "booleanOperator"
    ops = (p.get(key), q.get(key))
    if ops not in _COMPLEMENT and ops[::-1] not in _COMPLEMENT:
        return False
    if local(p) == "SimpleSetPredicate":
        a, b = child(p, "Array"), child(q, "Array")
        return a is not None and b is not None and (a.text or "").split() == (b.text or "").split()
    if ops[0] in ("isMissing", "isNotMissing"):
        return True
    ref = reader.schema.refs.get(p.get("field"))
    if ref is None or p.get("value") is None or q.get("value") is None:
        return False
    if ref.precision == "nominal":
        return p.get("value") == q.get("value")
    try:
        return reader.threshold_of(p, ref, p.get("value")) == reader.threshold_of(q, ref, q.get("value"))
    except Exception:  # noqa: BLE001 - a bad value is reported when the predicate itself is read
        return False


def _int_text(text: str):
    try:
        return int(text.strip())
    except ValueError:
        return None


def set_predicate(el: etree._Element, ref: FieldRef, where: Where) -> tuple[str, list[str]]:
    """A ``SimpleSetPredicate``'s ``booleanOperator`` (isIn/isNotIn) and its ``Array`` entries, after
    the checks every reader of one needs (a nominal field, a known operator, an Array)."""
    if ref.precision != "nominal":
        raise where.error(el, "SimpleSetPredicate on a continuous field is not supported")
    op = where.attr(el, "booleanOperator")
    if op not in ("isIn", "isNotIn"):
        raise where.error(el, f"SimpleSetPredicate booleanOperator={op!r}")
    arr = child(el, "Array")
    if arr is None:
        raise where.error(el, "SimpleSetPredicate needs an <Array>")
    return op, array_items(arr, where)


def array_items(arr: etree._Element, where: Where) -> list[str]:
    """The entries of a PMML ``Array`` (whitespace-separated, double quotes around entries with
    spaces, a backslash escaping a quote)."""
    text = arr.text or ""
    items: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch == '"':
            i += 1
            buf = []
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] == '"':
                    i += 1
                buf.append(text[i])
                i += 1
            if i >= n:
                raise where.error(arr, "an <Array> entry has no closing quote")
            i += 1
            items.append("".join(buf))
        else:
            j = i
            while j < n and not text[j].isspace():
                j += 1
            items.append(text[i:j].replace('\\"', '"'))  # JPMML writes q'uo\"te unquoted
            i = j
    declared = arr.get("n")
    if declared is not None and declared.isdigit() and int(declared) != len(items):
        raise where.error(arr, f"<Array n={declared}> holds {len(items)} entries")
    return items
