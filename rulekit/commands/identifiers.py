"""Columns that name rows instead of describing them (``customer_id`` = C0001, C0002, ...; ``id`` =
1, 2, 3, ...), and columns of dates (:mod:`rulekit.commands.date_columns`).

``fit`` and ``rules DATA --induce/--scorecard`` leave such a column out, with one note: a test on
it can only list training rows, so it fits them all and reaches no new row. A text column: more
than ``MIN_VALUES`` distinct values, and more than ``SHARE`` of its non-empty cells distinct. A
numeric column only when its name says id (``id``, ``ID``, ``user_id``, ``userId``, ``key``,
``index``, ``row``, ``Unnamed: 0``) and it holds more than ``MIN_VALUES`` whole numbers, a different
one in every non-empty cell: a measurement with one row per value (``year`` 1900..2023) stays,
however densely its values fill their range. ``--keep COL`` keeps a column. Notes show names
on one line, control characters escaped (:mod:`rulekit.shell_words`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from rulekit.commands import date_columns
from rulekit.shell_words import shell_word
from rulekit.errors import DataError

MIN_VALUES = 20
SHARE = 0.5
_ID_WORDS = frozenset({"id", "ids", "key", "idx", "index", "uuid", "rowid", "rownum", "row", "pk", "serial",
                       "rownumber", "sno", "slno", "srno"})
# row numbers in two words: 'RowNumber', 'row_no', 'S.No', 'Sl No', 'record number'
_ROW_WORDS = frozenset({"row", "serial", "record", "s", "sl", "sr"})
_NUMBER_WORDS = frozenset({"number", "no", "num", "nr"})
_ROW_NUMBERS = frozenset({"sno", "slno", "srno"})


def identifiers(frame: Any) -> list[tuple[str, int, int]]:
    """(name, distinct values, non-empty cells) of each text column of ``frame`` that looks like an
    identifier, in column order."""
    out = []
    for name in frame.columns:
        col = frame[name]
        if col.dtype != object:
            if _numeric_id(str(name), col):
                n = int(col.notna().sum())
                out.append((str(name), n, n))
            continue
        present = int(col.notna().sum())
        distinct = int(col.nunique(dropna=True))
        if distinct > MIN_VALUES and distinct > SHARE * present:
            out.append((str(name), distinct, present))
    return out


def _id_name(name: str) -> bool:
    """``id``, ``user_id``, ``userId``, ``Customer ID``, ``row key``, ``Unnamed: 0`` (pandas' index)."""
    if name.lower().startswith("unnamed"):
        return True
    words = [re.sub(r"\W", "", w.lower()) for w in
             re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("_", " ").replace(".", " ").split()]
    words = [w for w in words if w]
    if not words:
        return False
    if words[-1] in _ID_WORDS or "".join(words[-2:]) in _ROW_NUMBERS:
        return True
    return len(words) >= 2 and words[-2] in _ROW_WORDS and words[-1] in _NUMBER_WORDS


def _numeric_id(name: str, col: Any) -> bool:
    """A numeric column named as an id, of whole numbers, all distinct."""
    values = col.to_numpy(dtype=float)
    values = values[~np.isnan(values)]
    n = values.size
    if not _id_name(name) or n <= MIN_VALUES:
        return False
    if not np.all(np.isfinite(values)) or np.any(values != np.floor(values)):
        return False
    return bool(np.unique(values).size == n)


def leave_out(frame: Any, keep: Iterable[str], path: Any) -> tuple[Any, list[str]]:
    """``frame`` without its identifier and date columns (those in ``keep`` stay) and the notes
    naming them (none when none is left out). A name in ``keep`` that is not a column of ``frame``
    is an error."""
    keep = list(keep)
    for name in keep:
        if name not in frame.columns:
            raise DataError(f"--keep {name!r}: no such feature column (columns: "
                            f"{', '.join(map(str, frame.columns))})", file=str(path))
    dates = [f for f in date_columns.date_columns(frame) if f[0] not in keep]
    dated = {f[0] for f in dates}
    found = [f for f in identifiers(frame) if f[0] not in keep and f[0] not in dated]
    if not found and not dates:
        return frame, []
    if len(found) + len(dates) == frame.shape[1]:
        first = (found or dates)[0][0]
        listed = ", ".join([_listed(found)] * bool(found) + [repr(d[0]) for d in dates])
        raise DataError(f"every feature column looks like an identifier or holds dates ({listed}); "
                        f"--keep {shell_word(first)} uses one", file=str(path))
    notes = ([note(found)] if found else []) + ([date_columns.note(dates)] if dates else [])
    return frame.drop(columns=[f[0] for f in found + dates]), notes


def note(found: list[tuple[str, int, int]]) -> str:
    """One line naming the columns left out, their counts and how to keep one."""
    if len(found) == 1:
        name, distinct, present = found[0]
        return (f"column {name!r} has {_counts(distinct, present)} (an identifier?): not used, since a "
                f"test on it cannot reach new rows; --keep {shell_word(name)} to use it")
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
