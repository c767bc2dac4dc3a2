"""Seeding the first pass from one parse of the whole text, and the parse assembled from chunks.

``from_parse`` must give every chunk exactly what ``chunk_result`` gives it (otherwise the first pass
would depend on how the cache was filled), and ``Incremental.parsed`` must give the rule base and
positions ``dsl.parse`` gives (hover, completion and rename read it on big files).
"""

from __future__ import annotations

import random

import pytest

from rulekit import dsl
from rulekit.dsl import incremental
from tests.lsp.test_incremental import HEAD, _rule

HOSTILE = HEAD.replace("feature z: numeric", 'feature z: numeric\nfeature "a b\\"c": numeric\n'
                       "feature 'if': nominal {'then', \"x y\"}")
_HOSTILE_PIECES = ['"a b\\"c" > 0.1', "'if' = 'then'", "'if' in {\"x y\"}", "x > 5e-324", "x <= -0.0",
                   "z > 1.7976931348623157e308", "x is missing", "not x is missing", "x > 0.30000000000000004"]


def _rules(seed: int, n: int = 30) -> list[str]:
    """Valid texts: random rules (per-rule findings included), hostile names, multi-line rules,
    comments and rules without ids."""
    rnd = random.Random(seed)
    rules = []
    for i in range(n):
        r = _rule(rnd, i, broken=0.0)
        if rnd.random() < 0.3:
            r = r.replace(" then ", f" and {rnd.choice(_HOSTILE_PIECES)} then ", 1)
        if rnd.random() < 0.2:
            r = r.replace(" and ", "\n    and ", 1)
        if rnd.random() < 0.1:
            r = r.split(": ", 1)[1]  # no id
        if rnd.random() < 0.1:
            r += "  # a comment"
        rules.append(r)
    return rules


def _texts(seed: int, n: int = 30) -> str:
    return _join(_rules(seed, n))


def _join(rules: list[str]) -> str:
    return HOSTILE + "\n" + "\n".join(rules) + "\n"


def _strip(r: incremental.ChunkResult):
    return r.errors, r.findings, r.boundary, r.rule, r.rule_pos, r.literal_pos


@pytest.mark.parametrize("seed", range(6))
def test_seeding_from_one_parse_equals_chunk_by_chunk(seed):
    text = _texts(seed)
    parsed = dsl.parse(text, file="t.rules")
    assert not parsed.errors, parsed.errors[:1]
    header, known = incremental.from_parse(parsed)
    head, h, chunks = incremental.split(text)
    assert header == head and len(known) == len(set(incremental._keys(chunks)))
    findings = 0
    for c, k in zip(chunks, incremental._keys(chunks)):
        want = incremental.chunk_result(head, h, c, k[1], "t.rules")
        assert _strip(known[k]) == _strip(want), c.text
        findings += len(want.findings)
    assert findings > 0  # per-rule findings were compared, not only empty ones


def test_a_text_with_errors_is_not_seeded_from_its_parse():
    text = _texts(1).replace("then a", "then", 1)
    assert incremental.from_parse(dsl.parse(text, file="t.rules")) is None


@pytest.mark.parametrize("seed", range(4))
def test_the_assembled_parse_equals_the_full_parse_after_edits(seed):
    rnd = random.Random(seed)
    rules = _rules(seed)
    text = _join(rules)
    inc = incremental.Incremental("t.rules", max_new=10_000)
    assert inc.seed_parse(dsl.parse(text, file="t.rules"))
    compared = 0
    for step in range(16):
        bad = [m for m, r in enumerate(rules) if dsl.parse(HOSTILE + r).errors]
        if bad:  # the broken rule of the step before goes
            del rules[bad[0]]
        else:
            rules.insert(rnd.randrange(len(rules)), _rule(rnd, 500 + step, broken=0.3))
        text = _join(rules)
        inc.local(text)
        full = dsl.parse(text, file="t.rules")
        got = inc.parsed(text)
        if full.errors:
            assert got is None
            continue
        compared += 1
        assert got is not None
        assert got.rulebase == full.rulebase
        assert (got.rule_pos, got.literal_pos, got.header_lines) == (full.rule_pos, full.literal_pos,
                                                                     full.header_lines)
    assert compared > 3
    assert inc.parsed(text + " ") is None  # only for the text last answered
