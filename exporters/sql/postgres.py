"""PostgreSQL: numeric literals are NUMERIC even with an exponent, so doubles are cast to float8;
``OFFSET 0`` stops subquery pull-up (stages are evaluated once) and every 10th stage is a
MATERIALIZED CTE (planning nested subqueries is quadratic in their depth); quoted names are
case-sensitive and cut at 63 bytes; EXP errors on overflow and underflow (arguments are clamped).
The bare form's stages are correlated CTEs inside the scalar subquery (nested derived tables
exceeded ``max_stack_depth`` and were slower).

Run big ensembles with ``SET jit = off`` in the session: PostgreSQL's JIT can spend far longer
compiling a big forest's query than running it; results are the same either way. Measurements:
docs/engines.md ("PostgreSQL")."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="postgres", sqlglot="postgres", double="{}::float8", case_depth=100,
    stage_suffix=" OFFSET 0", materialize_every=10, case_insensitive=False, max_identifier=63,
    pick="(ARRAY[{values}])[{index}]", bare_with=True,
)
