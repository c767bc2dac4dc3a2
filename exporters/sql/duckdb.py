"""DuckDB: a literal with an exponent is a DOUBLE (plain ``0.0155`` would be DECIMAL); expressions
nest up to ``max_expression_depth`` (1000); planning time grows with expression size (a list
literal costs ~40 us per element to bind, a string cast to DOUBLE[] a fraction of that, and it
parses 17-digit numbers exactly), so stages hold few trees and leaf values come from cast lists."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(pick="[{values}][{index}]", pick_doubles="CAST('[{values}]' AS DOUBLE[])[{index}]",
                  name="duckdb", sqlglot="duckdb", case_depth=100, batch=10)
