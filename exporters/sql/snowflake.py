"""Snowflake: doubles cast to FLOAT (64-bit); quoted identifiers are case-sensitive; no correlated
derived tables, so a bare ensemble is written as plain scalar sums (softmax boosting needs a table)."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="snowflake", sqlglot="snowflake", double="{}::FLOAT", case_depth=50, case_insensitive=False,
    max_identifier=255, correlated_from=False,
)
