"""DNF merging keeps every label: a property test over random first-hit rule lists.

Rules move up only past rules of other classes they cannot overlap; these lists are built so that
rules of one class are interleaved with overlapping rules of other classes, where moving a rule
past such a rule would change the label of the rows in the overlap.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.ir.model import Feature
from rulekit.rules.base import And, Compare, Conclusion, Rule, RuleBase
from rulekit.rules.dnf import dnf

from tests.marks import lane_examples

FEATURES = ("a", "b", "c")
CUTS = (1.0, 2.0, 3.0)
CLASSES = ("p", "q", "r")


@st.composite
def rule_lists(draw) -> RuleBase:
    rules = []
    for i in range(draw(st.integers(2, 7))):
        lits = draw(st.lists(st.tuples(st.sampled_from(FEATURES), st.sampled_from(["<=", ">"]),
                                       st.sampled_from(CUTS)), min_size=1, max_size=3))
        items = tuple(Compare(feature=f, op=op, value=v) for f, op, v in lits)
        cond = items[0] if len(items) == 1 else And(items=items)
        rules.append(Rule(id=f"r{i + 1}", condition=cond,
                          conclusion=Conclusion(label=draw(st.sampled_from(CLASSES)))))
    return RuleBase(task="classification", target="y", classes=CLASSES,
                    features=tuple(Feature(name=f) for f in FEATURES), rules=tuple(rules),
                    default=Conclusion(label=draw(st.sampled_from(CLASSES))), semantics="first-hit")


# every cell of the grid the cuts make (a point inside each interval), so any label change shows
GRID = np.array(list(itertools.product([0.5, 1.5, 2.5, 3.5], repeat=len(FEATURES))))


@settings(max_examples=lane_examples(300), deadline=None)
@given(rule_lists())
def test_dnf_merging_never_changes_a_label(rb):
    merged = dnf(rb)
    assert merged.predict(GRID).tolist() == rb.predict(GRID).tolist()


def test_a_rule_does_not_move_past_an_overlapping_rule_of_another_class():
    """r3 (p) overlaps r2 (q): merged into r1's group it would claim r2's rows."""
    x = Compare(feature="a", op="<=", value=1.0)
    rb = RuleBase(task="classification", target="y", classes=CLASSES,
                  features=tuple(Feature(name=f) for f in FEATURES),
                  rules=(Rule(id="r1", condition=x, conclusion=Conclusion(label="p")),
                         Rule(id="r2", condition=Compare(feature="b", op="<=", value=1.0),
                              conclusion=Conclusion(label="q")),
                         Rule(id="r3", condition=Compare(feature="a", op="<=", value=2.0),
                              conclusion=Conclusion(label="p"))),
                  default=Conclusion(label="r"), semantics="first-hit")
    point = np.array([[1.5, 0.5, 0.5]])  # r2 decides: q
    assert rb.predict(point).tolist() == ["q"]
    assert dnf(rb).predict(point).tolist() == ["q"]
