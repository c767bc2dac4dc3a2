"""Region lint (rulekit.dsl.lint_regions): rules that can never fire (contradictions, first-hit shadowing
by several earlier rules together) and vote overlaps that tie or change no label, with an example input -- exact both ways against
a brute-force oracle: the rule engine on a grid holding a point of every cell the rules' thresholds
cut (every canonical boundary and its float64 successor, +-inf, NaN; every nominal code, an unseen
value, missing), in float32 and float64 rule bases.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit import dsl, semantics
from rulekit.dsl.lint import lint
from rulekit.rules import engine
from rulekit.rules.base import And, Compare, Conclusion, InSet, IsMissing, Or, Rule, RuleBase
from tests.dsl.test_lint import _THRESH, _conditions, _feats, warnings
from tests.marks import lane_examples

NEVER = "this rule can never fire"
ONLY_H = "the default is used only for rows where 'h' is missing:"


def test_shadowed_by_two_earlier_rules_together():
    body = "r1: if h <= 5 then no\nr2: if h > 5 then yes\nr3: if h > 1 and w > 2 then no\n"
    assert warnings(body) == [(3, f"{NEVER}: rule 'r1' (line 9) and rule 'r2' (line 10) come first and "
                                  "together match every row this one matches"),
                              (0, f"{ONLY_H} rule 'r2' (line 10) and the rules before it match every other row "
                                  "[reached-only-if]")]
    # rows with h missing reach r3 unless an earlier rule takes them (and only they do)
    assert warnings("if h <= 5 then no\nif h > 5 then yes\nif w > 2 then no\n") == [
        (3, "only rows where 'h' is missing reach this rule: rule #2 (line 10) and the rules before it match "
            "every other row [reached-only-if]"),
        (0, f"{ONLY_H} rule #2 (line 10) and the rules before it match every other row [reached-only-if]")]
    assert warnings("if h <= 5 or h is missing then no\nif h > 5 then yes\nif w > 2 then no\n")[0][1] == (
        f"{NEVER}: rule #1 (line 9) and rule #2 (line 10) come first and together match every row this one "
        "matches")
    # only the rules needed are named (r2 adds nothing to r1 and r3)
    body = ("r1: if outlook = sunny then no\nr2: if outlook = sunny and h > 3 then yes\n"
            "r3: if outlook in {overcast, rain} then yes\nr4: if outlook in {sunny, rain} and w > 1 then no\n")
    assert warnings(body) == [
        (2, f"{NEVER}: rule 'r1' (line 9) comes first and matches every row this one matches"),
        (4, f"{NEVER}: rule 'r1' (line 9) and rule 'r3' (line 11) come first and together match every row "
            "this one matches"),
        (0, "the default is used only for rows where 'outlook' is missing or holds a value outside its domain: "
            "rule 'r3' (line 11) and the rules before it match every other row [reached-only-if]")]


def test_float32_cells_decide_shadowing():
    # in float32 `h > 1.00000001` and `h > 1` are the same test: r1 and r2 leave nothing for r3
    body = "if h <= 1 then no\nif h > 1.00000001 then yes\nif h >= 1 then no\n"
    assert warnings(body, precision="float32")[0][1].startswith(NEVER)
    assert warnings(body, precision="float64") == [  # x in (1, 1.00000001] reaches r3
        (0, f"{ONLY_H} rule #3 (line 11) and the rules before it match every other row [reached-only-if]")]


def test_contradictions_across_features():
    body = "if (h > 1 or w > 1) and h <= 1 and w <= 1 then no\n"
    assert warnings(body) == [(1, f"{NEVER}: no input satisfies its condition")]


TIE = "ties the vote with"
DEAD = "this rule never changes a predicted label"


def test_vote_overlaps_are_told_only_where_they_tie_or_change_nothing():
    # equal weights meet: the vote ties where both fire (the answer is only the first class); and
    # rule 2 (yes, the default's label) then never changes a label: dead weight
    body = "if outlook = sunny and h > 70 then no\nif h <= 75 and w > 2 then yes\n"
    assert warnings(body, semantics="vote") == [
        (2, f"{TIE} rule #1 (line 9) where outlook = sunny and h = 75 and w = 3: no and yes get the same vote "
            "there, and the answer (no) is only the class listed first"),
        (2, f"{DEAD}: the vote ends the same without it wherever it fires (rule #1 (line 9) outvotes it, e.g. "
            "where outlook = sunny and h = 75 and w = 3)")]
    # an overlap where each rule decides somewhere is what a vote is for: no finding
    assert warnings("if h > 1 then no weight 2\nif w > 2 then yes weight 3\n", semantics="vote") == []
    # outvoted wherever it meets the other rule, and its own label is the default's elsewhere
    assert warnings("if h > 1 then no weight 2\nif w > 2 then yes\n", semantics="vote") == [
        (2, f"{DEAD}: the vote ends the same without it wherever it fires (rule #1 (line 9) outvotes it, e.g. "
            "where h = 2 and w = 3)")]
    assert warnings("if outlook = sunny then no\nif outlook = rain then yes\n", semantics="vote") == []
    assert warnings("if h > 1 then no\nif h > 2 then no\n", semantics="vote") == []  # same label
    # only missing rows are shared: they tie
    got = warnings("if h <= 1 or h is missing then no\nif h > 1 or h is missing then yes weight 2\n",
                   semantics="vote")
    assert got == []  # rule 2 outvotes rule 1 on missing h; each decides somewhere
    got = warnings("if h <= 1 or h is missing then no\nif h > 1 or h is missing then yes\n", semantics="vote")
    assert got[0] == (2, f"{TIE} rule #1 (line 9) where h is missing: no and yes get the same vote there, "
                         "and the answer (no) is only the class listed first")


def test_lint_stays_within_its_budget_on_heavily_overlapping_bases():
    """A random 1,000-rule first-hit base (every later rule overlaps hundreds of earlier ones) lints to
    the end; shadowing claims stay exact where they are made (checked on random rows)."""
    import random

    rnd = random.Random(1)
    lines = []
    for i in range(1000):
        tests = [f"h {rnd.choice(['<=', '>'])} {rnd.uniform(-100, 100):.2f}",
                 f"w {rnd.choice(['<=', '>'])} {rnd.uniform(-100, 100):.2f}"]
        lines.append(f"if {' and '.join(tests)} then {rnd.choice(['no', 'yes'])}")
    head = open_header("first-hit", "float64")
    rb = dsl.loads(head + "\n".join(lines) + "\n")
    found = [f for f in lint(rb) if "together match" in f.message or "comes first" in f.message]
    assert found
    X = np.column_stack([np.zeros(20000), np.random.default_rng(0).uniform(-110, 110, (20000, 2))])
    match = engine.match_matrix(rb, X)
    for f in found[:50]:
        named = [int(n) - 1 for n in re.findall(r"#(\d+)", f.message)]
        assert not (match[:, f.rule] & ~match[:, named].any(axis=1)).any(), f


def open_header(semantics_: str, precision: str) -> str:
    from tests.dsl.test_lint import HEADER

    return HEADER.replace("{semantics}", semantics_).replace("{precision}", precision)


# --- the oracle ------------------------------------------------------------------------------------

_GRIDS: dict[str, np.ndarray] = {}


def _grid(precision: str) -> np.ndarray:
    """Rows (a, b, c) with a point in every cell the thresholds' canonical boundaries cut."""
    if precision not in _GRIDS:
        pts = {-math.inf, math.inf}
        for t in _THRESH.elements:
            for op in ("<", "<=", ">", ">="):
                b = semantics.canonical(op, t, precision)[1]
                pts.update((b, math.nextafter(b, math.inf)))
        nums = sorted(pts) + [math.nan]
        codes = [0.0, 1.0, 2.0, -1.0, math.nan]
        a, b, c = np.meshgrid(nums, nums, codes, indexing="ij")
        _GRIDS[precision] = np.column_stack([a.ravel(), b.ravel(), c.ravel()])
    return _GRIDS[precision]


