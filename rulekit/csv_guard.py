"""Spreadsheet formula-injection guard for CSV cells that rulekit writes (``predict``).

Class labels and rule text come from the data, so a label such as ``=HYPERLINK(...)`` or
``+cmd|' /C calc'!A0`` would run as a formula when the CSV is opened in a spreadsheet. Following
OWASP's CSV-injection guidance, a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return gets a leading ``'``, which spreadsheets show as text. Numbers (``-1.5``, ``-inf``,
``1e-05``) are never altered, so numeric predictions read back exactly.

Python's ``csv`` writer with ``lineterminator="\n"`` leaves a cell holding a bare ``\r`` unquoted,
which every reader takes for a line break; :func:`quote_all_needed` tells the writer to quote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

TRIGGERS = frozenset("=+-@\t\r")
_NUMBER = re.compile(r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)",
                     re.IGNORECASE)


def guard(cell: str) -> str:
    """``cell`` made inert for spreadsheets: a leading ``'`` when it starts like a formula."""
    if cell[:1] in TRIGGERS and _NUMBER.fullmatch(cell) is None:
        return "'" + cell
    return cell


def guard_column(cells: Iterable[str]) -> list[str]:
    """:func:`guard` over a column; columns repeat few distinct texts (labels, rules), so memoized."""
    seen: dict[str, str] = {}
    out = []
    for c in cells:
        g = seen.get(c)
        if g is None:
            g = seen[c] = guard(c)
        out.append(g)
    return out


def quote_all_needed(columns: Iterable[list[str]]) -> bool:
    """True when a cell holds a carriage return, which ``csv`` with ``\n`` lines would not quote."""
    return any("\r" in c for col in columns for c in set(col))


__all__ = ["TRIGGERS", "guard", "guard_column", "quote_all_needed"]
