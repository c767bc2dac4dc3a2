"""What a file given on the command line looks like, from its first lines: a model (JSON), a rules
file or a CSV table. A data CSV given where a model is expected would otherwise be parsed as rules
text ("expected ':' after 'a'") and a model JSON given as DATA as a CSV ("column ... appears
twice"): errors about the wrong thing. Only a clear look is reported; anything else goes to the
reader it was meant for, which says what is wrong. A rules file is recognised by the full shape of
its first statement (``feature 1,feature 2,label`` is a CSV header, not a ``feature`` statement)."""

from __future__ import annotations

import csv
import json
import re

SNIFF_CHARS = 4096  # the start of a file that is looked at

_NAME = r"(?:[^\W\d][\w.]*|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
_END = r"[ \t]*(?:#.*)?$"
# the first statement of a rules file, whole enough that no CSV header line has its shape
_RULES_STATEMENT = re.compile("|".join((
    rf"rulebase[ \t]+{_NAME}{_END}",
    rf"target[ \t]+{_NAME}[ \t]*:[ \t]*(?:classification|regression|classes)\b",
    rf"feature[ \t]+{_NAME}[ \t]*:[ \t]*(?:numeric|nominal)\b",
    rf"(?:missing|unseen)[ \t]+{_NAME}[ \t]+counts[ \t]+as\b",
    rf"semantics[ \t]+(?:first-hit|vote|weighted-sum){_END}",
    rf"precision[ \t]+float(?:32|64){_END}",
    r"combiner[ \t]+(?:single|average|vote|sum)\b(?!,)",
    rf"default[ \t]+{_NAME}[ \t]*(?:\{{|with\b|weight\b|#|$)",
    rf"group[ \t]+[+-]?[0-9]+{_END}",
    rf"(?:{_NAME}|[0-9]+)[ \t]*:[ \t]*if[ \t(]",
    r"if[ \t(].*[ \t)]then[ \t]",
)))
# a JSON start no CSV header has: an object's first key, or a list of objects
_JSON_START = re.compile(r"\{\s*(?:\"|\}$)|\[\s*\{\s*\"")
# words of a rule that a data table hardly holds
_RULE_WORDS = re.compile(r"[ \t)]then[ \t]|:[ \t]*if[ \t(]")


def _lines(head: str, n: int) -> list[str]:
    """The first ``n`` non-blank lines of ``head``."""
    out = []
    for line in head.lstrip("\ufeff").splitlines():
        if line.strip():
            out.append(line)
            if len(out) == n:
                break
    return out


def _is_json(text: str, whole: bool) -> bool:
    """JSON by its start, or by parsing when ``text`` is the whole file."""
    if text[:1] not in ("{", "["):
        return False
    if _JSON_START.match(text):
        return True
    if not whole:
        return False
    try:
        return isinstance(json.loads(text), (dict, list))
    except ValueError:
        return False


def looks_like(head: str, whole: bool | None = None) -> str | None:
    """``"json"``, ``"rules"`` or ``"csv"`` for text that clearly is one, else None. ``head``: the
    start of the file (a few KB are plenty); ``whole``: whether it is all of it (default: when it
    is shorter than ``SNIFF_CHARS``)."""
    lines = _lines(head, 3)
    if not lines:
        return None
    if _is_json(head.lstrip("\ufeff \t\r\n"), len(head) < SNIFF_CHARS if whole is None else whole):
        return "json"
    statements = [ln.strip() for ln in _lines(head, 40) if not ln.lstrip().startswith("#")]
    # the first two statements (or the only one): a one-column table whose header is 'default rate'
    # has the shape of a statement once, never twice
    if statements and all(_RULES_STATEMENT.match(st) for st in statements[:2]):
        return "rules"
    if lines[0].lstrip().startswith("#") or len(lines) < 2:
        return None
    try:
        rows = list(csv.reader(lines))
    except csv.Error:
        return None
    width = len(rows[0])
    if width > 1 and all(len(r) == width for r in rows):
        return "csv"
    return None


def mentions_rules(head: str) -> bool:
    """Whether the first line of ``head`` is a rules statement (see ``looks_like``) or holds a
    ``then`` or an ``ID: if``: text that is rather a broken rules file than a data table (the first
    line only: a data table's text cells may say 'if hot then cold')."""
    first = _lines(head, 1)
    return bool(first) and bool(_RULES_STATEMENT.match(first[0].strip()) or _RULE_WORDS.search(first[0]))


def csv_header(head: str, shown: int = 6) -> str:
    """The first few header names of a CSV head, for a message."""
    names = [n.strip() for n in next(csv.reader(_lines(head, 1)), [])]
    more = ", ..." if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


__all__ = ["SNIFF_CHARS", "csv_header", "looks_like", "mentions_rules"]