def _example_row(text: str) -> list[float]:
    row = {"a": 0.0, "b": 0.0, "c": 0.0}
    for part in text.split(" and "):
        name, _, rest = part.partition(" ")
        if rest == "is missing":
            row[name] = math.nan
        elif name == "c":
            v = rest.removeprefix("= ").strip('"')
            row[name] = float({"r": 0, "g": 1, "b": 2}.get(v, -1))
        else:
            row[name] = float(rest.removeprefix("= "))
    return [row["a"], row["b"], row["c"]]


_FEW = st.sampled_from([1.0, 1.0000000001, 2.45, 2.4500000476837158])


@st.composite
def _path_literals(draw):
    """Literals as tree paths write them (few thresholds, so rules meet and cover each other often)."""
    k = draw(st.integers(0, 4))
    f = draw(st.sampled_from(["a", "b"]))
    lit = Compare(feature=f, op=draw(st.sampled_from(["<", "<=", ">", ">="])), value=draw(_FEW))
    if k == 0:
        return Or(items=(lit, IsMissing(feature=f)))
    if k == 1:
        return IsMissing(feature=draw(st.sampled_from(["a", "b", "c"])), negated=draw(st.booleans()))
    if k == 2:
        return InSet(feature="c", values=tuple(draw(st.lists(st.sampled_from(["r", "g", "b"]), max_size=2))),
                     negated=draw(st.booleans()))
    return lit


