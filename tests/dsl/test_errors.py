"""Errors say where (FILE:LINE:COL, the line, a caret) and what was expected, in words; all of them."""

from __future__ import annotations

import pytest

from rulekit import dsl
from rulekit.errors import RulekitError

HEADER = """rulebase play
target play: classes {no, yes}
feature outlook: nominal {sunny, overcast, rain}
feature humidity: numeric
feature grade: nominal {1, 2, 3}
default yes
"""
LINE0 = HEADER.count("\n")  # the first rule is on line LINE0 + 1


def errors(body: str) -> list[str]:
    """Rendered diagnostics (headline, line, caret) for HEADER + body."""
    with pytest.raises(dsl.RulesSyntaxError) as info:
        dsl.loads(HEADER + body, file="play.rules")
    return [d.render() for d in info.value.diagnostics]


def one(body: str) -> str:
    found = errors(body)
    assert len(found) == 1, found
    return found[0]


def at(line: int, col: int, message: str, src: str, caret: str) -> str:
    return f"play.rules:{LINE0 + line}:{col}: error: {message}\n    {src}\n    {caret}"


def test_expected_a_comparison_after_a_feature():
    src = "if outlook = sunny and humidity then no"
    assert one(src) == at(1, 33, "expected a comparison after 'humidity' (like 'humidity > 3', '= value', "
                                 "'in {...}' or 'is missing'), found 'then'", src, " " * 32 + "^~~~")


def test_missing_then():
    src = "if humidity > 70 no"
    assert one(src) == at(1, 18, "expected 'then' (or 'and' / 'or') after '70', found 'no'", src,
                          " " * 17 + "^~")


def test_missing_conclusion_at_end_of_file():
    src = "if humidity > 70 then"
    assert one(src) == at(1, 22, "expected a conclusion after 'then': a class label or a number, "
                                 "'[probabilities]', 'value N' or 'nothing', found the end of the file",
                          src, " " * 21 + "^")


def test_missing_conclusion_before_the_next_rule():
    body = "r1: if humidity > 70 then\nr2: if humidity > 80 then no\n"
    assert one(body) == at(2, 1, "r2: starts a new rule, but the rule before it is not finished "
                                 "(a conclusion after 'then' is missing?)", "r2: if humidity > 80 then no", "^~")


def test_double_equals_and_other_symbols():
    assert "(equality is a single '=')" in one("if humidity == 3 then no")
    assert one("if humidity > 3 && outlook = rain then no") == at(
        1, 17, "unexpected character '&' (write 'and')", "if humidity > 3 && outlook = rain then no",
        " " * 16 + "^")


def test_unclosed_quote():
    src = 'if outlook = "sunny then no'
    assert one(src) == at(1, 14, 'this quoted name is not closed: add a closing " on the same line (write a '
                                 "line break inside quotes as \\n)", src, " " * 13 + "^" + "~" * 13)


def test_unclosed_parenthesis():
    src = "if (humidity > 3 then no"
    assert one(src) == at(1, 18, "expected ')' after '3', found 'then'", src, " " * 17 + "^~~~")


def test_unknown_feature_with_suggestion():
    src = "if outlok = sunny then no"
    assert one(src) == at(1, 4, "unknown feature 'outlok'; did you mean 'outlook'?", src, "   ^~~~~~")
    assert "declare it in the header" in one("if zzz > 1 then no")


def test_value_outside_a_nominal_domain():
    src = "if outlook = snowy then no"
    assert one(src) == at(1, 14, "'snowy' is not a value of the nominal feature 'outlook' (values: "
                                 "'sunny', 'overcast', 'rain')", src, " " * 13 + "^~~~~")
    assert "'snowy' is not a value" in one("if outlook in {sunny, snowy} then no")


def test_number_against_a_nominal_feature():
    assert one("if outlook = 3 then no").split("\n")[0].endswith(
        "'outlook' is nominal (values: 'sunny', 'overcast', 'rain'): it cannot be compared with the number 3")
    assert "compare it with = or != or 'in {...}', not <" in errors("if outlook < sunny then no")[0]
    # an integer domain takes integers; "2" (text) and 2.0 (float) are not its values
    assert dsl.loads(HEADER + "if grade = 2 then no").rules[0].condition.value == 2
    assert "(did you mean 2?)" in one('if grade = "2" then no')
    assert "2.0 is not a value" in one("if grade = 2.0 then no")


def test_text_against_a_numeric_feature():
    src = "if humidity > high then no"
    assert one(src) == at(1, 15, "'humidity' is numeric: compare it with a number, not 'high'", src,
                          " " * 14 + "^~~~")
    assert "is numeric: 'in {...}' tests a nominal feature" in one("if humidity in {1, 2} then no")
    assert "comparing two features needs an oblique test, like 'humidity - grade > 0'" in \
        one("if humidity > grade then no")


