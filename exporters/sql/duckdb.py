"""DuckDB: a literal with an exponent is a DOUBLE (plain ``0.0155`` would be DECIMAL); expressions
nest up to ``max_expression_depth`` (1000). Planning time grows with expression size (a list
literal costs ~40 us per element to bind; a string cast to DOUBLE[] a fraction of that, parsed
exactly) and faster than linearly with the number of nested stages, so stages sum 50 trees."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="duckdb", sqlglot="duckdb", case_depth=100,
    pick="[{values}][{index}]", pick_doubles="CAST('[{values}]' AS DOUBLE[])[{index}]",
)
