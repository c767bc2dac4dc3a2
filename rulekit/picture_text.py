"""Names and labels escaped for each picture format: SVG (XML 1.0), Mermaid and Graphviz dot.

Feature names and class labels come from data and may hold anything. First :func:`visible` turns
what no picture can show into a visible ``\\u001b``-style escape: control characters (XML 1.0
forbids most C0 controls even as character references), line and paragraph separators, NEL, lone
surrogates, the noncharacters U+FFFE/U+FFFF and bidirectional overrides (which would reorder the
text around them). Then each format escapes with its own rules:

- SVG: XML's five entities;
- Mermaid: every character that is not a letter, digit, space or harmless punctuation becomes one
  of Mermaid's numeric entity codes (``#34;`` for ``"``); Mermaid turns ``#NN;`` into ``&#NN;``
  before the label reaches HTML, and raw ``#``, ``:``, ``%``, ``"``, backticks, ``<`` or ``&`` would
  be read as entities, ``style`` directives, ``%%{init}%%`` directives, string ends, markdown or tags;
- dot: a double-quoted string with ``\\`` and ``"`` escaped and ``&`` as ``&amp;`` (Graphviz decodes
  HTML entities in labels).
"""

from __future__ import annotations

import unicodedata
from html import escape

_BIDI = frozenset(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]))
_SAFE_PUNCT = frozenset(" .,_-+*/=!?'@")  # no $ (math), ~, ^


def _hidden(c: str) -> bool:
    return (unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") or c in _BIDI
            or c in ("\ufffe", "\uffff"))


def visible(s: str) -> str:
    """``s`` with every character a picture cannot show written as ``\\uXXXX``."""
    if s.isascii() and s.isprintable():  # = all(" " <= c < "\x7f"), at C speed
        return s  # plain ASCII: the common case, nothing to do
    return "".join(f"\\u{ord(c):04x}" if _hidden(c) else c for c in s)


def xml_text(s: str) -> str:
    """``s`` as XML character data or an attribute value: well-formed, shown as written."""
    return escape(visible(s), quote=True)


def mermaid_text(s: str) -> str:
    """``s`` inside a double-quoted Mermaid label, every risky character as ``#NN;``."""
    return "".join(c if c.isalnum() or c in _SAFE_PUNCT else f"#{ord(c)};" for c in visible(s))


def dot_string(s: str) -> str:
    """``s`` as a double-quoted Graphviz string that displays as written."""
    body = visible(s).replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")
    return f'"{body}"'


__all__ = ["dot_string", "mermaid_text", "visible", "xml_text"]
