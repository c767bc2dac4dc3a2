"""UBJSON (draft 12, XGBoost's binary JSON) decoded without recursion, and the XGBoost importer's error.

Its own module because it is a file format with its own reasons to change (markers, typed
containers, the checks a hostile file needs); :mod:`rulekit.importers.xgboost` re-exports
:func:`ubjson_loads` and :class:`XGBoostModelError`.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from rulekit.errors import RulekitError


class XGBoostModelError(RulekitError):
    """A document that is not a (supported) XGBoost model."""


_UBJ_SCALAR = {b"i": ">b", b"U": ">B", b"I": ">h", b"l": ">i", b"L": ">q", b"d": ">f", b"D": ">d"}
_UBJ_INT = (b"i", b"U", b"I", b"l", b"L")


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise XGBoostModelError(f"truncated at byte {self.pos}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def marker(self) -> bytes:
        m = self.take(1)
        while m == b"N":
            m = self.take(1)
        return m

    def peek(self) -> bytes:
        while self.data[self.pos:self.pos + 1] == b"N":
            self.pos += 1
        return self.data[self.pos:self.pos + 1]

    def number(self, m: bytes) -> int | float:
        fmt = _UBJ_SCALAR[m]
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def length(self) -> int:
        m = self.marker()
        if m not in _UBJ_INT:
            raise XGBoostModelError(f"expected a length at byte {self.pos - 1}, found {m!r}")
        n = int(self.number(m))
        if n < 0:
            raise XGBoostModelError(f"negative length at byte {self.pos}")
        return n

    def count(self, typ: bytes | None) -> int:
        """A container's element count, checked against the bytes left: each element takes at
        least one byte (a marker, or a typed value), so a header claiming billions of elements
        in a small file is refused before anything loops or allocates."""
        at = self.pos
        n = self.length()
        size = struct.calcsize(_UBJ_SCALAR[typ]) if typ in _UBJ_SCALAR else 1
        if typ in (b"Z", b"T", b"F", b"N"):  # elements with no bytes at all: XGBoost never writes them
            raise XGBoostModelError(f"container of {typ!r} values at byte {at} is not supported")
        if n * size > len(self.data) - self.pos:
            raise XGBoostModelError(f"container at byte {at} claims {n} elements, more than the "
                                    f"{len(self.data) - self.pos} bytes left can hold")
        return n

    def string(self) -> str:
        raw = self.take(self.length())
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise XGBoostModelError(f"invalid UTF-8 string before byte {self.pos}") from None


class _Frame:
    __slots__ = ("value", "is_obj", "count", "typ", "key", "n")

    def __init__(self, is_obj: bool, count: int | None, typ: bytes | None):
        self.value: Any = {} if is_obj else []
        self.is_obj, self.count, self.typ = is_obj, count, typ
        self.key: str | None = None
        self.n = 0


def ubjson_loads(data: bytes) -> Any:
    """Decode UBJSON (draft 12, as XGBoost writes it); typed numeric arrays become lists."""
    r = _Reader(data)
    stack: list[_Frame] = []
    while True:
        value: Any
        done = False
        if stack:
            fr = stack[-1]
            if fr.count is not None and fr.n >= fr.count:
                done = True
            elif fr.is_obj and fr.key is None:
                if fr.count is None and r.peek() == b"}":
                    r.take(1)
                    done = True
                else:
                    fr.key = r.string()
            if not done:
                m = fr.typ if fr.typ is not None else r.marker()
                if fr.count is None and not fr.is_obj and m == b"]":
                    done = True
        else:
            m = r.marker()
        if done:
            value = stack.pop().value
        elif m in (b"{", b"["):
            typ = count = None
            if r.peek() == b"$":
                r.take(1)
                typ = r.marker()
                if r.marker() != b"#":
                    raise XGBoostModelError(f"typed container without a count at byte {r.pos}")
                count = r.count(typ)
            elif r.peek() == b"#":
                r.take(1)
                count = r.count(None)
            if m == b"[" and typ in _UBJ_SCALAR:
                fmt = _UBJ_SCALAR[typ]
                size = struct.calcsize(fmt)
                value = np.frombuffer(r.take(size * count), dtype=fmt).tolist()
            else:
                stack.append(_Frame(m == b"{", count, typ))
                continue
        elif m in _UBJ_SCALAR:
            value = r.number(m)
        elif m == b"S":
            value = r.string()
        elif m == b"C":
            value = r.take(1).decode("latin-1")
        elif m == b"H":
            text = r.string()
            try:
                value = float(text)
            except ValueError:
                raise XGBoostModelError(f"bad high-precision number {text!r}") from None
        elif m == b"T":
            value = True
        elif m == b"F":
            value = False
        elif m == b"Z":
            value = None
        else:
            raise XGBoostModelError(f"unknown UBJSON marker {m!r} at byte {r.pos - 1}")
        # attach the finished value to its container, or return it
        if not stack:
            if r.pos != len(r.data) and r.data[r.pos:].strip(b"N \n\r\t"):
                raise XGBoostModelError(f"trailing bytes after the document at byte {r.pos}")
            return value
        fr = stack[-1]
        if fr.is_obj:
            fr.value[fr.key] = value
            fr.key = None
        else:
            fr.value.append(value)
        fr.n += 1
