"""How names, labels and numbers are written in the DSL and read back, exactly.

Floats are written as the shortest decimal text that reads back to the identical float64 (``repr``,
with a trailing ``.0`` dropped where the place says the value is a float anyway); labels keep their
type (``1`` int, ``1.0`` float, ``true`` bool, ``"1"`` str). Names are bare when they match the
grammar's NAME and are not a word reserved at that place, else quoted with backslash escapes.
"""

from __future__ import annotations

import math
import re

from rulekit.dsl.grammar import DIGITS_RE, INT_RE, NAME_RE

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile(r'[\\"\x00-\x1f\x7f-\x9f]|[^\x00-\x7f]')


def quote(s: str) -> str:
    """``s`` in double quotes; backslash, quote, control and non-printable characters escaped."""
    if not _NEEDS_ESCAPE.search(s):
        return '"' + s + '"'
    out = []
    for ch in s:
        e = _ESCAPES.get(ch)
        if e is not None:
            out.append(e)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append("\\u{%x}" % ord(ch))
    return '"' + "".join(out) + '"'


def name(s: str, reserved: frozenset[str]) -> str:
    """A feature name, class label, value or key: bare when it can be, else quoted."""
    if s not in reserved and NAME_RE.fullmatch(s):
        return s
    return quote(s)


def rule_id(s: str, reserved: frozenset[str]) -> str:
    if DIGITS_RE.fullmatch(s) or (s not in reserved and NAME_RE.fullmatch(s)):
        return s
    return quote(s)


def number(x: float) -> str:
    """A float where the place says float: shortest round-trip text, ``3`` for ``3.0``."""
    x = float(x)
    if x != x:
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    r = repr(x)
    return r[:-2] if r.endswith(".0") else r


def typed(v, reserved: frozenset[str]) -> str:
    """A label or nominal value, keeping its type: ``true``, ``1``, ``1.0``, ``red`` or ``"1"``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v:
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    return name(str(v), reserved)


# --- reading --------------------------------------------------------------------------------------

_SIMPLE = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "r": "\r", "t": "\t", "0": "\0"}


class EscapeError(ValueError):
    """A bad backslash escape: ``offset`` is where it starts inside the quoted token."""

    def __init__(self, message: str, offset: int, width: int):
        super().__init__(message)
        self.offset = offset
        self.width = width


def unquote(tok: str) -> str:
    """The text of a quoted token (``"..."`` or ``'...'``), escapes decoded."""
    body = tok[1:-1]
    if "\\" not in body:
        return body
    out = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        e = body[i + 1]  # the STRING pattern guarantees a character after a backslash
        if e in _SIMPLE:
            out.append(_SIMPLE[e])
            i += 2
            continue
        if e == "u":
            m = re.match(r"\{([0-9a-fA-F]{1,6})\}", body[i + 2:])
            if m and int(m.group(1), 16) <= 0x10FFFF:
                out.append(chr(int(m.group(1), 16)))
                i += 2 + m.end()
                continue
            raise EscapeError("a \\u escape is written \\u{hex digits}, at most 10ffff (e.g. \\u{e9})",
                              i + 1, 2)
        raise EscapeError(f"unknown escape '\\{e}': inside quotes write \\\\ for a backslash, \\\" or \\' "
                          "for a quote, \\n \\r \\t for line break, return and tab, \\u{hex} for any "
                          "character", i + 1, 2)
    return "".join(out)


def read_number(text: str) -> float:
    """A NUMBER token, or ``inf``/``nan`` (sign handled by the caller)."""
    if text == "inf":
        return math.inf
    if text == "nan":
        return math.nan
    return float(text)


def read_typed_number(text: str) -> int | float:
    """A number in label/value position: an int when written without '.', exponent, inf or nan."""
    if INT_RE.fullmatch(text):
        return int(text)
    return read_number(text)
