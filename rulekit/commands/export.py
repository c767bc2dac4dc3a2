"""`rulekit export`: write a deployable artefact from a model or rules file (``-o -``: to stdout)."""

from __future__ import annotations

import sys
from pathlib import Path

from rulekit import exporters, progress
from rulekit.commands.source import describe, load_source
from rulekit.fileio import check_distinct, check_output_path, is_stdout, write_atomic

TARGET_NAMES = {"python": "a Python module", "onnx": "ONNX", "rules": "rules", "json": "a model file",
                "dot": "Graphviz dot"}


def run(*, source: Path, to: str, dialect: str, table: str | None, key: str | None, proba: bool,
        dtype: str, output: Path, opset: str | int = "auto", quiet: bool = False) -> int:
    if str(output) != "-":
        check_output_path(output)
        check_distinct(output, source=source)
    obj = load_source(source)
    fn = exporters.get(to)
    options: dict = {}
    if to == "sql":
        options = {"dialect": dialect, "table": table, "key": key, "proba": proba}
    elif to == "onnx":
        options = {"dtype": dtype, "opset": opset}
    target = f"SQL ({dialect})" if to == "sql" else TARGET_NAMES.get(to, to)
    with progress.phase(f"exporting {describe(obj)} to {target}"):
        result = fn(obj, **options)
        if to == "onnx" and not isinstance(result, (bytes, str)):
            result = result.SerializeToString()
    if str(output) == "-":
        _to_stdout(result)
        return 0
    with progress.phase(f"writing {output}"):
        write_atomic(output, result)
    if not quiet and not is_stdout(output):
        print(f"wrote {output}")
    return 0


def _to_stdout(result: str | bytes) -> None:
    """The artefact alone on stdout (binary ONNX as bytes), for pipes: ``-o - | psql``."""
    if isinstance(result, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(result)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(result)
        sys.stdout.flush()
