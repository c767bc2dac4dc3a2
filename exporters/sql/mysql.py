"""MySQL / MariaDB: ``1.5e0`` is a DOUBLE; backtick identifiers, backslash escapes in strings;
a derived table with LIMIT is not merged into the outer query (so stages are evaluated once);
no correlated derived tables, so a bare ensemble is written as plain scalar sums (softmax boosting
needs a table)."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="mysql", sqlglot="mysql", case_depth=50, trunc="TRUNCATE({}, 0)",
    stage_suffix=" LIMIT 18446744073709551615", max_identifier=64, correlated_from=False,
)
