"""BigQuery: ``1.5e0`` is FLOAT64; backtick identifiers; column names are case-insensitive."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="bigquery", sqlglot="bigquery", case_depth=50, max_identifier=300,
    pick="[{values}][ORDINAL({index})]",
)
