"""SQL Server (T-SQL): CASE nests at most 10 deep; ``1.5e0`` is float(53); N'' strings keep
unicode; no boolean literals; ``ROUND(x, 0, 1)`` truncates; no GREATEST before 2022 (a VALUES
subquery takes the maximum); ``CHOOSE`` picks a leaf value. Subqueries nest at most 32 deep
(Microsoft's documented limit), so a bare expression needing more than 30 nested stages is
refused: pass a table. XGBoost's float32 sums are a flat chain of ``CROSS APPLY`` one-row
tables (``float32.chain``). Checked by parsing only (no SQL Server here), and by running the
text transpiled to DuckDB."""

from rulekit.exporters.sql.dialect import Dialect

DIALECT = Dialect(
    name="tsql", sqlglot="tsql", case_depth=9, trunc="ROUND({}, 0, 1)", greatest=None, true="1",
    false="0", string_prefix="N", max_identifier=128, pick="CHOOSE({index}, {values})",
    bare_depth=30,
)
