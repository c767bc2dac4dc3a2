"""Snowflake: doubles cast to FLOAT (64-bit); quoted identifiers are case-sensitive; no correlated
derived tables (correlated scalar subqueries only in WHERE), so a bare ensemble is written as plain
scalar sums, and softmax boosting's per-class values are bound by ``TRANSFORM`` over a one-element
array (values come back as VARIANT: read with ``::FLOAT``; the class index is cast back). Sums of
over 100 terms are bound every 100 in nested TRANSFORMs, so their terms read table columns inside
a lambda: checked only through sqlglot's transpilation to DuckDB (no Snowflake account here)."""

from rulekit.exporters.sql.dialect import Dialect


def _bind(d: Dialect, alias: str, values: list[tuple[str, str]], body: str) -> str:
    row = ", ".join(v for _, v in values)
    return f"TRANSFORM(ARRAY_CONSTRUCT(ARRAY_CONSTRUCT({row})), {alias} -> {body})[0]"


DIALECT = Dialect(
    name="snowflake", sqlglot="snowflake", double="{}::FLOAT", case_depth=50, case_insensitive=False,
    max_identifier=255, correlated_from=False, bind=_bind, bind_ref="{alias}[{index}]::FLOAT", bind_untyped=True,
)
