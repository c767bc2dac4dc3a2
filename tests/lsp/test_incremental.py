"""The first pass (re-parse only changed rule chunks) against the full check on random edits.

Property: when the text has errors, the first pass gives exactly ``rulekit check``'s errors; when it
is valid, every first-pass finding is one of the check's, and every per-rule finding of the check
(contradicting, implied or always-true tests, bad conclusions) is in the first pass.
"""

from __future__ import annotations

import random

import pytest

from rulekit import dsl
from rulekit.dsl import incremental

HEAD = """\
rulebase m
target y: classes {a, b, c}
feature x: numeric
feature z: numeric
feature colour: nominal {red, green, blue}
default a
"""
LOCAL = ("its tests", "this test is", "this condition holds for every input", "is not a class", "probabilit")

_PIECES = ["x > 1", "x <= 3", "x > 5", "z > 0", "z <= -2", "colour = red", "colour in {red, blue}",
           "x > 1 and x > 2", "true", "not z > 1", "x > 2 or z > 1", "x > 1 and x <= 1", "z > -1e308"]
_BROKEN = ["colour = mauve", "w > 1", "x >"]


def _rule(rnd: random.Random, i: int, broken: float = 0.1) -> str:
    """A rule; ``broken`` of them have a syntax error, an unknown feature, value or class."""
    tests = " and ".join(rnd.choice(_PIECES) for _ in range(rnd.randint(1, 3)))
    concl = rnd.choice(["a", "b", "c"])
    if rnd.random() < broken:
        if rnd.random() < 0.5:
            tests += " and " + rnd.choice(_BROKEN)
        else:
            concl = rnd.choice(["d", ""])
    return f"r{i}: if {tests} then {concl}"


def _text(rnd: random.Random, n: int) -> list[str]:
    return [_rule(rnd, i, broken=0.0) for i in range(n)]


def _key(d):
    return d.line, d.column, d.width, d.severity, d.message, d.source_line


def _check_one(inc: incremental.Incremental, text: str) -> bool:
    """Whether ``text`` was valid."""
    full = incremental.full(text, "t.rules")
    quick = inc.local(text)
    assert quick is not None
    if dsl.parse(text, file="t.rules").errors:  # errors of the parse: the check gives only those
        assert [_key(d) for d in quick] == [_key(d) for d in full]
        return False
    got, want = {_key(d) for d in quick}, {_key(d) for d in full}
    assert got <= want
    assert {k for k in want if any(s in k[4] for s in LOCAL)} <= got
    return True


@pytest.mark.parametrize("seed", range(4))
def test_first_pass_agrees_with_the_full_check_on_random_edits(seed):
    rnd = random.Random(seed)
    rules = _text(rnd, 12)
    inc = incremental.Incremental("t.rules", max_new=100)
    valid = 0
    for _ in range(25):
        k = rnd.randrange(len(rules))
        op = rnd.random()
        if op < 0.6:
            rules[k] = _rule(rnd, k, broken=0.2)
        elif op < 0.8:
            rules.insert(k, _rule(rnd, 100 + k))
        else:  # a broken rule is deleted, or else any
            bad = [m for m, r in enumerate(rules) if dsl.parse(HEAD + r).errors]
            del rules[bad[0] if bad else k]
        valid += _check_one(inc, HEAD + "\n" + "\n".join(rules) + "\n")
    assert 0 < valid < 25  # both kinds were compared


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4, 20))
def test_first_pass_agrees_with_the_full_check_on_many_random_edits(seed):
    test_first_pass_agrees_with_the_full_check_on_random_edits(seed)


def test_only_changed_chunks_are_parsed(monkeypatch):
    rules = [f"r{i}: if x > {i} then b" for i in range(30)]
    inc = incremental.Incremental("t.rules")
    inc.local(HEAD + "\n".join(rules))
    calls = []
    real = incremental.chunk_result
    monkeypatch.setattr(incremental, "chunk_result", lambda *a: calls.append(a) or real(*a))
    rules[7] = "r7: if x > 1 and x > 0 then b"
    found = inc.local(HEAD + "\n".join(rules))
    assert len(calls) == 2  # the edited chunk and the one before it (its next chunk changed)
    assert [(d.line, d.message) for d in found] == [(HEAD.count("\n") + 8, "this test is implied by the "
                                                     "rule's other tests of 'x'")]


def test_a_header_statement_after_a_rule_leaves_it_to_the_full_check():
    assert incremental.split(HEAD + "r1: if x > 1 then b\nfeature q: numeric\n") is None
    assert incremental.Incremental("t").local("r1: if x > 1 then b\n") is None
