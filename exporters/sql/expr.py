"""Small SQL text builders shared by trees and rules: comparisons, sets, sums, AND/OR lists.

Every test is written from canonical float64 boundaries (:mod:`rulekit.semantics`): ``x <= b`` and
``x > b``; infinite boundaries never become literals (``x <= inf`` is ``x = x``, ``x > -inf`` is
``x >= -DBL_MAX``). Each test is NULL when its column is NULL, so SQL's three-valued logic is the
rule engine's. Long AND/OR lists are grouped in parenthesized chunks so neither the parser stack
nor the expression depth grows with their length.
"""

from __future__ import annotations

import math

from rulekit.exporters.sql.dialect import Dialect

CHUNK = 32  # terms per AND/OR group: expression depth grows as CHUNK * log_CHUNK(n)
TRUE = "1 = 1"
FALSE = "1 = 0"
_DBL_MAX = 1.7976931348623157e308
# An oblique sum of +inf and -inf (or 0 * inf) is NaN, which every backend routes like a missing
# value (rulekit.ir.compiled). Per dialect, how a NaN sum becomes NULL, only where the engine
# computes NaN: SQLite already gives NULL, MariaDB/MySQL and T-SQL doubles cannot hold inf or NaN.
# NULLIF works where NaN = NaN is true (DuckDB, PostgreSQL, Spark, Snowflake); BigQuery's is false.
# docs/engines.md ("NaN sums") has what each engine gives for inf - inf.
NAN_SUM: dict[str, str] = {
    "duckdb": "NULLIF({0}, CAST('NaN' AS DOUBLE))",
    "postgres": "NULLIF({0}, CAST('NaN' AS DOUBLE PRECISION))",
    "spark": "NULLIF({0}, CAST('NaN' AS DOUBLE))",
    "snowflake": "NULLIF({0}, CAST('NaN' AS DOUBLE))",
    "bigquery": "IF(IS_NAN({0}), NULL, {0})",
}


def le(d: Dialect, col: str, b: float) -> str:
    """``col <= b`` for a canonical boundary ``b`` (NULL when ``col`` is NULL)."""
    if b == math.inf:
        return f"{col} = {col}"
    if b == -math.inf:
        return f"{col} < {d.number(-_DBL_MAX)}"
    return f"{col} <= {d.number(b)}"


def gt(d: Dialect, col: str, b: float) -> str:
    """``col > b`` for a canonical boundary ``b`` (NULL when ``col`` is NULL)."""
    if b == math.inf:
        return f"{col} <> {col}"
    if b == -math.inf:
        return f"{col} >= {d.number(-_DBL_MAX)}"
    return f"{col} > {d.number(b)}"


def interval(d: Dialect, col: str, lo: float | None, hi: float | None) -> str | None:
    """``lo < col <= hi`` (either side None: unbounded); None when no double satisfies it."""
    if lo is not None and hi is not None and lo >= hi:
        return None
    if lo == math.inf:
        return None
    parts = []
    if lo is not None:
        parts.append(gt(d, col, lo))
    if hi is not None and not (hi == math.inf and parts):
        parts.append(le(d, col, hi))
    if not parts:
        return f"{col} = {col}"
    return " AND ".join(parts)


def with_missing(col_null: str, cond: str | None, missing: bool) -> str | None:
    """``cond`` or, when ``missing``, ``(col IS NULL OR cond)``; None when nothing qualifies."""
    if not missing:
        return cond
    if cond is None:
        return col_null
    return f"({col_null} OR {cond})"


def is_null(col: str) -> str:
    return f"{col} IS NULL"


def in_list(col: str, values: list[str], negated: bool = False) -> str:
    """``col IN (...)``; one value becomes ``=``/``<>``. ``values`` must not be empty."""
    if len(values) == 1:
        return f"{col} {'<>' if negated else '='} {values[0]}"
    return f"{col} {'NOT IN' if negated else 'IN'} ({', '.join(values)})"


def linear_sum(d: Dialect, terms: list[tuple[float, str]]) -> str:
    """``w0 * x0 + w1 * x1 + ...``: products, then a left-to-right sum, as float64 arithmetic does;
    NULL where the sum is NaN (:data:`NAN_SUM`), so it takes the missing side like a NULL input."""
    total = "(" + " + ".join(f"{d.number(w)} * {col}" for w, col in terms) + ")"
    nan_to_null = NAN_SUM.get(d.name)
    return total if nan_to_null is None else nan_to_null.format(total)


def join(terms: list[str], op: str) -> str:
    """``terms`` joined by AND/OR in chunks of :data:`CHUNK`, each chunk in parentheses.

    Operands must already be atomic for ``op`` (an OR inside an AND list is parenthesized by its
    builder). The result is parenthesized whenever it holds more than one term."""
    if not terms:
        return TRUE if op == "AND" else FALSE
    sep = f" {op} "
    while len(terms) > CHUNK:
        terms = ["(" + sep.join(terms[i:i + CHUNK]) + ")" for i in range(0, len(terms), CHUNK)]
    if len(terms) == 1:
        return terms[0]
    return "(" + sep.join(terms) + ")"


def case(whens: list[tuple[str, str]], default: str | None) -> str:
    """``CASE WHEN c THEN v ... ELSE default END`` (just ``default`` when there is no WHEN)."""
    if not whens:
        return "NULL" if default is None else default
    body = " ".join(f"WHEN {c} THEN {v}" for c, v in whens)
    tail = "" if default is None else f" ELSE {default}"
    return f"CASE {body}{tail} END"


def sum_terms(terms: list[str]) -> str:
    """A left-to-right sum (the order float64 addition must keep)."""
    return " + ".join(terms)


__all__ = ["CHUNK", "FALSE", "NAN_SUM", "TRUE", "case", "gt", "in_list", "interval", "is_null", "join", "le",
           "linear_sum", "sum_terms", "with_missing"]
