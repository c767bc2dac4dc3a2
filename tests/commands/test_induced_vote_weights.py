"""Induced rules in vote order (`rules DATA --induce --order vote`, audit item 7b): each rule's
weight is its confidence rounded to 4 significant digits before the model is used, written as
`weight 0.9528`, so the file holds the model that was measured (no `confidence = 0.95278969...`)."""

import re

import numpy as np
import pandas as pd

from rulekit import dsl
from rulekit.rules.induction import RuleInducer, as_vote
from rulekit.rules.stats import annotate
from rulekit.rules.vote import round_weight
from rulekit.util import significant_digits


def _data(seed):
    rng = np.random.default_rng(seed)
    n = 1200
    X = pd.DataFrame({"x": np.round(rng.random(n) * 50, 2), "g": rng.choice(["a", "b", "c"], n)})
    y = np.where((X.x > 20) & (X.g != "b") | (X.x < 5), "pos", "neg")
    y = np.where(rng.random(n) < 0.07, np.where(y == "pos", "neg", "pos"), y)
    return X, pd.Series(y, name="y")


def test_vote_weights_are_short_and_the_written_file_is_the_measured_model():
    for seed in (0, 1, 2):
        X, y = _data(seed)
        rb = annotate(RuleInducer(random_state=0).fit(X, y).rule_base_, X, y)
        voted = as_vote(rb)
        assert voted.semantics == "vote"
        assert all(r.weight == round_weight(r.stats["confidence"]) for r in voted.rules)
        assert all(significant_digits(r.weight) <= 4 for r in voted.rules)
        assert any(r.weight != r.stats["confidence"] for r in voted.rules)  # some were long
        text = dsl.dumps(voted)
        shown = re.findall(r" weight (\S+)", text)
        assert len(shown) == len(voted.rules) and all(len(w) <= 6 for w in shown), shown
        assert "confidence" not in text
        back = dsl.loads(text)
        assert [r.weight for r in back.rules] == [r.weight for r in voted.rules]
        assert list(back.predict(X)) == list(voted.predict(X))
        assert np.array_equal(back.predict_proba(X), voted.predict_proba(X))


def test_a_rule_that_has_a_weight_keeps_it():
    X, y = _data(3)
    rb = annotate(RuleInducer(random_state=0).fit(X, y).rule_base_, X, y)
    rb = rb.model_copy(update={"rules": (rb.rules[0].model_copy(update={"weight": 2.5}), *rb.rules[1:])})
    assert as_vote(rb).rules[0].weight == 2.5
