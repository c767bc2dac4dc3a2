"""ONNX export: tree models as ai.onnx.ml TreeEnsemble graphs, rule bases as standard operators.

    >>> proto = to_onnx(model)              # input type follows the model, TreeEnsemble (ml opset 5)
    >>> proto = to_onnx(model, dtype="double", opset=3)

Contract (shared/CONTRACT.md): one input ``X`` [N, n_features]: ``dtype="auto"`` (default) is
float64 when any test of the model compares in float64 and float32 when float32 input is exact
(:mod:`.precision`); ``"float"``/``"double"`` choose. Float input on a model that compares in float64
is allowed, warns (:class:`Float32InputWarning`) and says what it costs in metadata
``rulekit.input_rounding``. Outputs ``label`` [N] and ``probabilities`` [N, K] for classifiers,
``prediction`` [N] for regressors; plain tensors, no ZipMap. Nominal features are fed as category
codes, documented in the model's metadata (``rulekit.features``, ``rulekit.input_encoding``).

Exactness: thresholds come from :mod:`rulekit.semantics` (the canonical float64 boundary ``b`` of
``x <= b``); float32 mode writes the largest float32 <= ``b``, which is exact for float32 inputs.
Missing values follow each split's ``missing`` branch (``nodes_missing_value_tracks_true``). One
such flag puts onnxruntime on its slower NaN-checking loop for the whole ensemble (cost:
docs/engines.md, "ONNX export's missing-value flags").
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from rulekit.errors import ExportError
from rulekit.exporters import register, reject_unknown
from rulekit.ir.model import Model
from rulekit.rules.base import RuleBase

from .check import check_model, check_tree_ensembles
from .precision import auto_dtype, float32_cost, uses_float64
from .size import MAX_BYTES

__all__ = ["Float32InputWarning", "auto_dtype", "check_model", "check_tree_ensembles", "float32_cost",
           "resolve_opset", "to_onnx"]

ROUNDING_KEY = "rulekit.input_rounding"  # metadata: what float32 input costs a float64 model


class Float32InputWarning(UserWarning):
    """float32 input was asked for a model that compares in float64: some rows may differ."""

ORT_V5 = (1, 21)  # first onnxruntime with ai.onnx.ml TreeEnsemble (opset 5)


class OnnxOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    dtype: Literal["auto", "float", "double", "float32", "float64"] = "auto"
    opset: Literal["auto", 3, 5] = "auto"
    accumulate: Literal["auto", "float", "double"] = "auto"
    check: bool = True
    warn: bool = True
    max_bytes: int = MAX_BYTES

    @property
    def np_dtype(self) -> np.dtype:
        return np.dtype(np.float64 if self.dtype in ("double", "float64") else np.float32)


def _version_tuple(text: str) -> tuple[int, ...]:
    out = []
    for part in text.split(".")[:2]:
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits or 0))
    return tuple(out)


def resolve_opset(opset: Any = "auto") -> int:
    """5 (TreeEnsemble) unless an onnxruntime older than 1.21 is installed; 3/5 when asked for."""
    if opset != "auto":
        return int(opset)
    try:
        import onnxruntime  # noqa: PLC0415
    except ImportError:
        return 5
    return 5 if _version_tuple(onnxruntime.__version__) >= ORT_V5 else 3


@register("onnx")
def to_onnx(obj: Any, *, dtype: str = "auto", opset: Any = "auto", **options: Any):
    """``obj`` (a rulekit Model or RuleBase) as an ``onnx.ModelProto`` for onnxruntime.

    ``dtype``: ``"auto"`` (default: ``"double"`` when a test of ``obj`` compares in float64, else
    ``"float"``), ``"float"`` (float32 input; on a float64 model it warns and records the cost in
    metadata ``rulekit.input_rounding``) or ``"double"``. ``opset``: ``"auto"``, ``5``
    (ai.onnx.ml TreeEnsemble) or ``3`` (legacy TreeEnsembleRegressor). ``accumulate`` (float input):
    ``"auto"`` sums in float32 only where that is exact (votes, single trees, float32-arithmetic
    averages), else in float64 (averaged probabilities, regressors, boosted models); averaged
    float64 classifiers (scikit-learn forests) are added in tree order outside the operator, so
    ties label as scikit-learn at any thread count (opset 5; docs/engines.md);
    ``"float"``/``"double"`` force the operator's own float32/double sum. ``check=False``
    skips the validation; ``warn=False`` records the float32-input cost in the metadata only;
    ``max_bytes`` lowers the size limit (default 1.8 GB).
    """
    if isinstance(opset, str) and opset.isdigit():
        opset = int(opset)
    reject_unknown("ONNX", options, tuple(f for f in OnnxOptions.model_fields if f not in ("dtype", "opset")))
    try:
        opts = OnnxOptions(dtype=dtype, opset=opset, **options)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ExportError(f"onnx export option {where}: {first['msg']}") from None
    if not isinstance(obj, (Model, RuleBase)):
        raise ExportError(f"cannot export {type(obj).__name__} to ONNX: expected a rulekit Model or "
                          f"RuleBase")
    if opts.dtype == "auto":
        opts = opts.model_copy(update={"dtype": auto_dtype(obj)})
    rounding = None
    if opts.np_dtype == np.float32 and uses_float64(obj):
        cost = float32_cost(obj)
        rounding = None if cost.exact else cost.message()
    level = resolve_opset(opts.opset)
    if isinstance(obj, Model):
        from .model import build  # noqa: PLC0415

        proto = build(obj, dtype=opts.np_dtype, opset=level, max_bytes=opts.max_bytes,
                      accumulate=opts.accumulate)
    elif isinstance(obj, RuleBase):
        from .rules import build_rules  # noqa: PLC0415

        proto = build_rules(obj, dtype=opts.np_dtype, opset=level, max_bytes=opts.max_bytes)
    if rounding is not None:
        entry = proto.metadata_props.add()
        entry.key, entry.value = ROUNDING_KEY, rounding
        if opts.warn:
            warnings.warn(rounding, Float32InputWarning, stacklevel=3)
    if opts.check:
        check_model(proto)
    return proto
