"""The grammar (``grammars/rules.lark``, package data) and the words it reserves where.

The DSL's words are soft keywords (see :mod:`rulekit.dsl.lexer`): each is reserved only where the
grammar accepts it. The printer quotes a name when it is a word reserved at the place it is written;
the sets below say which words those are for each kind of place, and the round-trip tests check them
against the parser with every word of the language as a name.
"""

from __future__ import annotations

import functools
import re
from importlib import resources


@functools.lru_cache(maxsize=1)
def grammar_text() -> str:
    return resources.files("rulekit.grammars").joinpath("rules.lark").read_text(encoding="utf-8")


def _terminal_pattern(name: str) -> str:
    m = re.search(rf"^{name}: /(.*)/$", grammar_text(), re.M)
    if m is None:  # pragma: no cover - the grammar file is part of the package
        raise RuntimeError(f"grammars/rules.lark defines no {name} terminal")
    return m.group(1)


#: a bare name (anything else is written in quotes)
NAME_RE = re.compile(_terminal_pattern("NAME"))
#: an integer in label/value position (a number without '.', exponent, inf or nan)
INT_RE = re.compile(r"[+-]?[0-9]+")
#: digits only: a rule id written without quotes
DIGITS_RE = re.compile(r"[0-9]+")
#: nesting of and/or/not groups; the parser refuses deeper conditions, the printer never writes one
MAX_DEPTH = 100

# Words reserved where a feature name stands in a condition (`if NAME ...`, `and NAME`, `(NAME`).
CONDITION_WORDS = frozenset({"and", "or", "not", "true", "false", "inf", "nan"})
# Words reserved where a value stands: compared values, set members, domains and classes.
VALUE_WORDS = frozenset({"true", "false", "inf", "nan"})
# Words reserved where a conclusion starts (`then LABEL`, `default LABEL`, `label LABEL`).
LABEL_WORDS = VALUE_WORDS | {"nothing", "label", "value"}
# Header names (`rulebase N`, `target N:`, `feature N:`) and statistic keys reserve no word.
NO_WORDS: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=1)
def all_words() -> frozenset[str]:
    """Every word of the language (a rule id that is one of them is quoted)."""
    words = set(re.findall(r'"([a-z][a-z0-9_-]*)"', grammar_text()))
    return frozenset(words)
