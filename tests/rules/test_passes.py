"""Simplification, DNF merging, pruning and statistics."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.errors import RulekitError
from rulekit.ir.model import Feature
from rulekit.rules import text
from rulekit.rules.base import And, Compare, Conclusion, InSet, IsMissing, Not, Or, Rule, RuleBase
from rulekit.rules.boxes import count_literals
from rulekit.rules.prune import ucf
from rulekit.rules.simplify import simplify
from rulekit.rules.stats import annotate, base_stats
from tests import zoo
from tests.rules.helpers import playgolf, playgolf_id3

FEATS = (Feature(name="x"), Feature(name="age"),
         Feature(name="color", kind="nominal", domain=("a", "b", "c")))


def _rb(*conds, precision="float64", semantics="first-hit"):
    rules = tuple(Rule(id=f"r{i + 1}", condition=c, conclusion=Conclusion(label="p")) for i, c in enumerate(conds))
    return RuleBase(task="classification", classes=("p", "q"), features=FEATS, rules=rules,
                    default=Conclusion(label="q"), precision=precision, semantics=semantics)


def _simplified(cond, **kw) -> str:
    rb = simplify(_rb(cond, **kw))
    return text.condition(rb.rules[0].condition) if rb.rules else "<dropped>"


def C(f, op, v):
    return Compare(feature=f, op=op, value=v)


@pytest.mark.parametrize("cond, want", [
    (And(items=(C("x", ">", 2.0), C("x", ">", 5.0))), "x > 5"),
    (And(items=(C("age", ">", 20.0), C("x", "<=", 1.0), C("age", "<=", 40.0), C("age", "<=", 60.0))),
     "age > 20 and age <= 40 and x <= 1"),
    (And(items=(InSet(feature="color", values=("a", "b")), C("color", "!=", "b"))), "color = a"),
    (And(items=(C("x", "<=", 5.0), Or(items=(C("x", "<=", 9.0), IsMissing(feature="x"))))), "x <= 5"),
    (And(items=(Or(items=(C("x", "<=", 5.0), IsMissing(feature="x"))), Or(items=(C("x", "<=", 3.0),
                                                                                    IsMissing(feature="x"))))),
     "x <= 3 or x is missing"),
    (Or(items=(C("x", "<=", 5.0), C("x", ">", 5.0))), "x is not missing"),
    (Or(items=(C("x", "<=", 5.0), C("x", ">", 5.0), IsMissing(feature="x"))), "true"),
    (Or(items=(And(items=(C("x", "<=", 1.0), C("color", "=", "a"))), And(items=(C("x", "<=", 1.0),
                                                                                  C("color", "=", "b"))))),
     "x <= 1 and color in {a, b}"),
    (Or(items=(And(items=(C("x", "<=", 1.0), C("age", "<=", 3.0))), C("x", "<=", 2.0))), "x <= 2"),
    (Not(item=Or(items=(C("x", "<=", 1.0), C("color", "!=", "a")))), "x > 1 and color = a"),
    (And(items=(C("x", ">", 5.0), C("x", "<=", 2.0))), "<dropped>"),
    (And(items=(C("x", ">=", 3.0), C("x", "<=", 3.0))), "x = 3"),
])
def test_simplify_cases(cond, want):
    assert _simplified(cond) == want


def test_simplify_keeps_float32_semantics():
    # float32(x) > 0.1 and x > 0.10000000149 (the float32 nearest 0.1): the first is tighter in float32
    cond = And(items=(C("x", ">", 0.1), C("x", ">", float(np.float32(0.1)) - 1e-12)))
    rb = _rb(cond, precision="float32")
    xs = np.array([[v, 0.0, np.nan] for v in np.nextafter(np.float32(0.1), [np.float32(-1), np.float32(2)]).tolist()
                   + [0.1, float(np.float32(0.1)), 0.10000001]])
    frame = pd.DataFrame(xs, columns=["x", "age", "color"]).astype({"color": object})
    assert simplify(rb).predict(frame).tolist() == rb.predict(frame).tolist()


@pytest.mark.parametrize("name", ["sklearn_tree_binary", "handmade_nominal", "sklearn_tree_multiclass_hostile"])
def test_dnf_keeps_labels_and_trims_a_default_class(name):
    model, data = zoo.get(name)
    rb = rulekit.to_rules(model, dnf=True)
    assert rb.predict(data).tolist() == model.predict(data).tolist()
    labels = [r.conclusion.label for r in rb.rules]
    assert len(labels) == len(set(labels)) == len(model.classes) - 1
    assert rb.default.label not in labels


def test_playgolf_two_rules_four_literals_without_holdout():
    model, df = playgolf_id3(), playgolf()
    for rb in (rulekit.to_rules(model, dnf=True),
               rulekit.to_rules(model, prune="pessimistic", prune_data=df),
               rulekit.to_rules(model, prune="pessimistic", prune_data=df, dnf=True)):
        assert rb.default.label == "yes"
        assert all(r.conclusion.label == "no" for r in rb.rules)
        assert sum(count_literals(r.condition) for r in rb.rules) == 4
        terms = [t for r in rb.rules for t in (r.condition.items if isinstance(r.condition, Or) else (r.condition,))]
        assert sorted(text.condition(t) for t in terms) == ["outlook = rainy and wind = strong",
                                                             "outlook = sunny and humidity = high"]
        assert (rb.predict(df) == df["play"]).all()


def test_ucf_matches_c45_table():
    # C4.5's U_0.25(0, 1) = 0.75, U(0, 6) = 1 - 0.25 ** (1/6); U grows with e and shrinks with n
    assert ucf(0, 1) == pytest.approx(0.75)
    assert ucf(0, 6) == pytest.approx(1 - 0.25 ** (1 / 6))
    assert ucf(1, 6) > ucf(0, 6) and ucf(1, 60) < ucf(1, 6)
    for e, n in [(2, 5), (1, 14), (7, 40)]:  # P(X <= e; n, U) = 0.25, by bisection
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            cdf = sum(math.comb(n, k) * mid ** k * (1 - mid) ** (n - k) for k in range(e + 1))
            lo, hi = (mid, hi) if cdf > 0.25 else (lo, mid)
        assert ucf(e, n) == pytest.approx(lo, abs=1e-9)


def test_pessimistic_pruning_generalizes_noisy_rules():
    rng = np.random.default_rng(0)
    n = 600
    X = pd.DataFrame({"x": rng.normal(size=n), "age": rng.uniform(0, 90, n),
                      "color": rng.choice(["a", "b", "c"], n)})
    y = np.where((X.x > 0) ^ (rng.random(n) < 0.05), "p", "q")
    # a rule with the right test plus two useless ones
    cond = And(items=(C("x", ">", 0.0), C("age", "<=", 85.0), C("color", "!=", "c")))
    rb = RuleBase(task="classification", classes=("p", "q"), features=FEATS, default=Conclusion(label="q"),
                  rules=(Rule(condition=cond, conclusion=Conclusion(label="p")),))
    out = rulekit.to_rules(rb, prune="pessimistic", prune_data=(X, y))
    assert [text.condition(r.condition) for r in out.rules] == ["x > 0"]


def test_reduced_error_uses_the_pruning_set():
    rng = np.random.default_rng(1)
    n = 400
    X = pd.DataFrame({"x": rng.normal(size=n), "age": rng.uniform(0, 90, n), "color": rng.choice(["a", "b", "c"], n)})
    y = np.where(X.x > 0, "p", "q")
    cond = And(items=(C("x", ">", 0.0), C("age", "<=", 85.0)))
    rb = RuleBase(task="classification", classes=("p", "q"), features=FEATS, default=Conclusion(label="q"),
                  rules=(Rule(condition=cond, conclusion=Conclusion(label="p")),))
    out = rulekit.to_rules(rb, prune="reduced-error", prune_data=(X, y))
    assert [text.condition(r.condition) for r in out.rules] == ["x > 0"]
    assert base_stats(out, X, y)["accuracy"] == 1.0


def test_pruning_a_sklearn_tree_keeps_accuracy_and_shrinks():
    from sklearn.datasets import load_breast_cancer
    from sklearn.tree import DecisionTreeClassifier

    d = load_breast_cancer()
    X = pd.DataFrame(d.data, columns=[f"f{i}" for i in range(30)])
    tr, te = np.arange(0, 569, 2), np.arange(1, 569, 2)
    model = rulekit.from_sklearn(DecisionTreeClassifier(random_state=0).fit(X.iloc[tr], d.target[tr]))
    full = rulekit.to_rules(model)
    for method in ("pessimistic", "reduced-error"):
        data = (X.iloc[tr], d.target[tr]) if method == "pessimistic" else (X.iloc[te[:140]], d.target[te[:140]])
        rb = rulekit.to_rules(model, prune=method, prune_data=data)
        lits = sum(count_literals(r.condition) for r in rb.rules)
        assert lits < sum(count_literals(r.condition) for r in full.rules) / 2
        acc = (rb.predict(X.iloc[te[140:]]) == d.target[te[140:]]).mean()
        assert acc >= (model.predict(X.iloc[te[140:]]) == d.target[te[140:]]).mean() - 0.03


def test_stats_on_data():
    model, df = playgolf_id3(), playgolf()
    rb = annotate(rulekit.to_rules(model), df, df["play"])
    r1 = rb.rules[0]  # outlook = sunny and humidity = high -> no
    assert r1.stats["n"] == 3 and r1.stats["e"] == 0 and r1.stats["confidence"] == 1.0
    assert r1.stats["laplace"] == pytest.approx(4 / 5)
    assert r1.stats["support"] == pytest.approx(3 / 14)
    assert r1.stats["lift"] == pytest.approx(1.0 / (5 / 14))
    s = base_stats(rb, df, df["play"], model=model)
    assert s["accuracy"] == 1.0 and s["fidelity"] == 1.0 and s["coverage"] == 1.0


def test_passes_refuse_what_they_cannot_do():
    model, data = zoo.get("sklearn_forest_classifier")
    with pytest.raises(RulekitError, match="single tree"):
        rulekit.to_rules(model, dnf=True)
    model, data = zoo.get("sklearn_tree_regressor")
    with pytest.raises(RulekitError, match="regression"):
        rulekit.to_rules(model, prune="pessimistic", prune_data=(data, np.zeros(len(data))))
    model, data = zoo.get("sklearn_tree_binary")
    with pytest.raises(RulekitError, match="needs data"):
        rulekit.to_rules(model, prune="pessimistic")


def test_vote_order_keeps_predictions_of_exclusive_rules():
    model, data = zoo.get("sklearn_tree_binary")
    rb = rulekit.to_rules(model, order="vote")
    assert rb.semantics == "vote"
    assert rb.predict(data).tolist() == model.predict(data).tolist()
