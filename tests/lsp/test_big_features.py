"""Hover, go-to, rename and formatting on big documents answer from the parse the first pass's
chunks assemble, never from the full check, and give what the whole text's parse gives.

A rename is checked by parsing the header and the chunks it touches: its verdict must be the whole
renamed text's parse verdict (exactness of the rename), for clashing, reserved and hostile names.
"""

from __future__ import annotations

import random

import pytest

from rulekit import dsl
from rulekit.dsl import incremental, lint
from rulekit.lsp import edits
from rulekit.lsp.analysis import analyse, feature_at, from_parsed
from rulekit.lsp.hover import hover_text
from tests.lsp.test_seeding import HOSTILE, _join, _rules

NAMES = ["x", "colour", "w", "then", "a b", 'q"t', "r3", "", "line\nbreak", "café"]


def _assembled(text: str, monkeypatch):
    """The analysis the server builds for a big document after an edit (no full check allowed)."""
    rnd = random.Random(len(text))
    inc = incremental.Incremental("t.rules", max_new=10_000)
    assert inc.seed_parse(dsl.parse(text, file="t.rules"))
    lines = text.split("\n")
    k = rnd.randrange(HOSTILE.count("\n") + 2, len(lines) - 2)
    lines.insert(k, "r_new: if x > 2.5 and colour in {red} then c")
    edited = "\n".join(lines)

    def no_full_check(*_a, **_k):
        raise AssertionError("the full check ran")

    monkeypatch.setattr(lint, "diagnostics", no_full_check)
    inc.local(edited)
    parsed = inc.parsed(edited)
    assert parsed is not None
    a = from_parsed(parsed, [])
    monkeypatch.undo()
    return edited, a


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)])
def test_big_document_answers_equal_the_full_parse(seed, monkeypatch):
    text, a = _assembled(_join(_rules(seed, 40)), monkeypatch)
    full = analyse(text, file="t.rules")
    assert (a.declarations, a.uses, a.rule_ids) == (full.declarations, full.uses, full.rule_ids)
    assert edits.formatted(a) == edits.formatted(full)
    spots = [(s.line, s.column) for s, _ in full.uses[::19]] + [(s.line, s.column) for s in full.declarations.values()]
    spots += [(s.line, s.column) for s in full.rule_ids[::13] if s is not None]
    refused = done = 0
    for line, col in spots:
        assert hover_text(a, line, col) == hover_text(full, line, col)
        assert feature_at(a, line, col) == feature_at(full, line, col)
        for new in NAMES:
            try:
                want = edits.rename(full, line, col, new)
            except edits.RenameRefused as err:
                with pytest.raises(edits.RenameRefused) as got:
                    edits.rename(a, line, col, new)
                assert str(got.value) == str(err)
                refused += 1
                continue
            assert edits.rename(a, line, col, new) == want
            done += 1
    assert refused > 0 and done > 0


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)])
def test_the_rename_check_agrees_with_the_whole_texts_parse(seed):
    """The check parses the header and the touched rules only: it refuses exactly the replacements
    whose whole text does not parse (raw, unquoted texts here, so that both verdicts occur)."""
    text = _join(_rules(seed, 25))
    a = analyse(text, file="t.rules")
    groups = [[a.declarations[n]] + [s for s, m in a.uses if m == n] for n in a.declarations]
    groups += [[s] for s in a.rule_ids if s is not None][:8]
    verdicts = []
    for spans in groups:
        for raw in ["ok_name", "a b", "and", "x", "then", "{", "r3", "'if'", "q:r"]:
            ed = [(s, raw) for s in spans]
            try:
                edits._check(a, ed)
                ok = True
            except edits.RenameRefused:
                ok = False
            assert ok == (not dsl.parse(edits.apply(a.lines, ed)).errors), (spans[0], raw)
            verdicts.append(ok)
    assert set(verdicts) == {True, False}
