"""``rules/prune.py``'s building blocks and its two data passes without a holdout (issue #23: what the
mutation run of prune.py found pinned by no test; docs/testing.md lists the run):

- ``units_of``/``box_of``: a box is the conjunction of its units (a bound each side of a range, a
  whole constraint otherwise: equality, several intervals, sets); keeping a subset of units gives
  exactly their conjunction.
- ``pessimistic``: per rule, the conditions ``_prune_pessimistic`` keeps for the rows of the rule's
  class at the ``cf`` given (other ``cf`` than the default too); rules that are not one conjunction
  are kept as written.
- ``drop_unseen_missing``: ``or is missing`` goes only when no row misses the feature; a nearly full
  ``not in`` set becomes the positive test only when no row has a value outside the domain.
- the refusals' messages.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from rulekit.errors import RulekitError
from rulekit.ir.model import Feature
from rulekit.rules import engine
from rulekit.rules.base import TRUE, And, Compare, Conclusion, InSet, IsMissing, Or, Rule, RuleBase
from rulekit.rules.boxes import (HIGH, LOW, Box, LiteralSchema, NomSet, NumSet, box_condition, condition_boxes,
                                 count_literals)
from rulekit.rules.prune import _prune_pessimistic, box_of, drop_unseen_missing, pessimistic, units_of
from tests.rules.test_prune_mutants_passes import FEATURES, GRID, _case, _conj, _truth


def C(f, op, v):
    return Compare(feature=f, op=op, value=v)


def _rb(*rules, default="q", task="classification", features=FEATURES) -> RuleBase:
    out = tuple(Rule(id=f"r{i + 1}", condition=cond, conclusion=Conclusion(label=lab) if task == "classification"
                     else Conclusion(value=1.0)) for i, (cond, lab) in enumerate(rules))
    if task == "classification":
        return RuleBase(task=task, target="y", classes=("p", "q"), features=features, rules=out,
                        default=Conclusion(label=default), semantics="first-hit")
    return RuleBase(task=task, target="y", features=features, rules=out, default=Conclusion(value=0.0),
                    semantics="first-hit")


SCHEMA_RB = _rb()
SCHEMA = LiteralSchema(SCHEMA_RB)
EV = engine.Evaluator(SCHEMA, engine.matrix(SCHEMA_RB, GRID))


def _box(cond) -> Box:
    (box,) = condition_boxes(cond, SCHEMA)
    return box


def _box_truth(box: Box) -> list:
    return EV.true(box_condition(box, SCHEMA)).tolist()


BOXES = {
    "upper": (C("a", "<=", 1.5), [(0, "hi")]),
    "lower": (C("b", ">", 2.5), [(1, "lo")]),
    "range": (And(items=(C("a", ">", 0.5), C("a", "<=", 2.5))), [(0, "lo"), (0, "hi")]),
    "range or missing": (Or(items=(And(items=(C("a", ">", 0.5), C("a", "<=", 2.5))), IsMissing(feature="a"))),
                         [(0, "lo"), (0, "hi")]),
    "equality": (And(items=(C("a", ">=", 2.0), C("a", "<=", 2.0))), [(0, "all")]),
    "closed range": (And(items=(C("a", ">=", 1.0), C("a", "<=", 2.0))), [(0, "lo"), (0, "hi")]),
    "half-open range": (And(items=(C("a", ">=", 1.0), C("a", "<", 2.0))), [(0, "lo"), (0, "hi")]),
    "two intervals": (Or(items=(C("a", "<=", 0.5), C("a", ">", 2.5))), [(0, "all")]),
    "present": (IsMissing(feature="d", negated=True), [(3, "all")]),
    "set": (InSet(feature="c", values=("x", "z")), [(2, "all")]),
    "mixed": (And(items=(InSet(feature="c", values=("y",), negated=True), C("d", ">", 0.5), C("b", "<=", 3.5),
                         C("b", ">", 0.5), C("a", ">=", 1.0), C("a", "<=", 1.0))),
              [(2, "all"), (3, "lo"), (1, "lo"), (1, "hi"), (0, "all")]),
}


@pytest.mark.parametrize("name", sorted(BOXES))
def test_units_are_the_bounds_of_a_range_or_the_whole_constraint(name):
    cond, want = BOXES[name]
    box = _box(cond)
    units = units_of(box)
    assert [(u.key, u.part) for u in units] == want
    for u in units:
        c = box.items[u.key]
        if u.part == "all":
            assert u.constraint == c
        elif u.part == "lo":
            assert u.constraint == NumSet(((c.intervals[0][0], HIGH),), c.missing)
        else:
            assert u.constraint == NumSet(((LOW, c.intervals[0][1]),), c.missing)
    every = np.ones(len(GRID), bool)
    for u in units:
        every &= EV.member(u.key, u.constraint)
    assert every.tolist() == _box_truth(box)


@pytest.mark.parametrize("name", sorted(BOXES))
def test_a_box_of_some_units_is_their_conjunction(name):
    box = _box(BOXES[name][0])
    units = units_of(box)
    for r in range(len(units) + 1):
        for keep in itertools.combinations(units, r):
            sub = box_of(box, list(keep))
            want = np.ones(len(GRID), bool)
            for u in keep:
                want &= EV.member(u.key, u.constraint)
            assert _box_truth(sub) == want.tolist(), [(u.key, u.part) for u in keep]
            assert set(sub.items) == {u.key for u in keep}


@pytest.mark.parametrize("seed", range(40))
def test_pessimistic_keeps_what_prune_pessimistic_keeps_for_the_rules_class(seed):
    rb, lits, X, y = _case(2000 + seed)
    cf = (0.25, 0.1, 0.6)[seed % 3]
    out = pessimistic(rb, X, y, cf=cf) if cf != 0.25 else pessimistic(rb, X, y)
    truth, grid = _truth(rb, X), _truth(rb, GRID)
    assert [r.id for r in out.rules] == [r.id for r in rb.rules]
    for r, src, lit in zip(out.rules, rb.rules, lits):
        assert r.conclusion == src.conclusion
        if lit is None:
            assert r.condition == src.condition
            continue
        T = np.array([truth(x) for x in lit], dtype=bool).reshape(len(lit), len(X))
        keep = _prune_pessimistic(T, y == src.conclusion.label, cf)
        kept = [x for x, k in zip(lit, keep) if k]
        assert grid(r.condition).tolist() == _conj(grid, kept, len(GRID)).tolist(), (r.id, kept)
    assert out.default == rb.default and out.classes == rb.classes


def _groups(groups):
    """(how many rows, which conditions they fail, of the rule's class?) -> T, good."""
    k = 1 + max(max(fail, default=-1) for _, fail, _ in groups)
    cols = [[u not in fail for u in range(k)] for n, fail, _ in groups for _ in range(n)]
    return np.array(cols, dtype=bool).T, np.array([g for n, _, g in groups for _ in range(n)], dtype=bool)


def test_the_confidence_factor_reaches_both_estimates():
    T, good = _groups([(4, (), True), (13, (1,), True), (3, (0, 2), False), (3, (1,), False), (1, (), False),
                       (3, (), True)])
    assert [_prune_pessimistic(T, good, cf) for cf in (0.25, 0.6)] == [[False, False, True], [False, True, True]]
    T, good = _groups([(9, (), True), (11, (0, 2), True), (13, (), False), (7, (0,), True), (10, (0,), False),
                       (3, (), True)])
    assert [_prune_pessimistic(T, good, cf) for cf in (0.25, 0.05)] == [[True, False, False], [False, True, False]]


def _frame(a, c):
    n = len(a)
    return pd.DataFrame({"a": np.array(a, float), "b": np.zeros(n), "c": pd.Series(c, dtype=object),
                         "d": np.zeros(n)})


def test_missing_sides_go_only_when_no_row_misses_the_feature():
    or_missing = Or(items=(C("a", "<=", 1.5), IsMissing(feature="a")))
    only_missing = IsMissing(feature="a")
    rb = _rb((or_missing, "p"), (only_missing, "p"), (And(items=(C("b", "<=", 1.0), or_missing)), "p"))
    y = np.array(["p", "q", "p"])
    out = drop_unseen_missing(rb, _frame([0.0, 2.0, 1.0], ["x", "y", "z"]), y)
    assert [r.condition for r in out.rules] == [C("a", "<=", 1.5), only_missing,
                                                And(items=(C("b", "<=", 1.0), C("a", "<=", 1.5)))]
    assert [r.id for r in out.rules] == ["r1", "r2", "r3"]
    seen = drop_unseen_missing(rb, _frame([0.0, np.nan, 1.0], ["x", "y", "z"]), y)
    assert seen.rules == rb.rules
    # a missing nominal value is not a value outside the domain, and the reverse
    rb_c = _rb((Or(items=(InSet(feature="c", values=("x",)), IsMissing(feature="c"))), "p"),
               (InSet(feature="c", values=("x", "y"), negated=True), "p"))
    out = drop_unseen_missing(rb_c, _frame([0.0, 1.0, 2.0], ["x", None, "y"]), y)
    assert out.rules[0].condition == rb_c.rules[0].condition
    assert out.rules[1].condition == C("c", "=", "z")
    out = drop_unseen_missing(rb_c, _frame([0.0, 1.0, 2.0], ["x", "w", "y"]), y)
    assert out.rules[0].condition == C("c", "=", "x")
    assert out.rules[1].condition == rb_c.rules[1].condition


def test_each_feature_is_judged_by_its_own_column():
    or_missing = Or(items=(C("a", "<=", 1.5), IsMissing(feature="a")))
    not_xy = InSet(feature="c", values=("x", "y"), negated=True)
    rb = _rb((or_missing, "p"), (not_xy, "p"), (Or(items=(not_xy, IsMissing(feature="c"))), "p"))
    X = _frame([0.0, 2.0, 1.0], ["x", None, "y"]).assign(b=[-1.0, 0.0, 2.0], d=[np.nan, 1.0, 0.0])
    out = drop_unseen_missing(rb, X, np.array(["p", "q", "p"]))
    # d's missing value and b's -1.0 say nothing of a or c; c's missing value keeps c's missing side
    assert [r.condition for r in out.rules] == [C("a", "<=", 1.5), C("c", "=", "z"),
                                                Or(items=(C("c", "=", "z"), IsMissing(feature="c")))]


def test_only_a_nearly_full_not_in_becomes_the_positive_test():
    dom4 = FEATURES[:2] + (Feature(name="c", kind="nominal", domain=("v", "x", "y", "z")),) + FEATURES[3:]
    rules = [(InSet(feature="c", values=("x",), negated=True), "p"),  # 3 values left of 4: kept
             (InSet(feature="c", values=("x", "y"), negated=True), "p"),  # 2 of 4: the positive test
             (InSet(feature="c", values=("v", "x", "y"), negated=True), "p"),  # 1 of 4
             (InSet(feature="c", values=("v", "x", "y", "z"), negated=True), "p"),  # no value: kept
             (And(items=(C("a", "<=", 5.0), InSet(feature="c", values=("x", "y"), negated=True))), "p")]
    rb = _rb(*rules, features=dom4)
    X = _frame([0.0] * 4, ["v", "x", "y", "z"])
    y = np.array(["p", "q", "p", "q"])
    out = drop_unseen_missing(rb, X, y)
    assert [r.condition for r in out.rules] == [
        rules[0][0], InSet(feature="c", values=("v", "z")), C("c", "=", "z"), rules[3][0],
        And(items=(C("a", "<=", 5.0), InSet(feature="c", values=("v", "z"))))]
    assert out.predict(X).tolist() == rb.predict(X).tolist()
    assert drop_unseen_missing(rb, _frame([0.0] * 4, ["v", "x", "w", "z"]), y).rules == rb.rules


def test_rules_that_are_not_one_conjunction_are_kept():
    two = Or(items=(And(items=(C("a", "<=", 1.0), IsMissing(feature="b"))), C("b", ">", 2.0)))
    rb = _rb((two, "p"), (TRUE, "p"))
    X = _frame([0.0, 2.0, 1.0], ["x", "y", "z"])
    y = np.array(["p", "q", "p"])
    assert drop_unseen_missing(rb, X, y).rules == rb.rules
    assert pessimistic(rb, X, y).rules[0] == rb.rules[0]


def test_refusals_say_what_is_wrong():
    X = _frame([0.0, 1.0], ["x", "y"])
    for fn in (pessimistic, drop_unseen_missing):
        with pytest.raises(RulekitError, match="^rule pruning needs a classification rule base$"):
            fn(_rb((C("a", "<=", 1.0), None), task="regression"), X, np.array([1.0, 2.0]))
        with pytest.raises(RulekitError, match=r"^prune data: 2 rows but 3 labels$"):
            fn(_rb((C("a", "<=", 1.0), "p")), X, np.array(["p", "q", "p"]))
