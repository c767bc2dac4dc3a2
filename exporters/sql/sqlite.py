"""SQLite: REAL literals need no cast; CASE nests only ~18 deep in Python 3.11's SQLite 3.40 (parser
stack), so trees go flat below 8 levels; ``LIMIT -1 OFFSET 0`` keeps the query flattener from
inlining (and re-evaluating) stages; ``CAST(x AS INTEGER)`` truncates toward zero. Preparing a
statement is quadratic in its number of comparison constants (SQLite factors each one out and
looks for duplicates linearly): a 1,000-tree depth-4 forest takes seconds to prepare. The bare
form's stages are CTEs inside the scalar subquery (they may read the outer row): 21 nested derived
tables overflowed the parser stack."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="sqlite", sqlglot="sqlite", case_depth=8, trunc="CAST({} AS INTEGER)", greatest="MAX",
    true="1", false="0", stage_suffix=" LIMIT -1 OFFSET 0", bare_with=True,
)
