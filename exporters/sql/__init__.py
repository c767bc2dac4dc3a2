"""SQL export: a SELECT (or a bare expression) that scores rows inside the database, exactly.

    >>> sql = rulekit.export.to_sql(model, dialect="duckdb", table="customers", key="id", proba=True)

Output columns, in order: the ``key`` column when given, ``prediction``, then with ``proba`` one
``"proba:<label>"`` column per class in class order. Without ``table``, a bare expression for the
prediction to paste into one's own query. Dialects (one data file each, see ``dialect.py``):
sqlite, duckdb, postgres, mysql (MariaDB), spark, bigquery, snowflake, tsql.

The table holds one column per feature, named as the feature: DOUBLE (or REAL/INTEGER) for numeric
features and for nominal features whose domain is all integers, text for other nominal features
(their labels). Missing values are NULL.

Exactness: every threshold test is the canonical float64 test of :mod:`rulekit.semantics` written
as a 17-digit double literal (never DECIMAL, never an infinity); NULL follows the source's missing
branch; ensembles sum in the source's order and apply its link. Missing values must be NULL: a NaN
stored in a DOUBLE column (PostgreSQL, DuckDB, Spark allow it) compares above every number there.
Size: trees deeper than the dialect's CASE budget go flat below it, ensembles are summed in CTE
stages of at most 50 trees, so a 5,000-deep tree or a 1,000-tree forest still runs.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rulekit.errors import ExportError
from rulekit.exporters import register, reject_unknown
from rulekit.exporters.sql import dialect as _dialect
from rulekit.exporters.sql.dialect import NAMES as DIALECTS
from rulekit.exporters.sql.dialect import Dialect
from rulekit.exporters.sql.forms import FORM_NAMES as FORMS
from rulekit.exporters.sql.dbt import files as dbt_files
from rulekit.exporters.sql.forms import wrap
from rulekit.exporters.sql.limits import check as check_size
from rulekit.ir.model import Model

_TUNABLE = {"case_depth", "batch"}


@register("sql")
def to_sql(obj: Any, *, dialect: str = "sqlite", table: str | None = None, key: str | None = None,
           proba: bool = False, form: str | None = None, name: str | None = None, replace: bool = False,
           max_statement_bytes: int | None = None, **options: Any) -> str | dict[str, str]:
    """SQL scoring ``obj`` (a Model or RuleBase) in ``dialect``.

    ``table``: the table to select from (dots separate schema parts); None gives a bare expression.
    ``key``: a column passed through first. ``proba``: add one probability column per class.
    ``form``: select, expression, view or function (:mod:`forms`; default: select with a table,
    expression without); ``name`` names the view or function, ``replace`` replaces an existing one.
    ``form="dbt"`` returns ``{relative path: text}`` of a dbt model (:mod:`dbt`), not a string.
    ``max_statement_bytes``: refuse SQL longer than this (default: the dialect's enforced documented
    limit, :mod:`limits`).
    Options ``case_depth`` (CASE nesting per tree before going flat) and ``batch`` (trees summed per
    stage, at most 50) override the dialect's defaults.
    """
    from rulekit.exporters.sql.query import build  # noqa: PLC0415
    from rulekit.rules.base import RuleBase  # noqa: PLC0415

    reject_unknown("SQL", options, tuple(sorted(_TUNABLE)))
    d = _dialect.get(dialect)
    if options:
        for name, value in options.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ExportError(f"SQL export option {name} must be a positive integer, got {value!r}")
        if options.get("batch", 1) > 50:
            raise ExportError("SQL export option batch must be at most 50 (engines limit sum depth)")
        extra = {"stage_leaves": None} if "batch" in options else {}  # an explicit batch is obeyed
        d = dataclasses.replace(d, _cache={}, **options, **extra)
    if not isinstance(obj, (Model, RuleBase)):
        raise ExportError(f"cannot export a {type(obj).__name__} to SQL (expected a model or a rule base)")
    if table is not None and not isinstance(table, str):
        raise ExportError("table must be a name")
    if form is None:
        sql = build(obj, d, table=table, key=key, proba=bool(proba)) + ("\n" if table is not None else "")
        check_size(sql, d.name, max_statement_bytes)
        return sql
    if name is not None and (not isinstance(name, str) or form not in ("view", "function", "dbt")):
        raise ExportError("a name (--name) applies to --form view, function or dbt")

    def query(o, *, table, key, proba, dialect=None):
        return build(o, dialect or d, table=table, key=key, proba=proba) + ("\n" if table is not None else "")

    if form == "dbt":
        return dbt_files(obj, build=query, literal=d.string, dialect=d.name, table=table, key=key, proba=bool(proba), name=name)
    sql = wrap(obj, d, form=form, build=query, table=table, key=key, proba=bool(proba), name=name,
               replace=bool(replace))
    check_size(sql, d.name, max_statement_bytes)
    return sql


__all__ = ["DIALECTS", "Dialect", "FORMS", "to_sql"]
