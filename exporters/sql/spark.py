"""Spark SQL: ``1.5e0`` is a DOUBLE (not decimal); backticks; no numeric TRUNC, so truncation is
``x - x % 1``; codegen splits methods near 64 KB, so stages hold few trees."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(pick="element_at(array({values}), {index})", name="spark", sqlglot="spark", case_depth=30, trunc="({0} - {0} % 1e0)", batch=5,
                  correlated_from=False)
