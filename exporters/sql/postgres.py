"""PostgreSQL: numeric literals are NUMERIC even with an exponent, so doubles are cast to float8;
``OFFSET 0`` stops subquery pull-up (stages are evaluated once); quoted names are case-sensitive
and cut at 63 bytes; EXP errors on overflow and underflow (the generator clamps its argument)."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(pick="(ARRAY[{values}])[{index}]", name="postgres", sqlglot="postgres", double="{}::float8", case_depth=100,
                  stage_suffix=" OFFSET 0", case_insensitive=False, max_identifier=63, batch=20)
