"""Errors after a word that takes an argument (`classes {..}`, `semantics first-hit`, `precision
float64`) are about the argument: no hint to quote the word as a name, and each choice named once.
'classes no, yes' was told to write "classes" in quotes, and 'semantics firsthit' read 'expected
first-hit, vote or weighted-sum or vote' (audit 3, #10)."""

from __future__ import annotations

import pytest

from rulekit import dsl


def message(text: str) -> str:
    with pytest.raises(dsl.RulesSyntaxError) as info:
        dsl.loads("rulebase t\n" + text)
    return info.value.diagnostics[0].message


@pytest.mark.parametrize("text, expected", [
    ("target y: classes no, yes\n", "expected '{' after 'classes' (a set of values is written {red, blue}), found 'no'"),
    ("target y: classes {a, b}\nsemantics firsthit\n", "expected first-hit, vote or weighted-sum after 'semantics', "
                                                        "found 'firsthit'"),
    ("target y: classes {a, b}\nprecision double\n", "expected float32 or float64 after 'precision', found 'double'"),
    ("target y: classes {a, b}\nfeature x: nominal a, b\n", "expected '{' after 'nominal' (a set of values is written "
                                                             "{red, blue}), found 'a'"),
])
def test_the_message_is_about_the_argument(text, expected):
    assert message(text) == expected
