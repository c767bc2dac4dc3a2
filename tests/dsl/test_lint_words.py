"""Lint messages people read (audit items 7d, 14): numbers in readable digits (`sum to 1.01`, not
`1.0098039215686274`), more only where 4 digits would read as the number they differ from; and a
reason for the default named once per feature, not 'missing or outside its domain or missing'."""

from __future__ import annotations

from rulekit import dsl
from rulekit.dsl import lint
from rulekit.dsl.lint_base import shown

HEADER = """rulebase t
target y: classes {neg, pos}
feature size: nominal {L, M, S}
feature colour: nominal {red, grün}
feature h: numeric
semantics first-hit
precision float64
default neg {neg: 0.9, pos: 0.1}
"""


def messages(body: str) -> list[str]:
    p = dsl.parse(HEADER + body, file="t.rules")
    assert not p.errors, p.errors
    return [d.message for d in lint.diagnostics(p)]


def test_a_sum_off_one_is_shown_in_four_digits():
    got = messages("r1: if h > 1 then pos {neg: 0.05, pos: 0.9598039215686274}\n")
    assert any("the probabilities sum to 1.01, not 1" in m for m in got), got


def test_a_sum_just_off_one_is_not_shown_as_one():
    got = messages("r1: if h > 1 then pos {neg: 0.5, pos: 0.5000001}\n")
    assert any("the probabilities sum to 1.0000001, not 1" in m for m in got), got


def test_a_contradicting_label_shows_both_shares_apart():
    got = messages("r1: if h > 1 then neg {neg: 0.4999999, pos: 0.5000001}\n")
    assert any("(0.5000001 against 0.4999999)" in m for m in got), got


def test_shown_reads_back_apart_and_short():
    for x, apart, text in [(1.0098039215686274, 1.0, "1.01"), (1.0, 1.0, "1"), (-1e-09, 0.0, "-1e-09"),
                           (0.3333333333333333, 1.0, "0.3333"), (1 + 2**-52, 1.0, "1.0000000000000002")]:
        assert shown(x, apart) == text


def test_the_default_reason_names_a_feature_once():
    body = ("r1: if colour = grün and size != S then pos\n"
            "r2: if size in {L, M, S} then neg\n")
    got = [m for m in messages(body) if m.startswith("the default is used only")]
    assert got == ["the default is used only for rows where 'size' is missing or holds a value outside its "
                   "domain: rule 'r2' (line 10) and the rules before it match every other row [reached-only-if]"], got


def test_an_alternative_another_covers_is_a_note():
    body = ("r1: if (colour = grün and size != S)\n"
            "    or (colour = grün and size = L)\n"
            "    or (colour = red and h > 2)\n"
            "    then pos\n")
    p = dsl.parse(HEADER + body, file="t.rules")
    got = [(d.line, d.column, d.severity, d.message) for d in lint.diagnostics(p)]
    assert (HEADER.count("\n") + 2, 9, "note",
            "this alternative adds no row: every row it matches, the alternative 'colour = grün and size != S' "
            "matches too (drop it) [redundant-alternative]") in got, got
    assert len([m for *_, m in got if "redundant-alternative" in m]) == 1  # not the red one


def test_alternatives_that_only_overlap_or_are_opaque_are_not_flagged():
    for body in ("r1: if (colour = grün and h > 1) or (colour = grün and h < 3) then pos\n",
                 "r1: if h > 1 or (h > 0 and 2*h + 1*h > 1) then pos\n",
                 "r1: if size = L or size is missing then pos\n"):
        assert not [m for m in messages(body) if "redundant-alternative" in m], body


def test_equal_alternatives_report_the_later_one_only():
    got = [m for m in messages("r1: if size = L or h > 4 or size = L then pos\n") if "redundant-alternative" in m]
    assert len(got) == 1
