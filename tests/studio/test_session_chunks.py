"""The studio's per-keystroke parse comes from the chunk cache: after any edit its rule base,
positions and errors are those of a parse of the whole text, and the impact counts are unchanged."""

from __future__ import annotations

import random

import pytest

from rulekit import dsl
from rulekit.studio.session import Check, Session
from tests.studio import cases


@pytest.mark.parametrize("seed", range(2))
def test_the_keystroke_parse_equals_the_whole_parse(tmp_path, seed, monkeypatch):
    rnd = random.Random(seed)
    rb = cases.rulebase(80, seed=seed)  # more rules than the first pass parses one by one (64)
    rules = tmp_path / "r.rules"
    rules.write_text(dsl.dumps(rb), encoding="utf-8")
    data = tmp_path / "d.csv"
    cases.write_csv(data, cases.columns(rb, 300))
    s = Session(rules, data)
    text = s.saved_text
    s.impact(s.check(text, with_lint=False))  # parses whole (and the saved text): seeds the chunks
    parses = []
    real = dsl.parse
    monkeypatch.setattr(dsl, "parse", lambda t, **k: parses.append(len(t)) or real(t, **k))
    lines = text.split("\n")
    starts = [i for i, ln in enumerate(lines) if ln[:1] == "r" and ": if " in ln]
    valid = broken = 0
    for _ in range(12):
        i = rnd.choice(starts)
        ln = lines[i]
        pick = rnd.random()
        if pick < 0.3:
            lines[i] = ln.replace(" then ", " and f0 > 1e308 then ", 1)  # a new test
        elif pick < 0.5:
            lines[i] = ln.replace(" then ", " and f0 >> then ", 1)  # broken
        elif pick < 0.7:
            lines[i] = ln.replace(" then ", ' and "hostile \\" name" > 1 then ', 1)  # unknown feature
        else:
            lines[i] = ln[: len(ln) // 2] + ln[len(ln) // 2:].replace("0", "1", 1)
        edited = "\n".join(lines)
        got = s.check(edited, with_lint=False)
        want = real(edited, file=s.display)
        if want.errors:
            broken += 1
            assert [(d.line, d.column, d.message) for d in got.errors] == \
                [(d.line, d.column, d.message) for d in want.errors]
            lines[i] = ln  # undo the broken edit
        else:
            valid += 1
            assert got.errors == [] and got.rulebase == want.rulebase
            assert (got.parsed.rule_pos, got.parsed.literal_pos) == (want.rule_pos, want.literal_pos)
            assert s.impact(got) == s.impact(Check(want, []))
    assert valid and broken
    assert all(n < len(text) for n in parses)  # never the whole text again: header + a chunk or two
