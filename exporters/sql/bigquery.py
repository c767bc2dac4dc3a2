"""BigQuery: ``1.5e0`` is FLOAT64; backtick identifiers; column names are case-insensitive.

Backtick identifiers take the string literals' backslash escapes, as sqlglot writes them (BigQuery's
lexical rules). A backtick name holding ``.`` is a path to BigQuery (`` `ds.t` `` in FROM,
`` `ds.t`.`c` `` in SELECT), and sqlglot's parser splits every such column reference into
``table.column``: an input column whose name holds ``.`` is refused at export, not misread.
"""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="bigquery", sqlglot="bigquery", case_depth=50, max_identifier=300,
    pick="[{values}][ORDINAL({index})]", column_forbids=".",
)
