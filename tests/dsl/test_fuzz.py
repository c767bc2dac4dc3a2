"""Fuzz: texts generated from the grammar itself, and mutations of valid files, never crash the parser.

Whatever the input, ``dsl.loads`` returns a RuleBase or raises RulesSyntaxError whose diagnostics
point inside the text; nothing else (no IndexError, RecursionError, UnicodeError, ...). When a
fuzzed text does parse, it round-trips like any rule base.
"""

from __future__ import annotations

import functools
import random

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit import dsl
from rulekit.dsl.diagnostics import source_lines
from rulekit.dsl.grammar import grammar_text
from rulekit.dsl.literals import quote
from rulekit.testing.strategies import HOSTILE_NAMES, rule_bases, strict_repr

from tests.marks import lane_examples

FUZZ = settings(max_examples=lane_examples(600), deadline=None, suppress_health_check=list(HealthCheck))

_WORDS = ["age", "colour", "x", "y", "a", "b", "r1", "yes", "no", "red", "blue", "value", "sum", "and",
          "inf", "first", "Ωmega"]
_NUMBERS = ["0", "1", "-1", "2.5", "-0.0", "1e308", "1e999", "5e-324", ".5", "7.", "00012", "9" * 40,
            "1_0", "1e", "-"]


@functools.lru_cache(maxsize=1)
def _grammar():
    """(rules by origin, minimum height of each rule, terminal patterns) of the compiled grammar."""
    g = lark.Lark(grammar_text(), parser="lalr", lexer="basic")
    by_origin: dict[str, list] = {}
    for r in g.rules:
        by_origin.setdefault(r.origin.name, []).append([s.name for s in r.expansion])
    terms = {t.name: t.pattern for t in g.terminals}
    height = {name: None for name in by_origin}
    changed = True
    while changed:  # least fixpoint: height of a nonterminal = 1 + min over expansions of max child
        changed = False
        for name, exps in by_origin.items():
            best = None
            for e in exps:
                hs = [0 if s in terms else height.get(s) for s in e]
                if all(h is not None for h in hs):
                    h = 1 + max(hs, default=0)
                    best = h if best is None else min(best, h)
            if best is not None and best != height[name]:
                height[name] = best
                changed = True
    return by_origin, height, terms


def _terminal_text(name: str, pattern, rnd: random.Random) -> str:
    if pattern.type == "str":
        return pattern.value
    if name == "NAME":
        return rnd.choice(_WORDS)
    if name == "STRING":
        return quote(rnd.choice(HOSTILE_NAMES)) if rnd.random() < 0.9 else "'it\\'s'"
    if name == "NUMBER":
        return rnd.choice(_NUMBERS[:10])
    if name == "COMP":
        return rnd.choice(["<", "<=", ">", ">=", "=", "!="])
    if name == "ADDOP":
        return rnd.choice("+-")
    return rnd.choice(["classification", "regression", "first-hit", "weighted-sum"])


def grammar_text_sample(rnd: random.Random, budget: int = 160) -> str:
    """A random sentence of the grammar (tokens joined by random layout), built with a stack."""
    by_origin, height, terms = _grammar()
    out: list[str] = []
    stack = [("start", 0)]
    steps = 0
    while stack:
        sym, depth = stack.pop()
        if sym in terms:
            out.append(_terminal_text(sym, terms[sym], rnd))
            continue
        steps += 1
        exps = by_origin[sym]
        if steps > budget or depth > 12:  # wind down: shortest way out
            exps = sorted(exps, key=lambda e: max((0 if s in terms else height[s] or 99) for s in e) if e else 0)[:1]
        e = rnd.choice(exps)
        for s in reversed(e):
            stack.append((s, depth + 1))
    seps = [" ", " ", "\n", "\t", "  # note\n", "\r\n", ""]
    return "".join(t + rnd.choice(seps) for t in out)


