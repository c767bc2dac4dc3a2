"""Exporters: one module per target, each a function from a Model or RuleBase to text or bytes.

The one list of targets and SQL dialects is here (``TARGETS``, ``DIALECTS``): the CLI's choices and
help, ``rulekit.export`` and the table in docs/targets.md read it (tests/exporters/test_registry.py).
A target's module registers its function with :func:`register` when :func:`get` first imports it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from rulekit.errors import ExportError, RulekitError

_REGISTRY: dict[str, Callable[..., Any]] = {}

# target name -> (module that registers it, imported on first use; what it writes)
TARGETS = {
    "python": ("rulekit.exporters.python", "a standalone Python module (no rulekit import)"),
    "sql": ("rulekit.exporters.sql", "a SELECT, bare expression, view, function or dbt model"),
    "onnx": ("rulekit.exporters.onnx", "an ONNX model (ai.onnx.ml TreeEnsemble) for onnxruntime"),
    "rules": ("rulekit.exporters.rules", "a rules file in the rule DSL"),
    "json": ("rulekit.exporters.json", "a rulekit model file (JSON)"),
    "dot": ("rulekit.exporters.dot", "a Graphviz dot picture"),
    "pmml": ("rulekit.exporters.pmml", "PMML 4.4 (TreeModel, MiningModel or RuleSetModel)"),
}
# SQL dialect name -> the database it writes for; each is one data entry in sql/dialect.py
DIALECTS = {
    "sqlite": "SQLite",
    "duckdb": "DuckDB",
    "postgres": "PostgreSQL",
    "mysql": "MySQL / MariaDB",
    "spark": "Spark SQL",
    "bigquery": "BigQuery",
    "snowflake": "Snowflake",
    "tsql": "SQL Server (T-SQL)",
}
# other spellings ``to_sql(dialect=...)`` accepts
DIALECT_ALIASES = {"postgresql": "postgres", "mariadb": "mysql", "sparksql": "spark", "sqlserver": "tsql",
                   "mssql": "tsql"}


def register(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        _REGISTRY[name] = fn
        return fn

    return deco


def get(name: str) -> Callable[..., Any]:
    """The export function of target ``name`` (one of ``TARGETS``)."""
    if name not in _REGISTRY:
        if name not in TARGETS:
            raise RulekitError(f"unknown export target {name!r} (choose from {', '.join(TARGETS)})")
        # every target's module is part of rulekit: an ImportError here is a broken install and
        # propagates as one (never "not built yet", which verify would report as a skipped backend)
        importlib.import_module(TARGETS[name][0])
    if name not in _REGISTRY:
        raise RuntimeError(f"{TARGETS[name][0]} did not register the export target {name!r}")
    return _REGISTRY[name]


def reject_unknown(target: str, options: dict[str, Any], known: tuple[str, ...] = ()) -> None:
    """Every exporter's option check: an option it does not take is an ExportError naming it."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        takes = f" (it takes {', '.join(known)})" if known else " (it takes none)"
        raise ExportError(f"unknown {target} export option(s): {', '.join(unknown)}{takes}")


def targets() -> list[str]:
    """The export target names, in the CLI's order."""
    return list(TARGETS)


def dialects() -> list[str]:
    """The SQL dialect names, in the CLI's order."""
    return list(DIALECTS)


def table() -> str:
    """The Markdown table of targets and dialects that docs/targets.md carries."""
    rows = ["| `--to` | writes |", "| --- | --- |"]
    rows += [f"| `{name}` | {what} |" for name, (_, what) in TARGETS.items()]
    rows += ["", "| `--dialect` | database |", "| --- | --- |"]
    rows += [f"| `{name}` | {db} |" for name, db in DIALECTS.items()]
    rows += ["", "Also accepted by `to_sql(dialect=...)`: "
             + ", ".join(f"`{a}` ({n})" for a, n in DIALECT_ALIASES.items()) + "."]
    return "\n".join(rows) + "\n"
