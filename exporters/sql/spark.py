"""Spark SQL: ``1.5e0`` is a DOUBLE (not decimal); backticks; no numeric TRUNC, so truncation is
``x - x % 1``. Generated Java methods are capped at 64 KB: one nested CASE of a depth-8 tree already
exceeds it, and Spark then interprets the plan (exact, but a 100-tree depth-8 forest took 84 s for
20k rows in local mode). Flatter trees do not help: Catalyst ran out of a 4 GB heap optimizing the
flat form of that forest. Stages sum 10 trees."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="spark", sqlglot="spark", case_depth=30, trunc="({0} - {0} % 1e0)", batch=10,
    pick="element_at(array({values}), {index})", correlated_from=False,
)
