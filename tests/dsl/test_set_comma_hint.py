"""Inside ``{...}`` two names with a space between them are more often two values missing their ','
than one value with a space: the hint says both (a review: ``classes {no yes}`` was told only to
quote "no yes", and following that gave a valid file with ONE class "no yes")."""

from __future__ import annotations

import pytest

from rulekit import dsl

HEAD = "rulebase t\n"
QUOTES = "a value with '-' or spaces is written in quotes: "


def message(text: str) -> str:
    with pytest.raises(dsl.RulesSyntaxError) as info:
        dsl.loads(text)
    return info.value.diagnostics[0].message


@pytest.mark.parametrize("text, commas, quoted", [
    ("target y: classes {no yes}\nfeature x: numeric\ndefault no\n", "{no, yes}", '"no yes"'),
    ("target y: classes {no, yes}\nfeature r: nominal {a b}\ndefault no\n", "{a, b}", '"a b"'),
    ("target y: classes {no, yes}\nfeature r: nominal {a, b}\nr1: if r in {a b} then yes\ndefault no\n",
     "{a, b}", '"a b"'),
    ("target y: classes {no, yes}\nfeature r: nominal {\"x}\", a, b, c}\ndefault no\n"
     "r1: if r in {\"x}\", a b, c} then yes\n", "{..., a, b, ...}", '"a b"'),
])
def test_in_a_set_the_hint_offers_the_comma_and_the_quotes(text, commas, quoted):
    got = message(HEAD + text)
    assert f"put ',' between values: {commas}" in got, got
    assert QUOTES + quoted in got, got


@pytest.mark.parametrize("condition, quoted", [
    ("region = North West", '"North West"'),  # no set: one value, the quotes alone
    ("region in {south, Île-de-France}", '"Île-de-France"'),  # no space: no ',' to add
])
def test_outside_a_set_or_without_a_space_only_the_quotes(condition, quoted):
    got = message(HEAD + 'target y: classes {a, b}\nfeature region: nominal {south, "Île-de-France", '
                  f'"North West"}}\nr1: if {condition} then a\n')
    assert QUOTES + quoted in got and "between values" not in got, got
