"""`rulekit export`: write a deployable artefact from a model or rules file."""

from __future__ import annotations

from pathlib import Path

from rulekit import exporters
from rulekit.commands.source import load_source
from rulekit.fileio import write_atomic


def run(*, source: Path, to: str, dialect: str, table: str | None, key: str | None, proba: bool,
        dtype: str, output: Path, opset: str | int = "auto") -> int:
    obj = load_source(source)
    fn = exporters.get(to)
    options: dict = {}
    if to == "sql":
        options = {"dialect": dialect, "table": table, "key": key, "proba": proba}
    elif to == "onnx":
        options = {"dtype": dtype, "opset": opset}
    result = fn(obj, **options)
    if to == "onnx" and not isinstance(result, (bytes, str)):
        result = result.SerializeToString()
    write_atomic(output, result)
    print(f"wrote {output}")
    return 0
