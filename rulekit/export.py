"""Python entry points for exporting: ``to_python``, ``to_sql``, ``to_onnx`` (see the contract)."""

from __future__ import annotations

from typing import Any

from rulekit import exporters


def to_python(obj: Any, **options: Any) -> str:
    """A standalone Python module (no rulekit import) that predicts exactly like ``obj``."""
    return exporters.get("python")(obj, **options)


def to_sql(obj: Any, dialect: str = "sqlite", table: str | None = None, **options: Any) -> str:
    """A ``SELECT`` over ``table`` (or a bare expression when ``table`` is None) in ``dialect`` (one of
    ``rulekit.exporters.DIALECTS`` or its aliases, docs/targets.md);
    ``form="view"|"function"`` (with ``name=``, ``replace=``) wraps it as a deployable statement."""
    return exporters.get("sql")(obj, dialect=dialect, table=table, **options)


def to_onnx(obj: Any, dtype: str = "auto", **options: Any):
    """An ``onnx.ModelProto`` for onnxruntime (TreeEnsemble where possible). ``dtype="auto"``: float64
    input when any test of ``obj`` compares in float64, else float32; ``"float"``/``"double"``."""
    return exporters.get("onnx")(obj, dtype=dtype, **options)


def export(obj: Any, target: str, **options: Any):
    """``obj`` written by ``target``, one of ``rulekit.exporters.TARGETS`` (docs/targets.md); an option
    the target does not take is an ``ExportError`` naming it."""
    return exporters.get(target)(obj, **options)
