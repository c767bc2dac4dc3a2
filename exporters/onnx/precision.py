"""Which ONNX input type is exact for a model or rule base, and what float32 input costs when it is not.

float32 input is exact when every test depends on ``x`` only through ``float32(x)``: threshold tests
that compare in float32 (scikit-learn, XGBoost; rule bases declaring ``precision float32``) and
nominal codes below 2**24. A float64 comparison (HistGradientBoosting, LightGBM, rulekit's learners),
an oblique (linear) test, which sums the inputs in float64, or a code float32 cannot hold needs double
input: :func:`auto_dtype` picks it. :func:`float32_cost` counts the distinct tests a float32 input
can move rows across, for the warning and the metadata of an explicit ``dtype="float"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rulekit import semantics
from rulekit.ir.model import Model
from rulekit.rules.boxes import iter_literals

F32_EXACT_INTS = 2**24  # every integer code up to here is a float32


@dataclass(frozen=True)
class Float32Cost:
    """Tests whose answer float32 input can change: distinct thresholds, oblique tests, nominal
    features with codes beyond float32's integers."""

    thresholds: int
    linear: int
    nominal: int

    @property
    def exact(self) -> bool:
        return not (self.thresholds or self.linear or self.nominal)

    def message(self) -> str:
        parts = []
        if self.thresholds:
            parts.append(f"{self.thresholds:,} distinct threshold(s) compare in float64")
        if self.linear:
            parts.append(f"{self.linear:,} oblique test(s) sum inputs in float64")
        if self.nominal:
            parts.append(f"{self.nominal:,} nominal feature(s) have codes beyond 2**24")
        return ("float32 input for a model that compares in float64: inputs are rounded to float32 "
                f"before comparing ({'; '.join(parts)}); rows near them may differ from the model "
                f"(--dtype double or auto is exact)")


def _not_float32_exact(b: np.ndarray) -> int:
    """How many canonical float64 boundaries ``x <= b`` no float32 test reproduces."""
    b = np.unique(np.asarray(b, dtype=np.float64))
    b = b[np.isfinite(b)]
    if not len(b):
        return 0
    f = semantics.boundary_array("<=", np.asarray([semantics.f32_floor(v) for v in b]), "float32")
    return int((f != b).sum())


def _model_tests(model: Model) -> tuple[dict[int, list[float]], int]:
    """Canonical boundaries per feature of every numeric split, and the number of linear splits."""
    groups: dict[tuple[str, str], list[tuple[int, float]]] = {}
    linear = 0
    for tree in model.trees:
        for _, a in tree.nodes(data=True):
            if a["kind"] == "numeric":
                groups.setdefault((a["op"], a["precision"]), []).append((a["feature"], a["threshold"]))
            elif a["kind"] == "linear":
                linear += 1
    bounds: dict[int, list[float]] = {}
    for (op, precision), pairs in groups.items():
        b = semantics.boundary_array(op, np.asarray([t for _, t in pairs]), precision)
        for (j, _), v in zip(pairs, b.tolist()):
            bounds.setdefault(j, []).append(v)
    return bounds, linear


def _rule_tests(rb) -> tuple[dict[int, list[float]], int]:
    """The same for a rule base: every numeric comparison in its declared precision."""
    index = {f.name: j for j, f in enumerate(rb.features)}
    numeric = {f.name for f in rb.features if f.kind == "numeric"}
    bounds: dict[int, list[float]] = {}
    linear = 0
    for rule in rb.rules:
        for c in iter_literals(rule.condition):
            if c.kind == "linear":
                linear += 1
            elif c.kind == "compare" and c.feature in numeric and isinstance(c.value, (int, float)) \
                    and not isinstance(c.value, bool) and not np.isnan(c.value):
                v, prec = float(c.value), rb.precision
                bs = ([semantics.le_boundary(v, prec), semantics.lt_boundary(v, prec)]
                      if c.op in ("=", "!=") else [semantics.canonical(c.op, v, prec)[1]])
                bounds.setdefault(index[c.feature], []).extend(bs)
    return bounds, linear


def float32_cost(obj) -> Float32Cost:
    """What float32 input costs ``obj`` (a Model or a RuleBase): see :class:`Float32Cost`."""
    bounds, linear = _model_tests(obj) if isinstance(obj, Model) else _rule_tests(obj)
    thresholds = sum(_not_float32_exact(b) for b in bounds.values())
    nominal = sum(1 for f in obj.features if f.kind == "nominal" and len(f.domain or ()) > F32_EXACT_INTS)
    return Float32Cost(thresholds, linear, nominal)


def uses_float64(obj) -> bool:
    """True when a test of ``obj`` compares in float64 (so float32 input may round across it)."""
    if isinstance(obj, Model):
        for tree in obj.trees:
            for _, a in tree.nodes(data=True):
                if a["kind"] == "linear" or a["kind"] == "numeric" and a["precision"] == "float64":
                    return True
        return any(f.kind == "nominal" and len(f.domain or ()) > F32_EXACT_INTS for f in obj.features)
    if obj.precision == "float64":
        bounds, linear = _rule_tests(obj)
        if bounds or linear:
            return True
    return not float32_cost(obj).exact


def auto_dtype(obj) -> str:
    """``"double"`` when any test of ``obj`` compares in float64, else ``"float"`` (exact, smaller)."""
    return "double" if uses_float64(obj) else "float"
