"""JSON text to Python values, refusing what the rest of rulekit cannot hold, in one clear line.

Python's ``json`` accepts two things that later crash far from the file: integers longer than
Python's int-to-str limit (``int()`` raises inside the reader) and ``\\udXXX`` escapes that leave
a lone UTF-16 surrogate in a string (no UTF-8 encoder takes it, so every writer fails). Both are
refused here with the file, line and column (or the JSON path of the string), before any model
is built. The happy path costs one regular-expression scan of the text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rulekit.errors import RulekitError

# a high-surrogate escape not followed by a low one, or a low one not preceded by a high one
# (a proper pair such as \ud83d\ude00 is one character and needs no walk)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
                               r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F]")
_LONG_INTEGER = re.compile(r"-?\d{1000,}")


def loads(text: str, *, file: str | None = None, error: type[RulekitError] = RulekitError) -> Any:
    """``json.loads(text)``; bad JSON, huge integers and lone surrogates raise ``error``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise error(f"not valid JSON: {err.msg}", file=file, line=err.lineno,
                    column=err.colno) from None
    except RecursionError:
        raise error("JSON nested too deeply", file=file) from None
    except ValueError:  # int(): "Exceeds the limit (4300 digits) for integer string conversion"
        raise _long_integer(text, file, error) from None
    if _SURROGATE_ESCAPE.search(text):
        check_unicode(data, file=file, error=error)
    return data


def _long_integer(text: str, file: str | None, error: type[RulekitError]) -> RulekitError:
    m = _LONG_INTEGER.search(text)
    if m is None:
        return error("a number in the JSON is too long to read", file=file)
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    digits = len(m.group().lstrip("-"))
    return error(f"a number with {digits} digits is too long to read", file=file, line=line,
                 column=column)


def check_unicode(data: Any, *, file: str | None = None,
                  error: type[RulekitError] = RulekitError) -> None:
    """Refuse any key or string in ``data`` (nested lists/dicts, walked with a stack) that holds a
    lone surrogate, naming where it is: ``features.0.name: 'x\\ud800' is not valid Unicode``."""
    stack: list[tuple[Any, tuple]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            _check_str(value, path, file, error)
        elif isinstance(value, dict):
            for k, v in value.items():
                _check_str(k, path + ("<key>",), file, error)
                stack.append((v, path + (k,)))
        elif isinstance(value, list):
            stack.extend((v, path + (i,)) for i, v in enumerate(value))


def _check_str(s: Any, path: tuple, file: str | None, error: type[RulekitError]) -> None:
    if not isinstance(s, str):
        return
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as err:
        where = ".".join(str(p) for p in path) or "value"
        raise error(f"{where}: {s[:60]!r} is not valid Unicode (lone surrogate "
                    f"U+{ord(s[err.start]):04X}); rename it", file=file) from None
