"""The page's marks follow typing in the editor (CodeMirror maps them through each edit), so the
studio re-sends them only when the lint's marks are not the shown ones moved by the edit."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("nicegui", reason="nicegui is not installed (the studio extra)")
from rulekit.studio.app import _moved  # noqa: E402


def test_marks_after_an_edit_shift_and_before_it_stay():
    before = "r1: if x > 1 then a\nr2: if x > 2 then b\n"
    after = before.replace("x > 1", "x > 17")
    spans = [(7, 8, "warning", "m1"), (27, 28, "warning", "m2")]
    assert _moved(spans, before, after) == [(7, 8, "warning", "m1"), (28, 29, "warning", "m2")]
    assert _moved(spans, before, before) == spans


def test_a_mark_the_edit_touches_is_sent_again():
    before = "r1: if x > 1 then a\n"
    assert _moved([(11, 12, "warning", "m")], before, before.replace("1 then", "11 then")) is None  # which 1?
    assert _moved([(11, 12, "warning", "m")], before, before.replace("1 then", "1 2 then")) is None  # touching
    assert _moved([(7, 8, "warning", "m")], before, before.replace("x", "")) is None


@pytest.mark.parametrize("seed", range(3))
def test_random_edits_outside_the_marks(seed):
    rnd = random.Random(seed)
    for _ in range(200):
        before = "".join(rnd.choice("ab \n") for _ in range(rnd.randint(5, 60)))
        at = rnd.randrange(len(before) + 1)
        cut = rnd.randint(0, min(3, len(before) - at))
        ins = "".join(rnd.choice("abc") for _ in range(rnd.randint(0, 3)))
        after = before[:at] + ins + before[at + cut:]
        spans = sorted({(a, a + 1, "w", "") for a in rnd.sample(range(len(before)), min(4, len(before)))})
        got = _moved(spans, before, after)
        if got is None:
            continue
        # every moved mark covers the same character it covered before, wherever the edit was made
        assert [after[a:b] for a, b, *_ in got] == [before[a:b] for a, b, *_ in spans]
        if any(a < at + max(cut, 1) and b > at - 1 for a, b, *_ in spans):
            continue  # the edit touched (or is next to) a mark: where the editor moves it is its choice
        assert [(a, b) if b <= at else (a + len(ins) - cut, b + len(ins) - cut) for a, b, *_ in spans] == \
            [(a, b) for a, b, *_ in got]
