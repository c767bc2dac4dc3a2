"""Text columns of dates or timestamps, which a tree would use as categories (``signup date``).

A tree reads a text column as nominal: a test on a date column lists single days, which fit the
training rows and reach no new ones, and a rules file then declares every date seen. ``fit`` and
``rules DATA --induce/--scorecard`` leave out a column whose every non-empty cell is a date in a
format no one reads as anything else (ISO ``2023-04-05``, with a time, ``2023/04/05``,
``05/04/2023``, ``5 Apr 2023``, ``Apr 5, 2023``) and that holds more than ``MIN_VALUES`` distinct
dates; a few dates (a batch or snapshot day) stay a legitimate category. ``--keep COL`` keeps one.
"""

from __future__ import annotations

import re
from typing import Any

from rulekit.shell_words import shell_word

MIN_VALUES = 20

_TIME = r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?: ?[AaPp][Mm])?(?: ?(?:Z|UTC|[+-]\d{2}:?\d{2}))?)?"
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_YMD = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})" + _TIME)
_DMY = re.compile(r"(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})" + _TIME)
_NAMED = re.compile(rf"(?:\d{{1,2}}[ -](?:{_MONTHS})[a-z]*\.?[ -]\d{{4}}|(?:{_MONTHS})[a-z]*\.? \d{{1,2}},? \d{{4}})"
                    + _TIME, re.IGNORECASE)


def is_date(text: str) -> bool:
    """Whether ``text`` (stripped) is a calendar date, optionally with a time of day."""
    t = text.strip()
    m = _YMD.fullmatch(t)
    if m is not None:
        return 1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 31
    m = _DMY.fullmatch(t)
    if m is not None:  # day and month in either order
        a, b = int(m[1]), int(m[2])
        return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)
    return _NAMED.fullmatch(t) is not None


def date_columns(frame: Any) -> list[tuple[str, int, str]]:
    """(name, distinct dates, one of them) for each text column of ``frame`` holding only dates,
    more than ``MIN_VALUES`` of them, in column order."""
    out = []
    for name in frame.columns:
        col = frame[name]
        if col.dtype != object:
            continue
        values = col.dropna().unique()
        if len(values) <= MIN_VALUES:
            continue
        if all(isinstance(v, str) and is_date(v) for v in values):
            out.append((str(name), len(values), str(min(values))))
    return out


def note(found: list[tuple[str, int, str]]) -> str:
    """One line naming the date columns left out and how to use one."""
    listed = ", ".join(f"{name!r} ({distinct:,} dates such as {example!r})" for name, distinct, example in found)
    first = shell_word(found[0][0])
    what = "column" if len(found) == 1 else "columns"
    return (f"{what} {listed} not used: a tree would test single dates as categories, which reach no new "
            f"rows; derive a number from a date (days since some day, the year) as a new column to use it, "
            f"or --keep {first} to use the dates as categories")
