"""MySQL / MariaDB: ``1.5e0`` is a DOUBLE; backtick identifiers, backslash escapes in strings;
a derived table with LIMIT is not merged into the outer query (so stages are evaluated once);
no correlated derived tables, so a bare ensemble is written as plain scalar sums, and softmax
boosting's per-class sums are bound to names through ``JSON_TABLE`` (MySQL 8.0.4+, MariaDB 10.6+),
which may read the outer row; doubles travel through JSON exactly (10,006 values checked in MariaDB
10.11, subnormals and extremes included). MariaDB 10.11 nests subqueries 63 deep ("Too high level
of nesting for select"; sums bound every 100 terms reached 63 levels at 6,300 terms), so a bare
expression needing more than 60 bound levels is refused: pass a table. It also takes at most 64
WITH elements ("Too many WITH elements"), so stages hold up to 300 trees or rules when there would
be more than 56, and bare sums are bound every 300 terms (a 500-term sum ran, 700 overran the
292 KiB thread stack): a 15,400-rule base ran in both forms. Identifiers hold only characters of
Unicode's Basic Multilingual Plane (MariaDB 10.11: "Invalid utf8mb4 character string" for a
``proba:😀`` column), so names with others are refused at export."""

from rulekit.exporters.sql.dialect import Dialect


def _bind(d: Dialect, alias: str, values: list[tuple[str, str]], body: str) -> str:
    obj = ", ".join(f"{d.string(f)}, {v}" for f, v in values)
    cols = ", ".join(f"{d.ident(f)} DOUBLE PATH {d.string('$.' + f)}" for f, _ in values)
    return f"(SELECT {body} FROM JSON_TABLE(JSON_ARRAY(JSON_OBJECT({obj})), '$[*]' COLUMNS ({cols})) AS {alias})"


DIALECT = Dialect(
    name="mysql", sqlglot="mysql", case_depth=50, trunc="TRUNCATE({}, 0)",
    stage_suffix=" LIMIT 18446744073709551615", max_identifier=64, correlated_from=False, bind=_bind,
    bare_depth=60, max_stages=56, max_batch=300, max_ctes=64, bare_sum=300, bmp_identifiers=True,
    no_trailing_space=True,
)
