"""Completion: domain values after ``feature =`` / ``in {``, else feature names and the grammar's words.

Keywords come from :func:`rulekit.dsl.grammar.all_words` (the grammar file), never retyped here.
Names come from the last text that parsed, so completion keeps working while the line is half typed.
"""

from __future__ import annotations

import re

from rulekit.dsl import literals
from rulekit.dsl.grammar import CONDITION_WORDS, VALUE_WORDS, all_words
from rulekit.rules.base import RuleBase

_NAME = r'(?:"(?:[^"\\\n]|\\.)*"|[^\s"{}(),=<>!#]+)'
# `feature = `, `feature != `, `feature in {a, ` up to the cursor
_VALUE_PLACE = re.compile(rf"({_NAME})\s*(?:!?=\s*|(?:not\s+)?in\s*\{{[^}}]*)[\w\"'.-]*$")


def candidates(rb: RuleBase | None, before_cursor: str) -> list[tuple[str, str]]:
    """(text, kind) pairs: kind is 'value', 'feature' or 'keyword'."""
    if rb is not None:
        m = _VALUE_PLACE.search(before_cursor)
        if m is not None:
            tok = m.group(1)
            name = literals.unquote(tok) if tok[:1] == '"' else tok
            f = next((f for f in rb.features if f.name == name), None)
            if f is not None and f.kind == "nominal":
                return [(literals.typed(v, VALUE_WORDS), "value") for v in f.domain]
    out = []
    if rb is not None:
        out += [(literals.name(f.name, CONDITION_WORDS), "feature") for f in rb.features]
    out += [(w, "keyword") for w in sorted(all_words())]
    return out
