"""DuckDB: a literal with an exponent is a DOUBLE (plain ``0.0155`` would be DECIMAL); expressions
nest up to ``max_expression_depth`` (1000). Planning time grows with expression size (a list
literal costs ~40 us per element to bind; a string cast to DOUBLE[] a fraction of that, parsed
exactly), quadratically with the number of nested stages and with the size of one stage: a stage
holds up to 50 trees but no more than ~2,500 leaves (100 depth-8 trees: 10 per stage, 2 s to plan
instead of 15 s with 50). Ensemble trees with at least 12 leaves per level of depth are walked over
constant arrays instead (``walker.py``), each walk starting from a CASE over the tree's top 3
levels: a 100-tree depth-8 forest scored 1.7x faster walked, and 1.13x faster again with the CASE
(1M rows: 11.75-12.13 s, then 10.42-10.72 s; 4 levels: 10.5-11.5 s, 5: 10.6-11.2 s). DuckDB
2.0.0 scored it in 6.3-6.6 s, and 3 levels are still best (2: 6.7-6.8 s, 4: 6.4-6.5 s)."""

from rulekit.exporters.sql import walker
from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="duckdb", sqlglot="duckdb", case_depth=100, stage_leaves=2500,
    pick="[{values}][{index}]", pick_doubles="CAST('[{values}]' AS DOUBLE[])[{index}]",
    walker=walker.DUCKDB,
)
