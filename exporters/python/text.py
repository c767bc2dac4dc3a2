"""Exact Python literals and safe text for generated modules (names only ever as string literals)."""

from __future__ import annotations

import base64
import math
from pathlib import Path
from typing import Any

import numpy as np

from rulekit.errors import ExportError

_RUNTIME = Path(__file__).with_name("_runtime.py")
INDENT = ["    " * i for i in range(128)]


_SPECIAL = {"inf": "_INF", "-inf": "-_INF", "nan": "_NAN"}


def num(x: float) -> str:
    """Shortest text that reads back as the identical float64 (``_INF``/``_NAN`` for the rest)."""
    r = repr(x if x.__class__ is float else float(x))
    return _SPECIAL.get(r, r)


def nums(xs) -> str:
    """Comma-separated :func:`num` literals (float reprs hold no letters but inf/nan/e)."""
    return ", ".join(map(repr, map(float, xs))).replace("inf", "_INF").replace("nan", "_NAN")


def rows_of(values: list[tuple[float, ...]]) -> str:
    """``((a, b,), (c, d,), ...)`` for equally long float tuples, formatted in one pass."""
    if not values:
        return "()"
    k = len(values[0])
    flat = nums([v for row in values for v in row]).split(", ")
    parts = [", ".join(flat[i:i + k]) for i in range(0, len(flat), k)]
    return "((" + ",), (".join(parts) + ",),)"


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


def packed(values, code: str) -> str:
    """``_unpack(code, "...")``: a table as little-endian base64 (exact, compact, fast to load).
    ``code`` is an ``array`` typecode: "d" (float64) or "q" (int64)."""
    dtype = {"d": "<f8", "q": "<i8"}[code]
    text = base64.b64encode(np.asarray(values, dtype=dtype).tobytes()).decode("ascii")
    if len(text) <= 4096:
        return f'_unpack("{code}", "{text}")'
    pieces = "\n".join(f'    "{text[i:i + 4096]}"' for i in range(0, len(text), 4096))
    return f'_unpack("{code}", (\n{pieces}\n))'


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


def api_listing(cls: bool, predict: str) -> str:
    """The public functions as the module docstring lists them; ``predict`` says what it returns."""
    api = ["    predict(row)           -> " + predict]
    if cls:
        api.append("    predict_proba(row)     -> [probability per class, in CLASSES order]")
    api.append("    predict_batch(X)       -> array of predictions (X: 2-D array, data frame or "
               "columns by name)")
    if cls:
        api.append("    predict_proba_batch(X) -> array (n, len(CLASSES))")
    return "\n".join(api)


def nominal_tables(features) -> list[str]:
    """``_NOMINAL`` (per feature: label -> code lookup, integer domain?, exact match?) and ``_DOMAINS``
    (integer domains, for truncating numbers) lines of an exported module's header."""
    noms, doms = [], []
    for f in features:
        if f.kind != "nominal":
            noms.append("None")
            doms.append("None")
            continue
        lookup: dict = {}
        for i, v in enumerate(f.domain):
            lookup.setdefault(v, i)
            lookup.setdefault(str(v), i)
        int_domain = all(isinstance(v, int) and not isinstance(v, bool) for v in f.domain)
        exact = getattr(f, "match", None) == "exact"
        body = ", ".join(f"{value(k)}: {i}" for k, i in lookup.items())
        noms.append(f"({{{body}}}, {int_domain}, {exact})")
        doms.append(tuple_of([value(v) for v in f.domain]) if int_domain else "None")
    return [f"_NOMINAL = {tuple_of(noms)}", f"_DOMAINS = {tuple_of(doms)}"]


# The imports and helpers at the top of every exported module (models and rule bases alike).
PRELUDE = """import array as _array
import base64 as _base64
import math as _math
import struct as _struct
import sys as _sys

try:
    import numpy as _np
except ImportError:  # numpy is optional: the per-row functions never need it
    _np = None

_npexp = _np.exp if _np is not None else None
_NAN = float("nan")
_INF = float("inf")


def _unpack(code, text):
    # a table stored as little-endian base64: exact to the bit, compact, quick to load
    a = _array.array(code)
    a.frombytes(_base64.b64decode(text))
    if _sys.byteorder == "big":
        a.byteswap()
    return a"""
