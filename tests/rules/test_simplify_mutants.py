"""Exact simplification (``rules/simplify.py``): the behaviours mutation testing found untested
(issue #23): a condition too big to expand is kept as written, the user's factored form is kept
when its DNF is longer, never-true rules go, and ``drop_shadowed`` drops pre-empted rules only
within their group and trailing rules that conclude the default only without a combiner. Every
case also checks that predictions are unchanged. docs/testing.md lists the run and the survivors.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from rulekit.ir.model import Combiner, Feature
from rulekit.rules.base import And, Compare, Conclusion, Or, Rule, RuleBase
from rulekit.rules.boxes import count_literals
from rulekit.rules.simplify import drop_shadowed, simplify

NAMES = ("a", "b", "c", "d")
FEATURES = tuple(Feature(name=n) for n in NAMES)
VALUES = [0.5, 1.0, np.nextafter(1.0, 2.0), 1.5, 2.0, 2.5, np.nan]
GRID = pd.DataFrame(list(itertools.product(VALUES, repeat=len(NAMES))), columns=list(NAMES))


def C(f, op, v):
    return Compare(feature=f, op=op, value=v)


def _rb(*rules, default="q", semantics="first-hit", combiner=None, features=FEATURES) -> RuleBase:
    out = tuple(Rule(id=r[2] if len(r) > 2 else f"r{i + 1}", condition=r[0], conclusion=Conclusion(label=r[1]),
                     group=r[3] if len(r) > 3 else 0) for i, r in enumerate(rules))
    kw = {"combiner": combiner} if combiner is not None else {}
    return RuleBase(task="classification", target="y", classes=("p", "q"), features=features, rules=out,
                    default=Conclusion(label=default) if default is not None else None, semantics=semantics, **kw)


def _same(a: RuleBase, b: RuleBase, frame=GRID) -> None:
    assert a.predict(frame).tolist() == b.predict(frame).tolist()


def test_a_condition_too_big_to_expand_is_kept_as_written():
    feats = tuple(Feature(name=f"{c}{j}") for j in range(9) for c in "fg")
    big = And(items=tuple(Or(items=(C(f"f{j}", "<=", 0.0), C(f"g{j}", "<=", 0.0))) for j in range(9)))  # 512 boxes
    rb = _rb((big, "p"), (And(items=(C("f0", ">", 2.0), C("f0", ">", 5.0))), "p"), features=feats)
    out = simplify(rb)
    assert out.rules[0].condition == big
    assert out.rules[1].condition == C("f0", ">", 5.0)  # the next rule is still simplified


def test_the_factored_form_stays_when_its_dnf_is_longer():
    factored = And(items=(Or(items=(C("a", "<=", 1.0), C("b", "<=", 1.0))),
                          Or(items=(C("c", "<=", 1.0), C("d", "<=", 1.0)))))  # 4 literals; DNF: 4 terms, 8
    absorbed = And(items=(Or(items=(C("a", "<=", 1.0), C("b", "<=", 1.0))), C("a", "<=", 1.0)))  # = a <= 1
    rb = _rb((factored, "p"), (absorbed, "p"))
    out = simplify(rb)
    assert out.rules[0].condition == factored
    assert out.rules[1].condition == C("a", "<=", 1.0)
    assert count_literals(out.rules[1].condition) == 1
    _same(out, rb)


def test_never_true_rules_go_and_the_others_keep_their_ids():
    rb = _rb((And(items=(C("a", ">", 2.0), C("a", "<=", 1.0))), "p"), (C("b", "<=", 1.0), "p"),
             (C("a", ">", 2.0), "q"), semantics="vote")
    out = simplify(rb)
    assert [r.id for r in out.rules] == ["r2", "r3"]  # vote: the trailing default-class rule stays
    _same(out, rb)


def test_first_hit_drops_preempted_rules_and_trailing_default_rules():
    rb = _rb((C("a", "<=", 2.0), "p"), (C("a", "<=", 1.0), "q"),  # r2 pre-empted by r1
             (C("b", "<=", 1.0), "q"), (C("c", "<=", 1.0), "p"),  # r3 concludes the default but r4 follows
             (C("d", "<=", 1.0), "q"), (C("d", ">", 2.0), "q"))  # trailing: both conclude the default
    out = simplify(rb)
    assert [r.id for r in out.rules] == ["r1", "r3", "r4"]
    _same(out, rb)
    assert [r.id for r in drop_shadowed(rb).rules] == ["r1", "r3", "r4"]


def test_only_rules_of_the_same_group_preempt_and_a_combiner_keeps_trailing_rules():
    rules = [(C("a", "<=", 2.0), "p", "r1", 0), (C("a", "<=", 1.0), "q", "r2", 1), (C("a", "<=", 1.5), "q", "r3", 0),
             (C("b", "<=", 1.0), "q", "r4", 1)]
    rb = _rb(*rules, combiner=Combiner(kind="vote"))
    out = drop_shadowed(rb)
    assert [r.id for r in out.rules] == ["r1", "r2", "r4"]  # r3 pre-empted within group 0; r4 (= default) stays
    assert simplify(rb).rules == out.rules


def test_nothing_to_drop_returns_the_same_rule_base():
    rb = _rb((C("a", "<=", 1.0), "p"), (C("b", "<=", 1.0), "q", "r2"), (C("c", "<=", 1.0), "p"))
    assert drop_shadowed(rb) is rb
    no_default = _rb((C("a", "<=", 1.0), "p"), (C("b", "<=", 1.0), "q"), default=None)
    assert [r.id for r in drop_shadowed(no_default).rules] == ["r1", "r2"]


def test_the_dnf_replaces_a_longer_written_form_and_keeps_a_shorter_one():
    longer = Or(items=(And(items=(C("a", "<=", 1.0), C("b", "<=", 1.0))), And(items=(C("a", "<=", 1.0),
                                                                                   C("b", ">", 1.0))),
                       C("c", "<=", 1.0)))  # 5 literals; DNF "(a <= 1 and b is not missing) or c <= 1": 3
    two_terms = And(items=(Or(items=(C("a", "<=", 1.0), C("b", "<=", 1.0))), C("c", "<=", 1.0)))  # 3; DNF 4
    rb = _rb((longer, "p"), (two_terms, "p"), semantics="vote")  # vote: r1 does not pre-empt r2
    out = simplify(rb)
    assert count_literals(out.rules[0].condition) == 3
    assert out.rules[1].condition == two_terms
    _same(out, rb)


def test_errors_name_the_rule_by_id_or_position():
    rb = _rb((C("a", "<=", 1.0), "p"), (C("zz", "<=", 1.0), "p", "bad"))
    with pytest.raises(Exception, match="^rule bad: "):
        simplify(rb)
    rb = rb.model_copy(update={"rules": (rb.rules[0], rb.rules[1].model_copy(update={"id": None}))})
    with pytest.raises(Exception, match="^rule #2: "):
        simplify(rb)


def test_every_preempted_rule_goes_and_trailing_default_rules_go_past_dropped_ones():
    rb = _rb((C("a", "<=", 2.0), "p"), (C("a", "<=", 1.0), "q"), (C("b", "<=", 1.0), "p"),
             (C("a", "<=", 0.5), "p"), (C("c", "<=", 1.0), "q"), (C("b", "<=", 0.5), "p"))
    # r2, r4 pre-empted by r1; r6 by r3; r5 then trails and concludes the default
    assert [r.id for r in drop_shadowed(rb).rules] == ["r1", "r3"]
    _same(drop_shadowed(rb), rb)
    only = _rb((C("a", "<=", 1.0), "q"))  # the first rule too can be a trailing default rule
    assert drop_shadowed(only).rules == ()