@st.composite
def _path_conditions(draw):
    items = draw(st.lists(_path_literals(), min_size=1, max_size=3))
    return And(items=tuple(items)) if len(items) > 1 else items[0]


def _rule_lists(conditions):
    """(condition, label, vote weight) triples (None: 1; equal weights of other labels tie)."""
    return st.lists(st.tuples(conditions, st.sampled_from(["n", "y"]), st.sampled_from([None, None, 0.5, 2.0])),
                    min_size=2, max_size=7)


@pytest.mark.parametrize("conditions, n", [
    pytest.param(_path_conditions(), 60, id="paths"),
    pytest.param(_path_conditions(), 400, id="paths-more", marks=pytest.mark.slow),
    pytest.param(_conditions(), 200, id="mixed", marks=pytest.mark.slow),
])
def test_exact_against_a_grid_oracle(conditions, n):
    @settings(max_examples=lane_examples(n), deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(_rule_lists(conditions), st.sampled_from(["float32", "float64"]), st.sampled_from(["first-hit", "vote"]),
           st.sampled_from([None, "n", "y"]))
    def check(rules, precision, order, default):
        _check_against_the_oracle(rules, precision, order, default)

    check()


def _check_against_the_oracle(rules, precision, order, default=None):
    rb = RuleBase(task="classification", classes=("n", "y"), features=_feats(), precision=precision,
                  semantics=order, default=None if default is None else Conclusion(label=default), rules=tuple(Rule(condition=c, conclusion=Conclusion(label=k), weight=w) for c, k, w in rules))
    grid = _grid(precision)
    match = engine.match_matrix(rb, grid)
    found = lint(rb)
    never = {f.rule for f in found if f.message.startswith(NEVER)}
    fires = match.any(axis=0)
    labels = [r.conclusion.label for r in rb.rules]
    if order == "first-hit":
        reach = [bool((match[:, j] & ~match[:, :j].any(axis=1)).any()) for j in range(len(labels))]
        assert never == {j for j, r in enumerate(reach) if not r}, found
        for f in found:
            if "come" in f.message and "first" in f.message:
                named = [int(n) - 1 for n in re.findall(r"#(\d+)", f.message)]
                assert not (match[:, f.rule] & ~match[:, named].any(axis=1)).any(), f
        return
    assert {j for j in range(len(labels)) if not fires[j]} <= never | {
        f.rule for f in found if "condition as" in f.message or "duplicate of" in f.message}
    assert all(not fires[j] for j in never), found
    repeated = {f.rule for f in found if "condition as" in f.message or "duplicate of" in f.message}
    ties = {f.rule: f for f in found if f.message.startswith(TIE)}
    dead = {f.rule: f for f in found if f.message.startswith(DEAD)}
    assert not [f for f in found if f.message.startswith("overlaps")], found
    oc = engine.outcomes(rb)
    votes = _votes(match, oc.cls, oc.weight, range(len(labels)))
    top = votes.max(axis=1)
    tied = votes == top[:, None]
    win = votes.argmax(axis=1)
    for j in range(len(labels)):
        if j in never or j in repeated:
            continue
        cj = oc.cls[j]
        others = [i for i in range(len(labels)) if i != j]
        wo = _votes(match, oc.cls, oc.weight, others)
        win_wo = np.where(match[:, others].any(axis=1), wo.argmax(axis=1), oc.cls[-1] if oc.has_default else -1)
        meets = any((match[:, i] & match[:, j]).any() for i in others if labels[i] != labels[j])
        rows = match[:, j]
        assert (j in dead) == (meets and not (win != win_wo)[rows].any()), (j, found)
        last = np.asarray([max(i for i in range(len(labels)) if match[r, i] and tied[r, oc.cls[i]]) if rows[r]
                           and tied[r, cj] else -1 for r in range(len(grid))])
        assert (j in ties) == bool((rows & (tied.sum(axis=1) > 1) & tied[:, cj] & (last == j)).any()), (j, found)
        if j in ties:  # the example input: j fires and the vote ties there
            row = np.asarray([_example_row(ties[j].message.split(" where ")[1].split(": ")[0])])
            m = engine.match_matrix(rb, row)
            v = _votes(m, oc.cls, oc.weight, range(len(labels)))[0]
            assert m[0, j] and (v == v.max()).sum() > 1, ties[j]
        if j in dead:  # the example input: j fires and is outvoted there
            row = np.asarray([_example_row(dead[j].message.split("e.g. where ")[1][:-1])])
            m = engine.match_matrix(rb, row)
            lost = _votes(m, oc.cls, oc.weight, range(len(labels)))[0].argmax() != cj
            assert m[0, j] and lost == ("outvotes it" in dead[j].message), dead[j]


def _votes(match, cls, weight, rules) -> np.ndarray:
    """Each class's vote per row, added in rule order as the engine adds them."""
    votes = np.zeros((len(match), int(cls.max()) + 1 if len(cls) else 1))
    for i in rules:
        votes[match[:, i], cls[i]] += weight[i]
    return votes


# --- the prefilter in plain Python (small bases) and in numpy (big ones) ----------------------------


def _both_ways(rb, monkeypatch) -> tuple[list, list]:
    """lint(rb) with the prefilter in plain Python, then in numpy."""
    from rulekit.dsl import lint_regions

    monkeypatch.setattr(lint_regions, "SMALL_BOXES", 10**9)
    plain = lint(rb)
    monkeypatch.setattr(lint_regions, "SMALL_BOXES", -1)
    arrays = lint(rb)
    monkeypatch.undo()
    return plain, arrays


@pytest.mark.parametrize("conditions", [pytest.param(_path_conditions(), id="paths"),
                                        pytest.param(_conditions(), id="mixed")])
def test_plain_and_numpy_prefilters_give_the_same_findings(conditions, monkeypatch):
    """Small rule bases (``rulekit check``'s) prefilter in plain Python so that linting them loads no
    numpy; the findings, witnesses and examples are those of the numpy prefilter, first-hit, vote
    and ensemble groups alike."""
    seen = []

    # all 150 examples in both lanes: the two asserts after check() need the findings they produce
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.lists(st.tuples(conditions, st.sampled_from(["n", "y"]), st.sampled_from([None, 0.5, 2.0]),
                              st.integers(0, 1)), min_size=2, max_size=14),
           st.sampled_from(["float32", "float64"]), st.sampled_from(["first-hit", "vote", "groups"]))
    def check(rules, precision, order):
        groups = order == "groups"
        rb = RuleBase(task="classification", classes=("n", "y"), features=_feats(), precision=precision,
                      semantics="vote" if groups else order,
                      combiner={"kind": "vote"} if groups else None,
                      rules=tuple(Rule(condition=c, conclusion=Conclusion(label=k), weight=w,
                                       group=g if groups else 0) for c, k, w, g in rules))
        plain, arrays = _both_ways(rb, monkeypatch)
        assert plain == arrays
        seen.extend(plain)
        _same_prefilter(rb, monkeypatch)

    check()
    assert any(f.message.startswith(NEVER) and "first" in f.message for f in seen)  # the covering search ran
    assert any(f.message.startswith((TIE, DEAD)) for f in seen)  # and the vote checks


