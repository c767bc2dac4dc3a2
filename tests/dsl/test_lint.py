"""Lint: each warning on its own, in the rule base's precision, and never a false claim.

The soundness test checks every claim against the rule engine (``rulekit.rules.engine``, written
independently) on rows at and around every threshold, float32 neighbours, missing and unseen values.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit import dsl
from rulekit.dsl import lint_base
from rulekit.dsl.lint import lint
from rulekit.ir.model import Feature
from rulekit.rules.base import And, Compare, Conclusion, InSet, IsMissing, Not, Or, Rule, RuleBase

from tests.marks import lane_examples

HEADER = """rulebase t
target y: classes {no, yes}
feature outlook: nominal {sunny, overcast, rain}
feature h: numeric
feature w: numeric
semantics {semantics}
precision {precision}
default yes
"""


def warnings(body: str, semantics="first-hit", precision="float64") -> list[tuple[int, str]]:
    """(line within body, message) of every lint warning."""
    head = HEADER.replace("{semantics}", semantics).replace("{precision}", precision)
    p = dsl.parse(head + body)
    assert not p.errors, p.errors
    n = head.count("\n")
    return [(d.line - n, d.message) for d in dsl.lint.diagnostics(p) if not d.message.endswith(_REPEATS)]


_REPEATS = "[repeats-default]"  # most bodies here end with a 'yes' rule under 'default yes': tested apart


def test_contradiction():
    assert warnings("if h > 3 and h <= 2 then no\n") == [
        (1, "this rule can never fire: its tests of 'h' exclude each other")]
    assert warnings("if h is missing and h > 3 then no\n")[0][1].startswith("this rule can never fire")
    assert warnings("if outlook = sunny and outlook in {rain, overcast} then no\n")[0][1].startswith(
        "this rule can never fire")
    assert warnings("if not (h > 1 or h <= 1 or h is missing) then no\n")[0][1].startswith(
        "this rule can never fire")
    assert warnings("if false then no\n")[0][1].startswith("this rule can never fire")
    assert warnings("if h > 3 and (h <= 2 or w > 1) then no\n") == []  # the or may hold through w


def test_shadowed_under_first_hit_only():
    body = "r1: if outlook = sunny and h > 75 then no\nr2: if outlook = sunny and h > 80 and w < 3 then yes\n"
    assert warnings(body) == [(2, "this rule can never fire: rule 'r1' (line 9) comes first and matches "
                                  "every row this one matches")]
    assert warnings(body, semantics="vote")[0][1].startswith("ties the vote with rule 'r1'")
    assert warnings("if h > 80 then no\nif h > 75 then yes\n") == []
    assert warnings("if true then no\nif w > 1 then yes\n")[0][1].startswith("this rule can never fire: rule #1")


def test_missing_values_follow_three_valued_logic():
    # r1 does not match rows with h missing, so r2 still fires for them
    assert warnings("if h <= 3 then no\nif h <= 3 or h is missing then yes\n") == []
    assert warnings("if h <= 3 or h is missing then no\nif h <= 1 then yes\n")[0][1].startswith(
        "this rule can never fire")
    # `h <= 5` matters: without it, rows with h missing would fire
    assert warnings("if (h <= 3 or h is missing) and h <= 5 then no\n") == []
    assert warnings("if not (h is missing) and h > 3 then no\n") == [
        (1, "this test is implied by the rule's other tests of 'h'")]


def test_duplicates():
    assert warnings("if h > 1 then no\nif h > 1 then no\n") == [
        (2, "this rule can never fire: it repeats the condition of rule #1 (line 9), which comes first")]
    assert warnings("if h > 1 then no\nif h > 1 then no\n", semantics="vote") == [
        (2, "duplicate of rule #1 (line 9): same condition and conclusion (it counts twice)")]
    assert warnings("if h > 1 then no\nif h > 1 then yes\n", semantics="vote") == [
        (2, "same condition as rule #1 (line 9) but a different conclusion")]


def test_overlap_in_a_vote_set():
    """An overlap is told where the vote ties or a rule changes no label (rule 4: 'no' wins at h > 5
    without it, by the tie-break)."""
    body = "if h > 1 then no\nif h > 2 then yes\nif h <= 1 then yes\nif h > 5 then no\n"
    dead = "this rule never changes a predicted label: the vote ends the same without it wherever it fires"
    assert warnings(body, semantics="vote") == [
        (2, "ties the vote with rule #1 (line 9) where h = 5: no and yes get the same vote there, and the "
            "answer (no) is only the class listed first"),
        (2, f"{dead} (rule #1 (line 9) outvotes it, e.g. where h = 6)"),
        (4, f"{dead} (rules of its class win without it, e.g. where h = 6)")]
    # weights that decide every overlap: rule 2 wins where it meets rule 1, rule 4 where it meets rule 2
    body = "if h > 1 then no\nif h > 2 then yes weight 2\nif h <= 1 then yes\nif h > 5 then no weight 1.5\n"
    assert warnings(body, semantics="vote") == []
    assert warnings(body, semantics="weighted-sum") == []


def test_implied_tests_in_the_rule_base_precision():
    body = "if h <= 1.0000000001 and h <= 1 then no\n"
    # in float32 both thresholds are the same test: the second repeats the first
    assert warnings(body, precision="float32") == [(1, "this test is implied by the rule's other tests of 'h'")]
    assert warnings(body, precision="float64") == [(1, "this test is implied by the rule's other tests of 'h'")]
    for precision, column in (("float64", 4), ("float32", len("if h <= 1.0000000001 and ") + 1)):
        # float64: `h <= 1` implies the weaker first test; float32: equal tests, the later is reported
        p = dsl.parse(HEADER.replace("{semantics}", "first-hit").replace("{precision}", precision) + body)
        assert dsl.lint.diagnostics(p)[0].column == column
    body = "if h <= 1.00000001 and h > 1 then no\n"  # empty between two float32 neighbours
    assert warnings(body, precision="float32")[0][1].startswith("this rule can never fire")
    assert warnings(body, precision="float64") == []
    assert warnings("if h > 3 and 1 < h <= 7 then no\n") == [(1, "this test is implied by the rule's other tests of 'h'")]
    assert warnings("if h <= inf or h is missing then no\n") == [
        (1, "this condition holds for every input (write 'if true' if that is meant)"),
        (0, "the default can never be used: rule #1 holds for every input")]
    assert warnings("if w > 1 and (h <= inf or h is missing) then no\n") == [(1, "this test is always true")]


def test_ensembles_check_each_group_as_a_decision_list():
    body = ("group 0\nif h > 1 then value 1\nif h > 2 then value 2\n"
            "group 1\nif h > 2 then value 3\n")
    head = HEADER.replace("{semantics}", "first-hit").replace("{precision}", "float64").replace(
        "default yes\n", "combiner sum link sigmoid base_score [0]\n")
    p = dsl.parse(head + body)
    found = [d.message for d in dsl.lint.diagnostics(p)]
    assert found == ["this rule can never fire: rule #1 (line 10) comes first and matches every row this one "
                     "matches"]


# --- soundness against the engine -----------------------------------------------------------------

def _feats():
    return (Feature(name="a"), Feature(name="b"), Feature(name="c", kind="nominal", domain=("r", "g", "b")))


_THRESH = st.sampled_from([0.0, 1.0, 1.5, 1.0000000001, 2.4500000476837158, 2.45, -3.0, 1e-8, 16777217.0])


@st.composite
def _literals(draw):
    k = draw(st.integers(0, 5))
    f = draw(st.sampled_from(["a", "b"]))
    if k <= 2:
        return Compare(feature=f, op=draw(st.sampled_from(["<", "<=", ">", ">=", "=", "!="])), value=draw(_THRESH))
    if k == 3:
        return IsMissing(feature=draw(st.sampled_from(["a", "b", "c"])), negated=draw(st.booleans()))
    if k == 4:
        return InSet(feature="c", values=tuple(draw(st.lists(st.sampled_from(["r", "g", "b"]), max_size=3))),
                     negated=draw(st.booleans()))
    return Compare(feature="c", op=draw(st.sampled_from(["=", "!="])), value=draw(st.sampled_from(["r", "g"])))


@st.composite
def _conditions(draw):
    items = draw(st.lists(_literals(), min_size=1, max_size=4))
    if draw(st.booleans()):
        items.append(Or(items=tuple(draw(st.lists(_literals(), min_size=1, max_size=2)))))
    if draw(st.integers(0, 4)) == 0:
        items.append(Not(item=draw(_literals())))
    return And(items=tuple(items)) if len(items) > 1 else items[0]


def _rows() -> np.ndarray:
    vals = set()
    for t in [0.0, 1.0, 1.5, 1.0000000001, 2.4500000476837158, 2.45, -3.0, 1e-8, 16777217.0]:
        f = float(np.float32(t))
        for v in (t, f, np.nextafter(t, -np.inf), np.nextafter(t, np.inf),
                  float(np.nextafter(np.float32(f), np.float32(np.inf))),
                  float(np.nextafter(np.float32(f), np.float32(-np.inf)))):
            vals.add(float(v))
    nums = sorted(vals) + [-math.inf, math.inf, math.nan]
    rng = np.random.default_rng(0)
    n = 3000
    cols = [rng.choice(nums, n), rng.choice(nums, n), rng.choice([0.0, 1.0, 2.0, -1.0, math.nan], n)]
    grid = np.array([[x, y, c] for x in nums[::3] for y in nums[::4] for c in (0.0, 1.0, -1.0, math.nan)])
    return np.vstack([np.column_stack(cols), grid])


ROWS = None


@settings(max_examples=lane_examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_conditions(), min_size=1, max_size=5), st.sampled_from(["float32", "float64"]))
def test_every_claim_is_true_on_probe_rows(conds, precision):
    from rulekit.rules import engine

    global ROWS
    if ROWS is None:
        ROWS = _rows()
    rb = RuleBase(task="classification", classes=("n", "y"), features=_feats(), precision=precision,
                  rules=tuple(Rule(condition=c, conclusion=Conclusion(label="n")) for c in conds))
    match = engine.match_matrix(rb, ROWS)
    for f in lint(rb):
        col = match[:, f.rule]
        if "exclude each other" in f.message or "no input satisfies" in f.message:
            assert not col.any(), f
        elif "come" in f.message and "first" in f.message or "repeats the condition" in f.message:
            first = [int(n) - 1 for n in re.findall(r"#(\d+)", f.message)]
            assert not (col & ~match[:, first].any(axis=1)).any(), f
        elif "implied" in f.message or "always true" in f.message:
            cond = rb.rules[f.rule].condition
            assert type(cond) is And
            k, n = 0, 0
            while n < f.literal:  # the item whose first leaf is the reported literal
                n += _leaves(cond.items[k])
                k += 1
            rest = cond.items[:k] + cond.items[k + 1:]
            without = rb.model_copy(update={"rules": (Rule(condition=And(items=rest),
                                                           conclusion=Conclusion(label="n")),)})
            assert (engine.match_matrix(without, ROWS)[:, 0] == col).all(), f
        elif "holds for every input" in f.message:
            assert col.all(), f
        elif "no rule fires for some inputs" in f.message:
            pass  # the gap's region is checked against the engine in test_lint_base.py
        elif f.code in ("true-unless-missing", "whole-domain"):  # the item is true exactly where
            _assert_present_claim(rb, f)                         # its feature is present (declared)
        elif f.code == "reached-only-if":
            reach = col & ~match[:, :f.rule].any(axis=1)
            assert (reach <= _exceptional(f.message)).all(), f
        else:  # pragma: no cover
            pytest.fail(f"unexpected finding {f}")
    if not any("no rule fires" in f.message for f in lint(rb)) and lint_base.uncovered(rb) is not None:
        assert match.any(axis=1).all()  # no gap claimed: every probe row is matched


_COL = {"a": 0, "b": 1, "c": 2}


def _exceptional(message: str) -> np.ndarray:
    """Probe rows where a feature the message names is missing (or, for c, outside the domain)."""
    out = np.zeros(len(ROWS), dtype=bool)
    for name in re.findall(r"'(\w)' (?:is missing|holds)", message):
        x = ROWS[:, _COL[name]]
        out |= np.isnan(x) | ((x == -1.0) if name == "c" else False)
    return out


def _assert_present_claim(rb, f) -> None:
    from rulekit.rules import engine

    cond = rb.rules[f.rule].condition
    items = cond.items if type(cond) is And else (cond,)
    k, n = 0, 0
    while n < f.literal:
        n += _leaves(items[k])
        k += 1
    one = rb.model_copy(update={"rules": (Rule(condition=items[k], conclusion=Conclusion(label="n")),)})
    got = engine.match_matrix(one, ROWS)[:, 0]
    name = re.search(r"value of '(\w)'", f.message).group(1)
    x = ROWS[:, _COL[name]]
    want = ~np.isnan(x) if "is missing" in f.message else np.ones(len(x), dtype=bool)
    if "outside its domain" in f.message:
        want &= x != -1.0
    if "fails only for a value" in f.message:
        want = x != -1.0
    assert (got == want).all(), f


def _leaves(node) -> int:
    n, stack = 0, [node]
    while stack:
        x = stack.pop()
        if type(x) in (And, Or):
            stack.extend(x.items)
        elif type(x) is Not:
            stack.append(x.item)
        else:
            n += 1
    return n
