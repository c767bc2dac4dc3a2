"""Audit item 11: what a reviewer flags that lint did not. Tests true for every present value
(notes), sets of all declared values but one (notes), rules and a default only rows with a missing or
undeclared value reach, and a last rule that only repeats the default (warnings: `check --strict`
fails on them)."""

from __future__ import annotations

from rulekit import dsl
from rulekit.commands import check
from rulekit.dsl import incremental
from rulekit.lsp import analysis
from rulekit.lsp.server import _diagnostic_at

HEADER = """rulebase t
target y: classes {neg, pos}
feature g: nominal {p, q, r, s}
feature a: numeric
semantics first-hit
precision float64
default neg {neg: 0.9, pos: 0.1}
"""
N = HEADER.count("\n")


def found(body: str, header: str = HEADER) -> list[tuple[int, int, str, str]]:
    """(line in body, column, severity, message) of every finding."""
    p = dsl.parse(header + body, file="t.rules")
    assert not p.errors, p.errors
    return [(d.line - N, d.column, d.severity, d.message) for d in dsl.lint.diagnostics(p)]


def test_a_set_naming_the_whole_domain_is_a_note_saying_what_it_excludes():
    got = found("r1: if a > 1 and g in {p, q, r, s} then pos\n")
    assert (1, 18, "note", "this test names every declared value of 'g': it fails only when 'g' is missing or "
                           "holds a value outside its domain (drop it if those rows should match too) "
                           "[whole-domain]") in got


def test_a_numeric_tautology_says_it_fails_only_for_a_missing_value():
    got = found("r1: if a > 50 or a <= 50 then pos\n")
    assert got[0] == (1, 8, "note", "this test holds for every value of 'a': it fails only when 'a' is missing, "
                                    "so it says 'a is not missing' [true-unless-missing]")
    # and the default is then reached by rows with 'a' missing only
    assert got[1] == (0, 1, "warning", "the default is used only for rows where 'a' is missing: rule 'r1' "
                                       "(line 8) matches every other row [reached-only-if]")


def test_all_but_one_set_suggests_the_shorter_test_and_its_difference():
    got = found("r1: if g in {p, q, s} and a > 1 then pos\n")
    assert got == [(1, 8, "note", "this set names every declared value of 'g' but r: 'g != r' is shorter and the "
                                  "same for every declared value (it also matches a value outside the domain, "
                                  "which this set does not) [all-but-one]")]
    assert found("r1: if g in {p, q} and a > 1 then pos\n") == []


def test_rules_and_default_after_an_always_firing_rule_say_only_missing_rows_reach_them():
    body = "r1: if g = p then pos\nr2: if g != p then neg\nr3: if a > 2 then pos\nr4: if g is missing then pos\n"
    got = found(body)
    assert (3, 1, "warning", "only rows where 'g' is missing reach this rule: rule 'r2' (line 9) and the rules "
                             "before it match every other row [reached-only-if]") in got
    assert not [f for f in got if f[0] == 4]  # r4 is written for those rows
    # nothing reaches the default any more: no default finding (r3 and r4 take every missing 'g')
    assert not [f for f in got if f[0] == 0]
    assert found("r1: if g = p then pos\nr2: if g = q then neg\nr3: if a > 2 then pos\n") == []


def test_a_last_rule_repeating_the_default_label_is_a_warning():
    got = found("r1: if g = p then pos\nr2: if a > 3 then neg\nr3: if g = q then neg\n")
    assert [(f[0], f[2]) for f in got] == [(2, "warning"), (3, "warning")]
    assert got[1][3] == ("this rule concludes neg, as the default does: without it the rows it matches get neg "
                         "from the default (only their class probabilities change) [repeats-default]")
    assert "(as every rule after it)" in got[0][3]
    # a rule with its own class shares (a tree's leaf) adds them: not told
    assert found("r1: if g = p then pos\nr2: if g = q then neg {neg: 0.6, pos: 0.4}\n") == []


def test_regression_last_rule_with_the_default_value():
    head = HEADER.replace("target y: classes {neg, pos}", "target y: regression").replace(
        "default neg {neg: 0.9, pos: 0.1}", "default 1.5")
    got = found("r1: if g = p then 2\nr2: if g = q then 1.5\n", head)
    assert [f[3].endswith("[repeats-default]") for f in got] == [True]
    assert found("r1: if g = p then 2\nr2: if g = q then 1.25\n", head) == []


def test_check_strict_fails_on_warnings_not_on_notes(tmp_path, capsys):
    notes = tmp_path / "n.rules"
    notes.write_text(HEADER + "r1: if g in {p, q, s} and a > 1 then pos\n")
    assert check.run(notes, strict=True) == 0
    assert capsys.readouterr().out.rstrip().endswith("valid (1 rule), 1 note")
    warned = tmp_path / "w.rules"
    warned.write_text(HEADER + "r1: if g = p then pos\nr2: if g != p then neg\n")
    assert check.run(warned, strict=True) == 1
    out = capsys.readouterr().out
    assert f"{warned}:9:1: warning: this rule concludes neg" in out
    assert f"{warned}:7:1: warning: the default is used only for rows where 'g' is missing" in out
    assert check.run(warned) == 0


def test_the_lsp_shows_them_and_its_first_pass_keeps_whole_base_ones_out():
    text = HEADER + "r1: if g in {p, q, r, s} then pos\nr2: if a > 3 then neg\n"
    a = analysis.analyse(text, file="t.rules")
    assert sorted(d.message.rsplit("[", 1)[1] for d in a.diagnostics) == [
        "reached-only-if]", "reached-only-if]", "repeats-default]", "whole-domain]"]
    first = incremental.Incremental("t.rules").local(text)
    assert [d.message.rsplit("[", 1)[1] for d in first] == ["whole-domain]"]  # per rule: as the full check
    sev = {d.message.rsplit("[", 1)[1]: _diagnostic_at(a.lines, d).severity for d in a.diagnostics}
    assert sev["whole-domain]"] == 3 and sev["repeats-default]"] == 2  # Information, Warning
