"""A ':' typed after a header word (`default: no`, `semantics: first-hit`, `target: y classes {..}`)
is said once, at the colon, with the line as it should be. It was reported twice as "default:
starts a new rule, but the rule before it is not finished", though nothing before it was (audit 3,
finding 9). A ':' after a rule id still says the rule before may be unfinished."""

from __future__ import annotations

import pytest

from rulekit import dsl

HEAD = "rulebase t\ntarget y: classes {no, yes}\nfeature age: numeric\nfeature \"City Name\": nominal {a, b}\n"


def diagnostics(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(dsl.RulesSyntaxError) as info:
        dsl.loads(text, file="t.rules")
    return [(d.line, d.column, d.message) for d in info.value.diagnostics]


@pytest.mark.parametrize("line, fix", [
    ("default: no", "default no"),
    ("semantics: first-hit", "semantics first-hit"),
    ("precision: float64", "precision float64"),
    ("missing: age counts as 3", "missing age counts as 3"),
])
def test_a_colon_after_a_header_word_is_said_once_with_the_fix(line, fix):
    found = diagnostics(HEAD + line + "\n\nr1: if age > 60 then yes\n")
    col = line.index(":") + 1
    assert found == [(5, col, f"no ':' after '{line.split(':')[0]}' (a rule's id takes one, a header word "
                              f"does not): write '{fix}'")]


def test_target_and_feature_take_the_colon_after_their_name():
    found = diagnostics("rulebase t\ntarget: y classes {no, yes}\nfeature: \"City Name\" nominal {a, b}\n")
    assert found == [
        (2, 7, "the ':' goes after the target's name, not after 'target': write 'target y: classes {no, yes}'"),
        (3, 8, "the ':' goes after the feature's name, not after 'feature': write "
               "'feature \"City Name\": nominal {a, b}'"),
    ]


def test_a_rule_whose_id_is_a_header_word_is_told_to_quote_it():
    found = diagnostics(HEAD + "default: if age > 60 then yes\n")
    assert found == [(5, 8, "'default' is a header word: a rule with this id is written with quotes, "
                            "\"default\": if ...")]
    assert dsl.loads(HEAD + "\"default\": if age > 60 then yes\n").rules[0].id == "default"


def test_a_colon_after_a_rule_id_still_points_at_the_unfinished_rule():
    found = diagnostics(HEAD + "r1: if age > 60 then\nr2: if age > 3 then yes\n")
    assert found == [(6, 1, "r2: starts a new rule, but the rule before it is not finished "
                            "(a conclusion after 'then' is missing?)")]
