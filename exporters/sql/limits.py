"""Documented statement-size limits per dialect, as data, and the check that refuses an export
over its limit (naming it) instead of writing SQL the warehouse will reject.

``enforced`` limits are hard errors in the engine; advisory ones (Snowflake: larger statements run
but cannot be rerun or retried) are checked only when the caller passes ``max_statement_bytes``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rulekit.errors import ExportError


@dataclass(frozen=True)
class Limit:
    size: int
    unit: str  # "bytes" (UTF-8) or "characters"
    enforced: bool
    source: str  # where the number is documented


LIMITS: dict[str, Limit] = {
    "bigquery": Limit(1024 * 1024, "characters", True,
                      "BigQuery's maximum query length, 1,024K characters (cloud.google.com/bigquery/quotas)"),
    "snowflake": Limit(1024 * 1024, "bytes", False,
                       "Snowflake's 1 MB per statement (docs.snowflake.com/en/user-guide/query-size-limits: "
                       "larger statements run but cannot be rerun or retried)"),
    "tsql": Limit(65536 * 4096, "bytes", True,
                  "SQL Server's batch size, 65,536 x the network packet size of 4 KB by default "
                  "(learn.microsoft.com/sql/sql-server/maximum-capacity-specifications-for-sql-server)"),
}


def check(sql: str, dialect: str, max_statement_bytes: int | None = None) -> None:
    """Raise an ExportError when ``sql`` is over ``max_statement_bytes`` (UTF-8 bytes) or over the
    dialect's enforced documented limit."""
    if max_statement_bytes is not None:
        if isinstance(max_statement_bytes, bool) or not isinstance(max_statement_bytes, int) \
                or max_statement_bytes < 1:
            raise ExportError(f"--max-statement-bytes must be a positive integer, got {max_statement_bytes!r}")
        size = len(sql.encode("utf-8"))
        if size > max_statement_bytes:
            raise ExportError(f"the {dialect} SQL is {size:,} bytes, over --max-statement-bytes "
                              f"{max_statement_bytes:,}")
        return
    limit = LIMITS.get(dialect)
    if limit is None or not limit.enforced:
        return
    size = len(sql) if limit.unit == "characters" else len(sql.encode("utf-8"))
    if size > limit.size:
        raise ExportError(f"the {dialect} SQL is {size:,} {limit.unit}, over {limit.source}; "
                          f"it is too big for this engine")


__all__ = ["LIMITS", "Limit", "check"]
