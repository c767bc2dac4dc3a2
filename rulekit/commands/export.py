"""`rulekit export`: write a deployable artefact from a model or rules file (``-o -``: to stdout)."""

from __future__ import annotations

import warnings
from pathlib import Path

from rulekit import exporters, progress
from rulekit.commands.source import describe, load_source_rows
from rulekit.errors import RulekitError
from rulekit.fileio import (check_distinct, check_output_path, report_warnings, report_written, to_stdout,
                             write_atomic)
from rulekit.util import count

TARGET_NAMES = {"python": "a Python module", "onnx": "ONNX", "rules": "rules", "json": "a model file",
                "dot": "Graphviz dot"}


def run(*, source: Path, to: str, dialect: str, table: str | None, key: str | None, proba: bool,
        dtype: str, output: Path, opset: str | int = "auto", quiet: bool = False, form: str | None = None,
        name: str | None = None, replace: bool = False, max_statement_bytes: int | None = None) -> int:
    if str(output) != "-" and form != "dbt":
        check_output_path(output)
        check_distinct(output, source=source)
    obj, rows = load_source_rows(source)
    target = f"SQL ({dialect})" if to == "sql" else TARGET_NAMES.get(to, to)
    with progress.phase(f"exporting {describe(obj)} to {target}"):
        result, caught = (_rules_text(obj, rows), []) if to == "rules" and rows is not None else artefact(obj, to=to, dialect=dialect, table=table, key=key, proba=proba,
                                  dtype=dtype, opset=opset, form=form, name=name, replace=replace,
                                  max_statement_bytes=max_statement_bytes)
    report_warnings(caught, quiet=quiet)  # e.g. float32 ONNX input on a float64 model
    if isinstance(result, dict):
        return _write_tree(Path(output), result, target, quiet)
    if str(output) == "-":
        to_stdout(result)
        return 0
    with progress.phase(f"writing {output}"):
        write_atomic(output, result)
    size = len(result) if isinstance(result, bytes) else len(result.encode("utf-8"))
    report_written(output, f"{target}, {count(size, 'byte')}", quiet=quiet)
    return 0


def artefact(obj, *, to: str, dialect: str = "sqlite", table: str | None = None, key: str | None = None,
             proba: bool = False, dtype: str = "auto", opset: str | int = "auto", form: str | None = None,
             name: str | None = None, replace: bool = False,
             max_statement_bytes: int | None = None) -> tuple[str | bytes | dict, list]:
    """What ``rulekit export`` writes for ``obj`` (text ending in a newline, ONNX as bytes, a dict of
    files for dbt) and the exporter's warnings; ``rulekit studio``'s export buttons call it too."""
    fn = exporters.get(to)
    options: dict = {}
    if to == "sql":
        options = {"dialect": dialect, "table": table, "key": key, "proba": proba}
        if form is not None or name is not None or replace:
            options.update(form=form, name=name, replace=replace)
        if max_statement_bytes is not None:
            options["max_statement_bytes"] = max_statement_bytes
    elif to == "onnx":
        options = {"dtype": dtype, "opset": opset}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        result = fn(obj, **options)
        if to == "onnx" and not isinstance(result, (bytes, str)):
            result = result.SerializeToString()
        if isinstance(result, str) and not result.endswith("\n"):
            result += "\n"  # text files end with a newline (the bare SQL expression had none)
    return result, caught


def _rules_text(rb, rows: tuple) -> str:
    """A rules file printed again with the rows its shares are written over (516/519, not 172/173)."""
    from rulekit import dsl

    return dsl.dumps(rb, share_rows=rows)


def _write_tree(root: Path, files: dict, target: str, quiet: bool) -> int:
    """A multi-file artefact (``--form dbt``) written under the directory ``root``."""
    if str(root) == "-":
        raise RulekitError("--form dbt writes a directory: give -o DIR, not -o -")
    if root.exists() and not root.is_dir():
        raise RulekitError(f"{root}: not a directory (--form dbt writes a directory)")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    report_written(root, f"{target} dbt model, {count(len(files), 'file')}", quiet=quiet)
    return 0
