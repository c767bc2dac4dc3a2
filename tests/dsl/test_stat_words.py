"""Statistics in reviewer words (rulekit/dsl/stat_words.py): `with 714 rows, 622 correct`."""

from __future__ import annotations

import pytest

from rulekit import dsl
from rulekit.dsl.diagnostics import RulesSyntaxError

HEAD = "target play: classes {no, yes}\nfeature outlook: nominal {sunny, rainy}\n"


def _rule(stats: str) -> str:
    return HEAD + f"r1: if outlook = sunny then yes {stats}\n"


def test_words_read_as_the_ir_keys_and_print_back():
    rb = dsl.loads(_rule("with 714 rows, 622 correct, 800 training_rows, lift = 3.359"))
    assert rb.rules[0].stats == {"n": 714.0, "e": 92.0, "train_n": 800.0, "lift": 3.359}
    assert "then yes with 714 rows, 622 correct (87.1%), 800 training_rows\n" in dsl.dumps(rb)
    assert "with 714 rows, 622 correct (87.1%), 800 training_rows, lift = 3.359\n" in dsl.dumps(rb, exact=True)
    assert dsl.loads(_rule("with n = 714, e = 92")) == dsl.loads(_rule("with 714 rows, 622 correct"))


def test_fractional_counts_keep_the_exact_key_form():
    rb = dsl.loads(_rule("with n = 8.057142857142857, e = 0.5, train_n = 1.07495"))
    text = dsl.dumps(rb, exact=True)
    assert "n = 8.057142857142857, e = 0.5, train_n = 1.07495" in text and "rows" not in text
    assert dsl.loads(text) == rb
    assert "with n = 8.057, e = 0.5, train_n = 1.075" in dsl.dumps(rb)


@pytest.mark.parametrize("stats, message", [
    ("with 3 correct", "3:40: 'correct' needs the rows it is out of"),
    ("with 3 rows, 4 correct", "3:48: 4 correct is more than the 3 rows"),
    ("with 3 bananas", "3:40: unknown statistic word 'bananas'"),
    ("with 3 rows, e = 1, 2 correct", "3:55: statistic 'e' is given twice"),
    ("with 3 rows, n = 3", "statistic 'n' is given twice"),
    ("with 714 rows, 600 correct (87.1%)", "3:61: 87.1% is not 600 of 714 rows (84%)"),
    ("with 714 rows, 622 correct (87.2%)", "3:61: 87.2% is not 622 of 714 rows (87.1%)"),
    ("with 714 rows (87.1%)", "3:48: a percentage follows only 'correct'"),
])
def test_bad_words_are_one_line_with_position(stats, message):
    with pytest.raises(RulesSyntaxError) as e:
        dsl.loads(_rule(stats))
    assert message in str(e.value)


def test_the_share_is_checked_within_the_rounding_of_its_digits_and_round_trips():
    """`622 correct (87.1%)` is derived from n and e (never stored): any rounding of the exact share
    reads (87%, 87.11%), the printer's one decimal is rounded from the fraction, not a float, and
    every whole (n, e) prints a share that reads back to the same statistics."""
    base = dsl.loads(_rule("with 714 rows, 622 correct"))
    for text in ("87%", "87.1%", "87.11%", "87.115%"):
        assert dsl.loads(_rule(f"with 714 rows, 622 correct ({text})")) == base
    assert "1 correct (12.5%)" in dsl.dumps(dsl.loads(_rule("with 8 rows, 1 correct")))
    assert dsl.loads(_rule("with 8 rows, 1 correct (12%)")) == dsl.loads(_rule("with 8 rows, 1 correct (13%)"))
    for n in range(1, 60):
        for c in range(n + 1):
            rb = dsl.loads(_rule(f"with {n} rows, {c} correct"))
            text = dsl.dumps(rb)
            assert f"{c} correct (" in text and dsl.loads(text) == rb
    assert "correct (" not in dsl.dumps(dsl.loads(_rule("with 0 rows, 0 correct")))
