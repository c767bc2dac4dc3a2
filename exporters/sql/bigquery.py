"""BigQuery: ``1.5e0`` is FLOAT64; backtick identifiers; column names are case-insensitive."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(pick="[{values}][ORDINAL({index})]", name="bigquery", sqlglot="bigquery", case_depth=50, max_identifier=300, batch=20)
