"""DuckDB: a literal with an exponent is a DOUBLE (plain ``0.0155`` would be DECIMAL); expressions
nest up to ``max_expression_depth`` (1000), planning time grows with expression size, so stages
hold few trees."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(name="duckdb", sqlglot="duckdb", case_depth=100, batch=10)
