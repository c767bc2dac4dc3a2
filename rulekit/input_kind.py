"""What a file given on the command line looks like, from its first lines: a model (JSON), a rules
file or a CSV table. A data CSV given where a model is expected would otherwise be parsed as rules
text ("expected ':' after 'a'") and a model JSON given as DATA as a CSV ("column ... appears
twice"): errors about the wrong thing. Only a clear look is reported; anything else goes to the
reader it was meant for, which says what is wrong."""

from __future__ import annotations

import csv
import re

SNIFF_CHARS = 4096  # the start of a file that is looked at

# the start of a rules-file statement: a header word, or a rule id and ':' before 'if'
_RULES_LINE = re.compile(r"(?:(?:rulebase|target|feature|semantics|precision|combiner|default|group|if)[ \t]"
                         r"|(?:[^\W\d][\w.]*|[0-9]+|\"[^\"\n]*\")[ \t]*:[ \t]*if[ \t(])")


def _lines(head: str, n: int) -> list[str]:
    """The first ``n`` non-blank lines of ``head``."""
    out = []
    for line in head.lstrip("\ufeff").splitlines():
        if line.strip():
            out.append(line)
            if len(out) == n:
                break
    return out


def looks_like(head: str) -> str | None:
    """``"json"``, ``"rules"`` or ``"csv"`` for text that clearly is one, else None. ``head``: the
    start of the file (a few KB are plenty)."""
    lines = _lines(head, 3)
    if not lines:
        return None
    first = lines[0].strip()
    if first[:1] in ("{", "["):
        return "json"
    statements = [ln.strip() for ln in _lines(head, 40) if not ln.lstrip().startswith("#")]
    if statements and _RULES_LINE.match(statements[0]):
        return "rules"
    if first.startswith("#") or len(lines) < 2:
        return None
    try:
        rows = list(csv.reader(lines))
    except csv.Error:
        return None
    width = len(rows[0])
    if width > 1 and all(len(r) == width for r in rows):
        return "csv"
    return None


def csv_header(head: str, shown: int = 6) -> str:
    """The first few header names of a CSV head, for a message."""
    names = next(csv.reader(_lines(head, 1)), [])
    more = ", ..." if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


__all__ = ["SNIFF_CHARS", "csv_header", "looks_like"]