def _same_prefilter(rb, monkeypatch) -> None:
    """The two prefilters pick the same boxes: those that may meet each rule's, and those whose
    bounds hold points of every box, with each tested feature missing in turn."""
    from rulekit.dsl import lint_regions

    monkeypatch.setattr(lint_regions, "SMALL_BOXES", 10**9)
    plain = lint_regions.Regions(rb)
    monkeypatch.setattr(lint_regions, "SMALL_BOXES", -1)
    arrays = lint_regions.Regions(rb)
    monkeypatch.undo()
    assert not plain.arrays and arrays.arrays and plain.owner == arrays.owner
    every = list(range(len(plain.flat)))
    for j in range(len(rb.rules)):
        assert plain.meeting(j, every) == arrays.meeting(j, np.asarray(every, dtype=np.int64)).tolist()
    points = [lint_regions._point(b, plain.schema) for b in plain.flat]
    points += [{**p, k: None} for p in points for k in p]
    for p in points:
        assert plain.holding(p, every) == arrays.holding(p, np.asarray(every, dtype=np.int64)).tolist()


def test_plain_and_numpy_prefilters_agree_on_a_big_overlapping_base(monkeypatch):
    import random

    rnd = random.Random(7)
    lines = []
    for _ in range(300):
        tests = [f"h {rnd.choice(['<=', '>'])} {rnd.uniform(-100, 100):.2f}",
                 f"w {rnd.choice(['<=', '>'])} {rnd.uniform(-100, 100):.2f}"]
        if rnd.random() < 0.3:
            tests.append(f"outlook {rnd.choice(['=', '!='])} {rnd.choice(['sunny', 'rain', 'overcast'])}")
        lines.append(f"if {' and '.join(tests)} then {rnd.choice(['no', 'yes'])}")
    for order, n in (("first-hit", 300), ("vote", 20)):  # (more vote rules spend the budget first)
        rb = dsl.loads(open_header(order, "float32") + "\n".join(lines[:n]) + "\n")
        plain, arrays = _both_ways(rb, monkeypatch)
        assert plain == arrays
        _same_prefilter(rb, monkeypatch)
        assert any(f.message.startswith(NEVER) or f.message.startswith((TIE, DEAD)) for f in plain)
