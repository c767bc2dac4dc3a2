"""`unseen x counts as v` (rulekit/dsl/unseen.py): said once per nominal feature, expanded exactly,
never changing a rule base's meaning; and the learners' `unseen="missing"` that makes new trees
declare it instead of writing a parent-distribution rule for values never seen."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit import dsl
from rulekit.dsl import unseen
from rulekit.ir.model import Feature
from rulekit.learners import C45Classifier, ID3Classifier
from rulekit.rules import engine, to_rules
from rulekit.rules.base import And, Compare, Conclusion, InSet, IsMissing, Or, Rule, RuleBase

from tests.marks import lane_examples

DOMAINS = {"a": ("p", "q", "it's"), "b": ("u", "v")}


@st.composite
def _planted(draw, f: str, v: str):
    """A test of ``f`` that agrees on ``v`` and unseen values, as a tree's branch to ``v`` writes it."""
    dom = DOMAINS[f]
    k = draw(st.integers(0, 2))
    if k == 0:
        lit = InSet(feature=f, values=tuple(d for d in dom if d != v), negated=True)
    elif k == 1:
        lit = Compare(feature=f, op="=", value=draw(st.sampled_from([d for d in dom if d != v])))
    else:
        lit = Compare(feature=f, op="!=", value=draw(st.sampled_from([d for d in dom if d != v])))
    return Or(items=(lit, IsMissing(feature=f))) if draw(st.integers(0, 3)) == 0 else lit


@st.composite
def _literal(draw, planted=None):
    f = draw(st.sampled_from(sorted(DOMAINS)))
    dom = DOMAINS[f]
    if planted and f in planted and draw(st.integers(0, 4)):
        return draw(_planted(f, planted[f]))
    if draw(st.booleans()):
        return Compare(feature=f, op=draw(st.sampled_from(["=", "!="])), value=draw(st.sampled_from(dom)))
    values = draw(st.lists(st.sampled_from(dom), min_size=1, max_size=len(dom), unique=True))
    if draw(st.booleans()):
        values = [d for d in dom if d in values]  # domain order, as rulekit writes sets
    lit = InSet(feature=f, values=tuple(values), negated=draw(st.booleans()))
    return Or(items=(lit, IsMissing(feature=f))) if draw(st.integers(0, 3)) == 0 else lit


@st.composite
def _bases(draw):
    rules = []
    planted = {f: draw(st.sampled_from(d)) for f, d in DOMAINS.items() if draw(st.booleans())}
    for _ in range(draw(st.integers(1, 5))):
        lits = draw(st.lists(_literal(planted), min_size=1, max_size=3))
        cond = lits[0] if len(lits) == 1 else And(items=tuple(lits))
        rules.append(Rule(condition=cond, conclusion=Conclusion(label=draw(st.sampled_from(["n", "y"])))))
    feats = tuple(Feature(name=n, kind="nominal", domain=d) for n, d in DOMAINS.items())
    return RuleBase(task="classification", classes=("n", "y"), features=feats, rules=tuple(rules),
                    default=Conclusion(label="n"))


def _grid() -> pd.DataFrame:
    vals = {f: list(d) + ["never seen", None] for f, d in DOMAINS.items()}
    rows = [(x, y) for x in vals["a"] for y in vals["b"]]
    return pd.DataFrame(rows, columns=["a", "b"], dtype=object)


