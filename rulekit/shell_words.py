"""A name or path as a shell word for a one-line note or message (``--keep NAME`` advice, a
suggested command), always on one line.

``shlex.quote`` keeps a newline or tab inside its quotes, which breaks a one-line note in two; a
name with a control character is written in bash's ``$'...'`` quoting instead, with the character
escaped (``$'a\\nb'``), which a shell reads back as the same name.
"""

from __future__ import annotations

import shlex

_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", "'": "\\'"}


def shell_word(name: str) -> str:
    """``name`` quoted for a shell as ``shlex.quote`` does, or as ``$'...'`` with escapes when it
    holds a control character."""
    if all(ch.isprintable() or ch == " " for ch in name):
        return shlex.quote(name)
    return "$'" + "".join(_escape(ch) for ch in name) + "'"


def _escape(ch: str) -> str:
    """One character inside ``$'...'``."""
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if ch.isprintable() or ch == " ":
        return ch
    code = ord(ch)
    # \xHH is a raw byte to bash, not a character: \u for everything past ASCII (U+00A0 is UTF-8 C2 A0)
    return f"\\x{code:02x}" if code < 0x80 else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


__all__ = ["shell_word"]
