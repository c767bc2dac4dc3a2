"""The no-default finding's example region tests a value where one exists, not only a missing value:
rules leaving x1 > 3.001 and x2 <= 7 undecided (483 of 1,000 rows) were shown 'e.g. where x1 is
missing' (audit 3, #22)."""

from __future__ import annotations

from rulekit import dsl
from rulekit.dsl.lint import lint

RULES = ("rulebase t\ntarget cls: classes {high, low, mid}\nfeature x1: numeric\nfeature x2: numeric\n"
         "semantics first-hit\n\nr1: if x1 > 3.001 and x2 > 7 then high\nr2: if x1 <= 3.001 then low\n")


def test_the_example_is_a_region_of_values():
    found = [d.message for d in lint(dsl.loads(RULES)) if "there is no default" in d.message]
    assert found == ["no rule fires for some inputs and there is no default (e.g. where x1 > 3.001 and "
                     "(x2 <= 7 or x2 is missing)): they get no prediction"], found


def test_a_missing_value_is_the_example_when_it_is_the_only_gap():
    rules = ("rulebase t\ntarget y: classes {a, b}\nfeature x: numeric\nsemantics first-hit\n\n"
             "r1: if x > 1 then a\nr2: if x <= 1 then b\n")
    found = [d.message for d in lint(dsl.loads(rules)) if "there is no default" in d.message]
    assert found == ["no rule fires for some inputs and there is no default (e.g. where x is missing): "
                     "they get no prediction"], found