def test_oblique_sum_on_the_right_is_an_error_not_a_crash():
    """`humidity <= 1 * humidity` once crashed the builder's fast path (a sum where a number was expected)."""
    assert "compare it with a number (or write the whole oblique test on one side)" in \
        one("if humidity <= 1 * humidity then no")
    assert "compare it with a number" in one("if humidity > 2 * humidity + 1 * humidity then no")


def test_label_that_is_not_a_class():
    src = "if humidity > 1 then maybe"
    assert one(src) == at(1, 22, "'maybe' is not a class of 'play' (classes: 'no', 'yes')", src,
                          " " * 21 + "^~~~~")
    assert "(did you mean 'yes'?)" not in one("if humidity > 1 then YES")
    assert "one probability per class, in class order: 2 here, not 3" in one(
        "if humidity > 1 then no [0.1, 0.2, 0.7]")


def test_regression_needs_numbers():
    with pytest.raises(dsl.RulesSyntaxError, match="'price' is a regression target: conclude a number, not 'cheap'"):
        dsl.loads("target price: regression\nif true then cheap\n")


def test_header_problems():
    text = "target y: classes {a, a}\nfeature x: numeric\nfeature x: numeric\nif x > 1 then a\n" \
           "semantics vote\ntarget z: regression\n"
    with pytest.raises(dsl.RulesSyntaxError) as info:
        dsl.loads(text)
    messages = [(d.line, d.message) for d in info.value.diagnostics]
    assert messages == [
        (1, "class 'a' is listed twice"),
        (3, "feature 'x' is declared twice"),
        (5, "header lines come before the rules: move this 'semantics' line above the first rule (line 4)"),
        (6, "header lines come before the rules: move this 'target' line above the first rule (line 4)"),
        (6, "a second 'target' line (the first is on line 1)"),
    ]
    with pytest.raises(dsl.RulesSyntaxError, match="1:1: this rules file has no 'target' line"):
        dsl.loads("feature x: numeric\n")


def test_every_error_is_reported_not_only_the_first():
    body = ("r1: if outlook = sunny and humidity then no\n"
            "r2: if outlok = sunny then no\n"
            "r3: if humidity > 3 yes\n"
            "r4: if humidity > 3 then maybe\n"
            "r5: if (humidity > 3 then no\n"
            "r6: if humidity > 3 then yes\n")
    found = [d.split("\n")[0] for d in errors(body)]
    lines = [int(h.split(":")[1]) - LINE0 for h in found]
    assert lines == [1, 2, 3, 4, 5]


def test_deep_nesting_has_a_clear_error():
    deep = "(" * 150 + "humidity > 1" + ")" * 150
    assert dsl.loads(HEADER + f"if {deep} then no").rules[0].condition.feature == "humidity"  # parens only
    nots = "not " * 101 + "humidity > 1"
    msg = one(f"if {nots} then no")
    assert "this condition nests 101 groups deep; at most 100 are allowed" in msg
    dsl.loads(HEADER + "if " + "not " * 100 + "humidity > 1 then no")


def test_bad_escape_and_numbers():
    assert "unknown escape '\\q'" in one('if outlook = "s\\qx" then no')
    assert one('if outlook = "s\\qx" then no').split("\n")[0].startswith(f"play.rules:{LINE0 + 1}:16:")
    assert "a comparison with nan is never true" in one("if humidity > nan then no")
    assert "a rule id is a name, digits, or text in quotes" in one("1.5: if humidity > 1 then no")


def test_soft_keyword_hint():
    msg = one("if humidity > 1 then value")
    assert "'value' is a word of the rule language here" in msg and '"value"' in msg


def test_error_is_a_rulekit_error_with_one_line():
    with pytest.raises(RulekitError) as info:
        dsl.loads(HEADER + "if x > 1 then no\nif y > 1 then no\n", file="f.rules")
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(f"f.rules:{LINE0 + 1}:4: unknown feature 'x'")
    assert text.endswith("(and 1 more error: run 'rulekit check')")
    assert info.value.exit_code == 2


def test_header_typos():
    def messages(text):
        with pytest.raises(dsl.RulesSyntaxError) as info:
            dsl.loads(text)
        return [d.message for d in info.value.diagnostics]

    assert messages("featur x: numeric\ntarget y: regression\n") == [
        "expected ':' after 'featur' (did you mean the header word 'feature'?), found 'x'"]
    # the broken target line is the only error (no "missing target" echo)
    assert messages("target y classes {a}\nif true then a\n") == ["expected ':' after 'y', found 'classes'"]
    assert messages("target y: classes {a}\nfoo x > 1 then a\n") == [
        "expected ':' after 'foo' (a rule starts 'ID: if ...' or just 'if ...'), found 'x'"]
