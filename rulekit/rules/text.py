"""Short human-readable text for conditions and conclusions (explanations, error messages, repr).

This is not the DSL (``rulekit.dsl`` prints the canonical file form); it only has to be unambiguous
enough for a person reading an explanation. Nothing here recurses.
"""

from __future__ import annotations

import re
from typing import Any

from rulekit import semantics
from rulekit.rules.conditions import And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or
from rulekit.rules.boxes import fold

_BARE = re.compile(r"[^\W\d]\w*(?:\.\w+)*")  # the DSL's NAME token
_WORDS = {"and", "or", "not", "in", "is", "missing", "if", "then", "true", "false", "inf", "nan"}


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


def name(text: str) -> str:
    """A feature name, bare when it is a plain name, else in double quotes (as the DSL writes it)."""
    if _BARE.fullmatch(text) and text not in _WORDS:
        return text
    return _quote(text)


def number(x: float) -> str:
    """The shortest decimal that reads back as ``x``, without a bare ``.0`` (``35000``, as a CSV
    writes it, not ``35000.0``; ``0.1``, ``1e+16`` and ``nan`` as ``repr`` spells them)."""
    s = semantics.shortest_repr(x)
    return s[:-2] if s.endswith(".0") and "e" not in s else s


def value(v: Any) -> str:
    """A number or label: labels bare when they are plain names."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return number(v)
    if isinstance(v, int):
        return str(v)
    s = str(v)
    return s if _BARE.fullmatch(s) and s not in _WORDS else _quote(s)


label = value


def literal(lit: Any) -> str:
    if isinstance(lit, Compare):
        return f"{name(lit.feature)} {lit.op} {value(lit.value)}"
    if isinstance(lit, InSet):
        vals = ", ".join(value(v) for v in lit.values)
        return f"{name(lit.feature)} {'not in' if lit.negated else 'in'} {{{vals}}}"
    if isinstance(lit, IsMissing):
        return f"{name(lit.feature)} is {'not ' if lit.negated else ''}missing"
    if isinstance(lit, Linear):
        terms = " + ".join(f"{number(c)} * {name(n)}" for c, n in lit.terms)
        return f"{terms} {lit.op} {number(lit.value)}"
    raise TypeError(f"not a literal: {lit!r}")


_PREC = {"or": 1, "and": 2, "not": 3, "atom": 4}


def condition(cond: Any) -> str:
    """``a <= 1 and (b = x or b is missing)``; ``true`` / ``false`` for the empty And / Or. An
    ``and`` inside an ``or`` keeps its parentheses, as the rules file writes it (``a <= 1 or (b = x
    and c = y)``), though ``and`` binds tighter."""

    def step(node, args):
        if isinstance(node, And):
            if not args:
                return ("true", _PREC["atom"])
            return (" and ".join(t if p > _PREC["and"] else f"({t})" for t, p in args), _PREC["and"])
        if isinstance(node, Or):
            if not args:
                return ("false", _PREC["atom"])
            return (" or ".join(t if p > _PREC["and"] else f"({t})" for t, p in args), _PREC["or"])
        if isinstance(node, Not):
            t, p = args[0]
            return ("not " + (t if p >= _PREC["not"] else f"({t})"), _PREC["not"])
        return (literal(node), _PREC["atom"])

    text, _ = fold(cond, step)
    return text


def conclusion(c: Conclusion | None) -> str:
    if c is None:
        return "nothing"
    if c.label is not None:
        return label(c.label)
    if c.value is not None:
        return number(c.value)
    if c.distribution is not None:
        return "[" + ", ".join(number(p) for p in c.distribution) + "]"
    return "nothing"
