"""A value typed without the quotes the header gives it (`Île-de-France`, `North West`) gets an error
that says to quote it. The errors spoke of other things: "'region' is nominal: compare it with one of
its values" (it is one), "expected the next rule ... or more of this conclusion" inside a set, "expected
a comparison ... or another term" (audit 3, #15)."""

from __future__ import annotations

import pytest

from rulekit import dsl

HEAD = ('rulebase t\ntarget y: classes {a, b}\nfeature region: nominal {south, "Île-de-France", "North West"}\n'
        "feature x: numeric\n")
HINT = "a value with '-' or spaces is written in quotes: "


def message(condition: str) -> str:
    with pytest.raises(dsl.RulesSyntaxError) as info:
        dsl.loads(HEAD + f"r1: if {condition} then a\n")
    (d,) = info.value.diagnostics
    return d.message


@pytest.mark.parametrize("condition, quoted", [
    ("region = Île-de-France", '"Île-de-France"'),
    ("region in {south, Île-de-France}", '"Île-de-France"'),
    ("region = North West", '"North West"'),
    ("region in {North West, south}", '"North West"'),
])
def test_an_unquoted_value_is_shown_quoted(condition, quoted):
    got = message(condition)
    assert HINT + quoted in got, got
    assert "conclusion" not in got


def test_inside_a_set_the_expected_tokens_are_a_comma_or_a_brace():
    assert message("region in {south, Île-de-France}").startswith("expected ',' or '}' after 'Île', found '-'")


def test_no_hint_where_no_value_runs_on():
    assert HINT not in message("x <= 3 4")
