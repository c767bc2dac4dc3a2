"""DNF merging (``rules/dnf.py``): the behaviours mutation testing found untested (issue #23).

Each test pins an output a mutant of ``dnf.py`` changed while every older test passed: the
refusals' messages, which class becomes the default (base default, largest DNF, ties), the
``positive`` and ``merge`` options, neighbours of one class joined after the default's rules go,
rule ids, and the merged rules' class distributions with and without data. docs/testing.md lists
the run and the mutants left alive.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from rulekit.errors import RulekitError
from rulekit.ir.model import Feature
from rulekit.rules.base import And, Compare, Conclusion, IsMissing, Or, Rule, RuleBase
from rulekit.ir.model import Combiner
from rulekit.rules.boxes import count_literals
from rulekit.rules.dnf import dnf

FEATURES = tuple(Feature(name=n) for n in ("a", "b"))
GRID = pd.DataFrame(list(itertools.product([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, np.nextafter(1.0, 2.0),
                                            np.nextafter(2.0, 0.0), np.nan], repeat=2)), columns=["a", "b"])


def C(f, op, v):
    return Compare(feature=f, op=op, value=v)


def _rb(*rules, default="r", classes=("p", "q", "r"), **kw) -> RuleBase:
    out = []
    for i, r in enumerate(rules):
        cond, label = r[0], r[1]
        stats = r[2] if len(r) > 2 else {}
        concl = Conclusion(label=label, distribution=r[3]) if len(r) > 3 else Conclusion(label=label)
        out.append(Rule(id=f"x{i + 1}", condition=cond, conclusion=concl, stats=stats))
    return RuleBase(task="classification", target="y", classes=classes, features=FEATURES, rules=tuple(out),
                    default=Conclusion(label=default) if default is not None else None, semantics="first-hit", **kw)


def _labels(rb: RuleBase) -> list:
    return [r.conclusion.label for r in rb.rules]


def test_refusals_name_what_dnf_needs():
    reg = RuleBase(task="regression", target="y", features=FEATURES, semantics="first-hit",
                   rules=(Rule(condition=C("a", "<=", 1.0), conclusion=Conclusion(value=1.0)),),
                   default=Conclusion(value=0.0))
    with pytest.raises(RulekitError, match="^DNF merging needs a single classification tree's rule base$"):
        dnf(reg)
    boosted = _rb((C("a", "<=", 1.0), "p"), combiner=Combiner(kind="vote"))
    with pytest.raises(RulekitError, match="^DNF merging needs a single classification tree's rule base$"):
        dnf(boosted)
    with pytest.raises(RulekitError, match="^DNF merging works on a first-hit rule list$"):
        dnf(_rb((C("a", "<=", 1.0), "p")).model_copy(update={"semantics": "vote"}))


def _and_of_ors(n: int) -> And:
    """``(f0 <= 0 or g0 <= 0) and (f1 <= 0 or g1 <= 0) and ...``: 2**n boxes."""
    return And(items=tuple(Or(items=(C(f"f{j}", "<=", 0.0), C(f"g{j}", "<=", 0.0))) for j in range(n)))


def test_a_condition_of_up_to_1024_boxes_merges_and_more_is_refused_by_rule_name():
    feats = tuple(Feature(name=f"{c}{j}") for j in range(11) for c in "fg")

    def rb(cond):
        return RuleBase(task="classification", target="y", classes=("p", "q"), features=feats, semantics="first-hit",
                        rules=(Rule(id="big", condition=cond, conclusion=Conclusion(label="p")),),
                        default=Conclusion(label="q"))

    assert len(dnf(rb(_and_of_ors(10))).rules) == 1  # 1,024 boxes (above the boxes' default limit of 256)
    with pytest.raises(RulekitError, match="^rule big: condition too complex to merge$"):
        dnf(rb(_and_of_ors(11)))


def test_merge_is_on_by_default_and_off_keeps_each_source_rule():
    # r3 moves up past r2 (disjoint) into r1's group
    rb = _rb((C("a", "<=", 1.0), "p"), (C("a", ">", 3.0), "q"), (C("b", "<=", 1.0), "p"))
    rb = rb.model_copy(update={"rules": rb.rules[:1] + (rb.rules[1].model_copy(
        update={"condition": And(items=(C("a", ">", 3.0), C("b", ">", 1.0)))}),) + rb.rules[2:]})
    merged, kept = dnf(rb), dnf(rb, merge=False)
    assert _labels(merged) == ["p", "q"]
    assert _labels(kept) == ["p", "q", "p"]
    for out in (merged, kept):
        assert out.predict(GRID).tolist() == rb.predict(GRID).tolist()


def test_incomplete_rules_keep_the_base_default_and_drop_its_rules():
    for default in ("p", "r"):  # class index 0 and 2
        other = "q"
        rb = _rb((C("a", "<=", 1.0), other), (And(items=(C("a", ">", 1.0), C("b", "<=", 1.0))), default),
                 (And(items=(C("a", ">", 2.0), C("b", ">", 2.0))), other), default=default)
        out = dnf(rb)
        assert out.default.label == default
        assert _labels(out) == [other]
        assert out.predict(GRID).tolist() == rb.predict(GRID).tolist()


def test_without_a_default_every_group_stays():
    rb = _rb((C("a", "<=", 1.0), "p"), (C("b", "<=", 1.0), "q"), (C("a", ">", 3.0), "p"), default=None)
    out = dnf(rb)
    assert out.default is None
    assert _labels(out) == ["p", "q", "p"]  # r3 overlaps r2: it cannot move up
    assert [r.id for r in out.rules] == ["r1", "r2", "r3"]
    assert out.predict(GRID).tolist() == rb.predict(GRID).tolist()


def _cells(*labels, train=None, classes=("p", "q", "r")) -> RuleBase:
    """Complete, exclusive path rules over ``a``: cell k is (k, k+1] (the first also takes a
    missing ``a``, the last is open), concluding ``labels[k]``; ``train``: train_n per cell."""
    n = len(labels)
    rules = []
    for k, lab in enumerate(labels):
        parts = ([C("a", ">", float(k))] if k else []) + ([C("a", "<=", float(k + 1))] if k < n - 1 else [])
        cond = parts[0] if len(parts) == 1 else And(items=tuple(parts))
        if k == 0:
            cond = Or(items=(cond, IsMissing(feature="a")))
        rules.append((cond, lab, {"train_n": float(train[k])} if train else {}))
    return _rb(*rules, default="q", classes=classes)


def test_complete_exclusive_rules_make_the_largest_dnf_the_default():
    rb = _cells("p", "q", "p", "r")  # p: two cells (most literals); the base default q, the last class r
    out = dnf(rb)
    assert out.default.label == "p"
    assert _labels(out) == ["q", "r"]
    assert [r.id for r in out.rules] == ["r1", "r2"]
    assert out.predict(GRID).tolist() == rb.predict(GRID).tolist()


def test_equal_literals_go_to_more_training_cases_then_to_the_earlier_class():
    # s: "a <= 1 or a is missing" (1 literal), p: "a > 1 and a <= 2", q: "a > 2 and a <= 3" (2 each), r: "a > 3"
    four = ("p", "q", "r", "s")
    assert dnf(_cells("s", "p", "q", "r", classes=four)).default.label == "p"
    assert dnf(_cells("s", "p", "q", "r", train=[20, 5, 9, 1], classes=four)).default.label == "q"
    assert dnf(_cells("s", "p", "q", "r", train=[20, 9, 5, 1], classes=four)).default.label == "p"


def test_positive_keeps_that_class_only():
    rb = _cells("p", "q", "p", "r")
    for pos in ("p", "q", "r"):
        out = dnf(rb, positive=pos)
        assert set(_labels(out)) == {pos} and out.default.label != pos
        assert (out.predict(GRID) == pos).tolist() == (rb.predict(GRID) == pos).tolist()
    # incomplete rules whose base default is the positive class: another class becomes the default
    inc = _rb((C("a", "<=", 1.0), "q"), (C("b", "<=", 1.0), "p"), (C("a", ">", 3.0), "r"), default="p")
    out = dnf(inc, positive="p")
    assert _labels(out) == ["p"] and out.default.label in ("q", "r")
    with pytest.raises(RulekitError, match="positive class: label 'z' is not one of the classes"):
        dnf(rb, positive="z")


def test_neighbours_of_one_class_join_once_the_default_rules_between_them_go():
    rb = _rb((C("a", "<=", 1.0), "p"), (And(items=(C("a", ">", 2.0), C("a", "<=", 3.0))), "r"),
             (C("a", ">", 4.0), "p"), default="r")
    out = dnf(rb, merge=False)
    assert _labels(out) == ["p"] and out.rules[0].id == "r1"
    assert count_literals(out.rules[0].condition) == 2
    assert out.predict(GRID).tolist() == rb.predict(GRID).tolist()


def test_distributions_mix_the_merged_rules_by_training_cases_or_count_the_data():
    rb = _rb((C("a", "<=", 1.0), "p", {"train_n": 10.0}, (0.8, 0.2, 0.0)),
             (And(items=(C("a", ">", 1.0), C("a", "<=", 2.0), C("b", "<=", 1.0))), "r", {"train_n": 4.0},
              (0.25, 0.0, 0.75)),
             (C("a", ">", 3.0), "p", {"train_n": 30.0}, (0.6, 0.4, 0.0)), default="r")
    out = dnf(rb)
    assert _labels(out) == ["p"]
    np.testing.assert_allclose(out.rules[0].conclusion.distribution, (26 / 40, 14 / 40, 0.0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(out.default.distribution, (0.25, 0.0, 0.75), rtol=0, atol=1e-15)  # r2's mix
    X = pd.DataFrame({"a": [0.5, 0.5, 0.5, 3.5, 1.5, 2.0, np.nan], "b": [5.0, 5.0, 5.0, 5.0, 0.5, 5.0, 5.0]})
    y = ["p", "q", "q", "p", "r", "q", "r"]
    out = dnf(rb, X, y)
    np.testing.assert_allclose(out.rules[0].conclusion.distribution, (0.5, 0.5, 0.0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(out.default.distribution, (0.0, 1 / 3, 2 / 3), rtol=0, atol=1e-15)
    assert out.predict(GRID).tolist() == rb.predict(GRID).tolist()


def test_mdl_with_data_drops_a_term_that_does_not_pay_for_itself():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0, 4, 400), rng.uniform(0, 4, 400)
    y = np.where(a <= 1.0, "p", "q")
    noise = (a > 3.5) & (b <= 0.5)
    rb = _rb((C("a", "<=", 1.0), "p"), (And(items=(C("a", ">", 3.5), C("b", "<=", 0.5))), "p"), default="q",
             classes=("p", "q"))
    X = pd.DataFrame({"a": a, "b": b})
    assert noise.sum() >= 1
    plain, mdl = dnf(rb, X, y), dnf(rb, X, y, mdl=True)
    assert count_literals(plain.rules[0].condition) == 3  # data alone changes no term
    assert count_literals(mdl.rules[0].condition) == 1
    assert dnf(rb, mdl=True).rules[0].condition == plain.rules[0].condition  # mdl needs data
    # the noisy term first: MDL keeps the term that covers the class, not the first one
    rb = rb.model_copy(update={"rules": rb.rules[::-1]})
    assert mdl.rules[0].condition == dnf(rb, X, y, mdl=True).rules[0].condition == C("a", "<=", 1.0)


def test_errors_inside_a_condition_name_the_rule():
    rb = _rb((C("a", "<=", 1.0), "p"), (C("zz", "<=", 1.0), "q"))
    with pytest.raises(RulekitError, match="^rule x2: "):
        dnf(rb)


def test_complete_but_overlapping_rules_keep_the_base_default():
    # p and q overlap on (1, 2]: not exclusive, so only the base default (r) may become the default
    rb = _rb((Or(items=(C("a", "<=", 2.0), IsMissing(feature="a"))), "p"), (C("a", ">", 1.0), "q"))
    out = dnf(rb)
    assert out.default.label == "r" and _labels(out) == ["p", "q"]
    assert out.predict(GRID).tolist() == rb.predict(GRID).tolist()
    # p2 overlaps p1 (same class: still exclusive); p1 overlaps q only after that same-class pair
    rb = _rb((Or(items=(C("a", "<=", 2.0), IsMissing(feature="a"))), "p"), (C("a", "<=", 0.5), "p"),
             (C("a", ">", 1.0), "q"))
    assert dnf(rb, merge=False).default.label == "r"
    # same-class overlap only, classes disjoint: exclusive, so the largest DNF (p) is the default
    rb = _rb((Or(items=(C("a", "<=", 1.0), IsMissing(feature="a"))), "p"), (C("a", "<=", 0.5), "p"),
             (C("a", ">", 1.0), "q"))
    out = dnf(rb, merge=False)
    assert out.default.label == "p" and _labels(out) == ["q"]


def test_a_default_group_goes_even_when_a_later_rule_of_its_own_class_overlaps_it():
    rb = _rb((C("a", "<=", 1.0), "r"), (C("a", ">", 3.0), "p"), (C("a", "<=", 2.0), "r"), default="r")
    out = dnf(rb, merge=False)
    assert _labels(out) == ["p"]
    assert out.predict(GRID).tolist() == rb.predict(GRID).tolist()


def test_ties_count_training_cases_not_rules():
    # s: 1 literal; p: "a > 1 and a <= 2" (one rule); q: "a > 2 and a <= 4" (two rules joined); r: "a > 4"
    four = ("p", "q", "r", "s")
    assert dnf(_cells("s", "p", "q", "q", "r", classes=four)).default.label == "p"


def test_positive_with_a_base_default_or_none():
    inc = _rb((C("a", "<=", 1.0), "p"), (And(items=(C("a", ">", 2.0), C("b", ">", 2.0), C("b", "<=", 3.0))), "r"),
              default="q")
    out = dnf(inc, positive="p")
    assert _labels(out) == ["p"] and out.default.label == "q"  # the base default, though r's DNF is larger
    out = dnf(inc.model_copy(update={"default": None}), positive="p")
    assert _labels(out) == ["p"] and out.default.label == "r"  # no default: the largest other class


def test_distribution_weights_default_to_one_training_case():
    rb = _rb((C("a", "<=", 1.0), "p", {"train_n": 3.0}, (1.0, 0.0, 0.0)),
             (And(items=(C("a", ">", 1.0), C("a", "<=", 2.0), C("b", "<=", 1.0))), "r"),
             (C("a", ">", 3.0), "p", {}, (0.0, 1.0, 0.0)), default="r")
    out = dnf(rb)
    np.testing.assert_allclose(out.rules[0].conclusion.distribution, (0.75, 0.25, 0.0), rtol=0, atol=1e-15)
    one = dnf(_rb((C("a", "<=", 1.0), "p", {}, (0.8, 0.2, 0.0)), default="r"))
    np.testing.assert_allclose(one.rules[0].conclusion.distribution, (0.8, 0.2, 0.0), rtol=0, atol=1e-15)
    X = pd.DataFrame({"a": [0.5], "b": [0.5]})
    assert dnf(rb, X).rules[0].conclusion.distribution == out.rules[0].conclusion.distribution  # y needed too