@settings(max_examples=lane_examples(300), deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(_bases())
def test_round_trip_is_exact_and_the_meaning_unchanged(rb):
    """Text -> rule base is the same rule base (readable and exact form), so every row -- unseen
    values and missing ones included -- gets the same prediction; the declaration, when made,
    expands back to exactly the original conditions."""
    collapsed, declared = unseen.collapse(rb)
    assert unseen.expand(collapsed, declared) == rb
    for text in (dsl.dumps(rb), dsl.dumps(rb, exact=True)):
        back = dsl.loads(text)
        assert back == rb, text
    X = _grid()
    assert np.array_equal(engine.predict(back, X).astype(str), engine.predict(rb, X).astype(str))


def _golf():
    X = pd.DataFrame({"outlook": ["sunny", "sunny", "overcast", "rain", "rain", "rain", "overcast", "sunny",
                                  "sunny", "rain", "sunny", "overcast", "overcast", "rain"],
                      "wind": ["weak", "strong", "weak", "weak", "weak", "strong", "strong", "weak", "weak",
                               "weak", "strong", "strong", "weak", "strong"]})
    y = ["no", "no", "yes", "yes", "yes", "no", "yes", "no", "yes", "yes", "yes", "yes", "yes", "no"]
    return X, y


@pytest.mark.parametrize("learner", [ID3Classifier, C45Classifier])
def test_new_trees_route_unseen_values_to_a_named_branch_and_say_it_once(learner):
    X, y = _golf()
    kw = {"min_samples_leaf": 1, "prune": None} if learner is C45Classifier else {}
    old = learner(**kw).fit(X, y)
    new = learner(unseen="missing", **kw).fit(X, y)
    assert np.array_equal(old.predict(X), new.predict(X))  # training rows go where they went
    assert np.array_equal(old.predict_proba(X), new.predict_proba(X))
    text = dsl.dumps(to_rules(new.model_))
    # outlook's `not in {overcast, sunny}` reads `outlook = rain`; wind's `!= strong` is already short
    assert "unseen outlook counts as rain" in text and "not in" not in text and "unseen wind" not in text, text
    back = dsl.loads(text)
    assert back == to_rules(new.model_)
    # an unseen value answers as the branch missing values take, in the model and in its rules
    Xu = pd.DataFrame({"outlook": ["rain", "fog", "sunny"], "wind": ["gale", "weak", None]}, dtype=object)
    Xw = pd.DataFrame({"outlook": ["rain", "rain", "sunny"], "wind": ["weak", "weak", None]}, dtype=object)
    P = new.predict_proba(Xu)
    assert np.allclose(P[[0, 2]], new.predict_proba(Xw)[[0, 2]], rtol=0, atol=1e-12)
    assert np.allclose(engine.predict_proba(back, Xu), P, rtol=0, atol=1e-12)
    # the old default keeps its "other" rules with the parent's distribution: no declaration
    old_text = dsl.dumps(to_rules(old.model_))
    assert "unseen" not in old_text and "not in {strong, weak}" in old_text
    assert np.allclose(engine.predict_proba(dsl.loads(old_text), Xu), old.predict_proba(Xu), rtol=0, atol=1e-12)


HEAD = "target t: classes {n, y}\nfeature w: nominal {strong, weak}\nfeature h: numeric\n"


@pytest.mark.parametrize("line, message", [
    ("unseen h counts as 3", "4:8: 'h' has no domain"),
    ("unseen w counts as gale", "4:20: "),
    ("unseen w counts as weak\nunseen w counts as strong", "5:8: unseen values of 'w' are declared twice"),
])
def test_bad_declarations_are_one_line_with_position(line, message):
    p = dsl.parse(HEAD + line + "\nif w = weak then y\n")
    assert p.errors and message in f"{p.errors[0].line}:{p.errors[0].column}: {p.errors[0].message}", p.errors


def test_a_declaration_reads_as_its_expansion():
    rb = dsl.loads(HEAD + "unseen w counts as weak\nif w = weak then y\nif w = strong and h > 1 then n\n")
    assert rb.rules[0].condition == Compare(feature="w", op="!=", value="strong")
    assert rb.rules[1].condition.items[0] == Compare(feature="w", op="=", value="strong")
    X = pd.DataFrame({"w": ["gale", "strong", None], "h": [0.0, 2.0, math.nan]}, dtype=object)
    assert engine.predict(rb, X).tolist() == ["y", "n", None]