def _mutate(text: str, rnd: random.Random) -> str:
    ops = rnd.randint(1, 4)
    for _ in range(ops):
        if not text:
            text = "if"
        i = rnd.randrange(len(text) + 1)
        j = min(len(text), i + rnd.randint(0, 12))
        k = rnd.randrange(12)
        if k == 0:
            text = text[:i] + text[j:]  # delete a span
        elif k == 1:
            text = text[:i] + rnd.choice(["(", ")", "{", "}", "[", "]", ",", ":", "*", "=", "==", "<", "\"",
                                          "'", "\\", "#", "-", "+", "not ", " and ", " or ", " if ", " then ",
                                          "\n", "\x00", "\ud800", "\u2028", "\ufeff", "é", "🎉", "\r",
                                          "\x0b", "inf", "nan", "1e999", "9" * 5000]) + text[i:]
        elif k == 2:
            text = text[:i] + text[i:j] * rnd.randint(2, 4) + text[j:]  # repeat a span
        elif k == 3:
            text = text[:i]  # truncate
        elif k == 4:
            lines = text.split("\n")
            a, b = rnd.randrange(len(lines)), rnd.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]  # swap two lines (header after rules, ...)
            text = "\n".join(lines)
        elif k == 5:
            lines = text.split("\n")
            a = rnd.randrange(len(lines))
            lines.insert(a, lines[rnd.randrange(len(lines))])  # duplicate a line
            text = "\n".join(lines)
        elif k == 6:
            text = text[:i] + "(" * rnd.randint(1, 300) + text[i:]
        elif k == 7:
            text = text[:i] + "not " * rnd.randint(1, 300) + text[i:]
        elif k == 8:
            text = text.replace(" ", "", 1) if rnd.random() < 0.5 else text.replace("\n", " ", 1)
        elif k == 9:
            text = text[:i] + rnd.choice(_NUMBERS) + text[j:]
        elif k == 10:
            text = text[:i] + rnd.choice(_WORDS) + text[j:]
        else:
            text = text.swapcase() if rnd.random() < 0.2 else text[:i] + text[i:j][::-1] + text[j:]
    return text


def check_total(text: str) -> None:
    """``loads`` either works (and round-trips) or raises RulesSyntaxError pointing into the text."""
    try:
        rb = dsl.loads(text, file="fuzz.rules")
    except dsl.RulesSyntaxError as err:
        lines = source_lines(text)
        assert err.diagnostics
        for d in err.diagnostics:
            assert 1 <= d.line <= len(lines), d
            assert 1 <= d.column <= len(lines[d.line - 1]) + 1, d
            assert d.message and "\n" not in d.headline()
            d.render()
        str(err)
        return
    try:
        again = dsl.dumps(rb, exact=True)
    except dsl.RulesSyntaxError:  # pragma: no cover - dumps never raises this
        raise
    except Exception as err:  # noqa: BLE001 - only the documented "too deep" refusal is allowed
        assert type(err).__name__ == "ExportError", err
        return
    assert strict_repr(dsl.loads(again)) == strict_repr(rb)


@FUZZ
@given(st.randoms(use_true_random=False))
def test_fuzz_grammar_sentences(rnd):
    text = grammar_text_sample(rnd)
    check_total(text)
    check_total(_mutate(text, rnd))


@settings(FUZZ, max_examples=lane_examples(250))
@given(rule_bases(max_rules=4), st.randoms(use_true_random=False))
def test_fuzz_mutated_valid_files(rb, rnd):
    text = dsl.dumps(rb)
    check_total(_mutate(text, rnd))


@pytest.mark.parametrize("text", [
    "", "\n", "#", "\ufeff", "if", "if (", "(" * 100_000, "target y: classes {a}\nif " + "(" * 50_000 + "x",
    "target y: regression\nfeature x: numeric\nif " + "not " * 20_000 + "x > 1 then 1",
    "target y: regression\nfeature x: numeric\nif " + "(" * 300 + "x > 1" + ")" * 300 + " then 1",
    "target y: regression\nfeature x: numeric\nif " + " and ".join(["x > 1"] * 5_000) + " then 1",
    "\"" * 10_000, "'" + "\\" * 9_999, "target y: classes {" + ", ".join(map(str, range(5000))) + "}",
    "\x00\x01\x02", "\ud800\udfff", "rulebase \"\\u{110000}\"", "rulebase \"\\q\"", "1" * 10_000,
    "target y: classes {" + "9" * 5000 + "}",
])
def test_pathological_inputs(text):
    check_total(text)
