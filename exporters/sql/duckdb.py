"""DuckDB: a literal with an exponent is a DOUBLE (plain ``0.0155`` would be DECIMAL); expressions
nest up to ``max_expression_depth`` (1000). Planning time grows with expression size, so a stage
holds up to 50 trees but no more than ~2,500 leaves. Ensemble trees with at least 12 leaves per
level of depth are walked over constant arrays instead (``walker.py``), each walk starting from a
CASE over the tree's top 3 levels. The measurements behind these numbers: docs/engines.md ("DuckDB")."""

from rulekit.exporters.sql import walker
from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="duckdb", sqlglot="duckdb", case_depth=100, stage_leaves=2500,
    pick="[{values}][{index}]", pick_doubles="CAST('[{values}]' AS DOUBLE[])[{index}]",
    walker=walker.DUCKDB,
)
