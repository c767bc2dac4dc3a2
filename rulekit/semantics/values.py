"""When a value written in a rule is a value in the data: exact type, then equality.

A nominal value in a rule equals a data value only when both have the same type and are equal:
``True`` is not ``1``, ``"1"`` is not ``1``, ``1`` is not ``1.0`` (Python's ``==`` says all three
are equal; a category test must not). Where a label or category may have been read back from text
(a rules file, a CSV column), the lookup falls back to the first value with the same text.
The linter, the missing/unseen declarations, the rule engine's codes, explanations and the ONNX
export ask this module, so a category matches the same values everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def key(value: Any) -> tuple:
    """A hashable key: ``key(a) == key(b)`` exactly when :func:`same` ``(a, b)``."""
    return (type(value), value)


def same(a: Any, b: Any) -> bool:
    """``a`` and ``b`` are the same value: same type, then equal."""
    return type(a) is type(b) and a == b


def same_or_text(a: Any, b: Any) -> bool:
    """:func:`same`, or the same text (a label read from text against a typed one)."""
    return type(a) is type(b) and a == b or str(a) == str(b)


def contains(values: Iterable[Any], value: Any) -> bool:
    """Some element of ``values`` is :func:`same` as ``value``."""
    return any(type(v) is type(value) and v == value for v in values)


def index_of(values: Iterable[Any], value: Any) -> int | None:
    """Position of ``value`` in ``values``: the first :func:`same` one, else the first with the same
    text; None when neither."""
    values = list(values)
    for i, v in enumerate(values):
        if type(v) is type(value) and v == value:
            return i
    for i, v in enumerate(values):
        if str(v) == str(value):
            return i
    return None


class Index:
    """:func:`index_of` over a fixed list, by two dictionaries (a domain looked up many times; a
    dictionary also finds the very NaN object it holds, which ``==`` would not)."""

    __slots__ = ("_exact", "_text")

    def __init__(self, values: Iterable[Any]):
        self._exact: dict[tuple, int] = {}
        self._text: dict[str, int] = {}
        for i, v in enumerate(values):
            self._exact.setdefault(key(v), i)
            self._text.setdefault(str(v), i)

    def get(self, value: Any) -> int | None:
        hit = self._exact.get(key(value))
        return self._text.get(str(value)) if hit is None else hit


__all__ = ["Index", "contains", "index_of", "key", "same", "same_or_text"]
