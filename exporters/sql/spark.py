"""Spark SQL: ``1.5e0`` is a DOUBLE (not decimal); backticks; no numeric TRUNC, so truncation is
``x - x % 1``; generated Java methods are capped at 64 KB (a huge expression falls back to the
interpreter), so stages sum few trees."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="spark", sqlglot="spark", case_depth=30, trunc="({0} - {0} % 1e0)", batch=10,
    pick="element_at(array({values}), {index})", correlated_from=False,
)
