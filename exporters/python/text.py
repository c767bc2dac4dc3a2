"""Exact Python literals and safe text for generated modules (names only ever as string literals)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from rulekit.errors import ExportError

_RUNTIME = Path(__file__).with_name("_runtime.py")
INDENT = ["    " * i for i in range(128)]


def num(x: float) -> str:
    """Shortest text that reads back as the identical float64 (``_INF``/``_NAN`` for the rest)."""
    x = float(x)
    if x != x:
        return "_NAN"
    if math.isinf(x):
        return "_INF" if x > 0 else "-_INF"
    return repr(x)


def nums(xs) -> str:
    """Comma-separated :func:`num` literals (fast path for finite values)."""
    xs = [float(v) for v in xs]
    if all(math.isfinite(v) for v in xs):
        return ", ".join(map(repr, xs))
    return ", ".join(map(num, xs))


def value(v: Any) -> str:
    """A label, domain value or name as a Python literal (repr of str/int/bool, exact floats)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, int):
        return repr(int(v))
    if isinstance(v, float):
        return num(v)
    if isinstance(v, str):
        return repr(str(v))
    raise ExportError(f"cannot write {v!r} ({type(v).__name__}) as a Python literal")


def tuple_of(items: list[str]) -> str:
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


def doc(text: str) -> str:
    """User text made safe inside a triple-quoted docstring (escapes, no quotes or newlines)."""
    return repr(str(text))[1:-1].replace('"', '\\"')


def runtime(*sections: str) -> str:
    """The named sections of ``_runtime.py``, as text to paste into a module."""
    text = _RUNTIME.read_text(encoding="utf-8")
    parts = text.split("#: section ")
    chosen = []
    for part in parts[1:]:
        name, _, body = part.partition("\n")
        if name.strip() in sections:
            chosen.append(body.strip("\n"))
    return "\n\n\n".join(chosen)
