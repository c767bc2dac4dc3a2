"""Text columns that name rows instead of describing them (``customer_id`` = C0001, C0002, ...).

``fit`` and ``rules DATA --induce/--scorecard`` leave such a column out, with one note: a test on
it can only list training rows, so it fits them all and reaches no new row. The rule: a column
that is not numeric, has more than ``MIN_VALUES`` distinct values, and more than ``SHARE`` of its
non-empty cells distinct. Numeric columns always stay (a numeric id looks like a measurement).
``--keep COL`` keeps a column.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import Any

from rulekit.errors import DataError

MIN_VALUES = 20
SHARE = 0.5


def identifiers(frame: Any) -> list[tuple[str, int, int]]:
    """(name, distinct values, non-empty cells) of each text column of ``frame`` that looks like an
    identifier, in column order."""
    out = []
    for name in frame.columns:
        col = frame[name]
        if col.dtype != object:
            continue
        present = int(col.notna().sum())
        distinct = int(col.nunique(dropna=True))
        if distinct > MIN_VALUES and distinct > SHARE * present:
            out.append((str(name), distinct, present))
    return out


def leave_out(frame: Any, keep: Iterable[str], path: Any) -> tuple[Any, str | None]:
    """``frame`` without its identifier columns (those in ``keep`` stay) and the note naming them,
    or None when none is left out. A name in ``keep`` that is not a column of ``frame`` is an error."""
    keep = list(keep)
    for name in keep:
        if name not in frame.columns:
            raise DataError(f"--keep {name!r}: no such feature column (columns: "
                            f"{', '.join(map(str, frame.columns))})", file=str(path))
    found = [f for f in identifiers(frame) if f[0] not in keep]
    if not found:
        return frame, None
    if len(found) == frame.shape[1]:
        raise DataError(f"every feature column looks like an identifier ({_listed(found)}); "
                        f"--keep {shlex.quote(found[0][0])} uses one", file=str(path))
    return frame.drop(columns=[f[0] for f in found]), note(found)


def note(found: list[tuple[str, int, int]]) -> str:
    """One line naming the columns left out, their counts and how to keep one."""
    if len(found) == 1:
        name, distinct, present = found[0]
        return (f"column {name!r} has {_counts(distinct, present)} (an identifier?): not used, since a "
                f"test on it cannot reach new rows; --keep {shlex.quote(name)} to use it")
    return (f"columns {_listed(found)} have a different value on most rows (identifiers?): not used, "
            f"since a test on them cannot reach new rows; --keep COL to use one")


def _listed(found: list[tuple[str, int, int]]) -> str:
    """The columns with their counts, comma-separated."""
    return ", ".join(f"{name!r} ({_counts(d, n)})" for name, d, n in found)


def _counts(distinct: int, present: int) -> str:
    """How many values in how many non-empty cells, in words."""
    if distinct == present:
        return f"a different value in each of its {present:,} non-empty cells"
    return f"{distinct:,} distinct values in {present:,} non-empty cells"
