"""Rules files, mutated token by token from a base that uses every condition form (chains,
oblique sums, nominal sets, missing tests, weights, statistics): ``dsl.loads`` either works and
round-trips or raises RulesSyntaxError pointing into the text (``check_total``), within a CPU-time
budget per kilobyte (CPU: a loaded machine stretches wall time, not this). Seeded: a failure names
its seed and case, and replays."""

from __future__ import annotations

import random
import re
import time

import pytest

from rulekit import dsl
from tests.dsl.test_fuzz import _mutate as char_mutate
from tests.dsl.test_fuzz import check_total

BASE = """rulebase rules
target y: classes {0, 1}
feature x0: numeric
feature x1: numeric
feature c: nominal {a, b, 3}
semantics first-hit
default 0 [0.5, 0.5]

r1: if 1 < x0 <= 2 and x0 + 2 * x1 <= 3 then 1 [0.25, 0.75] with train_n = 4
r2: if (c = a or c in {b, 3}) and not x1 is missing then 0
r3: if -0.5 * x0 - x1 > -1e3 or 40 >= x1 > 2.5 then 1 weight 2
"""
VOCAB = ["x0", "x1", "c", "+", "-", "*", "<", "<=", ">", ">=", "=", "!=", "1", "-2.5", "(", ")",
         "{", "}", ",", "and", "or", "not", "in", "is", "missing", "true", "false", "x0 + x1",
         "2 * x0 - x1", "a", "\"s\"", "nan", "inf", "then", "if", "[", "]", "weight", "with",
         "nothing", ":", "\n", "r9:", "1e999", "0", "9" * 400]
_TOKEN = re.compile(r"\s+|[A-Za-z_][A-Za-z_0-9]*|-?\d[\d.e+-]*|<=|>=|!=|\S")
SECONDS_PER_KB = 0.5  # CPU; dsl.loads runs at ~0.4 s/MB: 1000x headroom


def token_mutate(text: str, rnd: random.Random) -> str:
    """1-4 token edits: replace, insert, delete, swap or duplicate (where an oblique sum lands
    where a bound is expected, and the like)."""
    toks = _TOKEN.findall(text)
    for _ in range(rnd.randint(1, 4)):
        i = rnd.randrange(len(toks))
        op = rnd.random()
        if op < 0.3:
            toks[i] = rnd.choice(VOCAB)
        elif op < 0.5:
            toks.insert(i, " " + rnd.choice(VOCAB) + " ")
        elif op < 0.7 and len(toks) > 1:
            del toks[i]
        elif op < 0.85:
            j = rnd.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
        else:
            toks.insert(i, toks[rnd.randrange(len(toks))])
    return "".join(toks)


def run_cases(seed: int, n: int) -> None:
    rnd = random.Random(seed)
    check_total(BASE)  # the first call builds the parser and loads the printer: not part of any case's time
    for case in range(n):
        text = token_mutate(BASE, rnd) if case % 4 else char_mutate(BASE, rnd)
        t0 = time.thread_time()
        try:
            check_total(text)
        except Exception as err:  # noqa: BLE001 - report the replayable case
            raise AssertionError(f"seed {seed} case {case}: {type(err).__name__}: {err}\n"
                                 f"{text!r}") from err
        budget = 1.0 + SECONDS_PER_KB * len(text) / 1024
        took = time.thread_time() - t0
        assert took < budget, f"seed {seed} case {case}: {took:.1f} s CPU, over {budget:.1f} s"


@pytest.mark.parametrize("text", [
    "r1: if 1 < x0 <= x0 + x1 then 1\n",  # was AttributeError: '_Sum' object has no attribute 'type'
    "r1: if 1 < c <= x0 + x1 then 1\n",
    "r1: if 1 < x0 + x1 <= x1 + x0 then 1\n",
    "r1: if x0 + x1 <= x0 + x1 then 1\n",
    "r1: if - x0 + x1 < - 1 < x0 then 1\n",
])
def test_oblique_sum_where_a_bound_belongs(text):
    head = BASE.split("\n\n")[0] + "\n\n"
    with pytest.raises(dsl.RulesSyntaxError):
        dsl.loads(head + text, file="m.rules")


def test_fuzz_rules_quick():
    run_cases(seed=25, n=800)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzz_rules_many(seed):
    run_cases(seed=seed, n=2000)
