"""SQLite: REAL literals need no cast; CASE nests only ~18 deep in Python 3.11's SQLite 3.40 (parser
stack), so trees go flat below 8 levels; ``LIMIT -1 OFFSET 0`` keeps the query flattener from
inlining (and re-evaluating) stages; ``CAST(x AS INTEGER)`` truncates toward zero. Preparing a
statement is quadratic in its number of comparison constants (SQLite factors each one out and
looks for duplicates linearly): a 1,000-tree depth-4 forest takes seconds to prepare. The bare
form's stages are CTEs inside the scalar subquery (they may read the outer row): 21 nested derived
tables overflowed the parser stack.

SQLite 3.40 (Python 3.11's) reads a literal whose digits need a decimal exponent beyond 307 (any
17-digit number below ~1e-291) through an extra inexact division by 1e308: 92 of 3,000 random
doubles between 1e-308 and 1e-250 came back 1 ulp off, so a row exactly at such a threshold went
the wrong way. Numbers below 1e-280 are therefore written as a larger literal divided by 2**62 (as
often as needed), which is exact."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="sqlite", sqlglot="sqlite", case_depth=8, trunc="CAST({} AS INTEGER)", greatest="MAX",
    true="1", false="0", stage_suffix=" LIMIT -1 OFFSET 0", bare_with=True, tiny=1e-280,
)
