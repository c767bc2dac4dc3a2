"""Sequential covering: known DNF concepts recovered exactly through label noise; numeric data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.rules import text
from rulekit.rules.base import Compare
from rulekit.rules.boxes import conjuncts, count_literals
from rulekit.rules.induction import RuleInducer
from tests.rules.helpers import dnf_concept, playgolf


def _terms(rb) -> set:
    out = set()
    for r in rb.rules:
        lits = conjuncts(r.condition)
        assert all(isinstance(c, Compare) and c.op == "=" for c in lits), text.condition(r.condition)
        out.add(frozenset((c.feature, c.value) for c in lits))
    return out


def test_three_term_seven_literal_concept_with_five_percent_noise():
    rng = np.random.default_rng(7)
    n = 20_000
    X = pd.DataFrame({f"a{j}": rng.choice(["v0", "v1", "v2"], n) for j in range(10)})
    concept = [{("a0", "v1"), ("a1", "v2")}, {("a2", "v0"), ("a3", "v1"), ("a4", "v1")}, {("a5", "v1"), ("a6", "v0")}]
    y = np.zeros(n, bool)
    for t in concept:
        y |= np.logical_and.reduce([X[a] == v for a, v in t])
    y_noisy = y ^ (rng.random(n) < 0.05)
    lab = np.where(y_noisy, "pos", "neg")
    tr, te = slice(0, 15_000), slice(15_000, None)
    rb = RuleInducer(random_state=0).fit(X[tr], lab[tr]).rule_base_
    assert _terms(rb) == {frozenset(t) for t in concept}
    assert sum(count_literals(r.condition) for r in rb.rules) == 7 and rb.default.label == "neg"
    assert (rb.predict(X[te]) == np.where(y[te], "pos", "neg")).all()  # the concept itself
    assert (rb.predict(X[te]) == lab[te]).mean() >= 0.94


@pytest.mark.parametrize("seed, n, noise", [(1, 5_000, 0.0), (2, 8_000, 0.02), (3, 12_000, 0.05), (4, 20_000, 0.1),
                                            (5, 10_000, 0.05), (6, 6_000, 0.1)])
def test_random_concepts_recovered_exactly(seed, n, noise):
    X, y, concept = dnf_concept(seed, n=n, noise=noise)
    rb = RuleInducer(positive="pos", random_state=seed).fit(X, y).rule_base_
    assert _terms(rb) == concept
    assert all(r.conclusion.label == "pos" for r in rb.rules) and rb.default.label == "neg"


def test_playgolf_rules_for_no():
    df = playgolf()
    rb = RuleInducer(positive="no", random_state=0, prune_ratio=0.0).fit(df.drop(columns="play"), df["play"]).rule_base_
    assert (rb.predict(df) == df["play"]).all()
    assert rb.default.label == "yes"
    assert _terms(rb) == {frozenset({("outlook", "sunny"), ("humidity", "high")}),
                          frozenset({("outlook", "rainy"), ("wind", "strong")})}


def test_numeric_and_missing_data():
    rng = np.random.default_rng(3)
    n = 3000
    X = pd.DataFrame({"u": rng.normal(size=n), "v": rng.uniform(0, 10, n), "c": rng.choice(["r", "g"], n)})
    y = np.where((X.u > 0.5) & (X.v <= 4.0), 1, 0)
    X.loc[rng.random(n) < 0.05, "u"] = np.nan
    rb = RuleInducer(random_state=0).fit(X, y).rule_base_
    assert rb.features[2].kind == "nominal" and rb.features[0].kind == "numeric"
    assert (rb.predict(X) == y).mean() > 0.95
    assert sum(count_literals(r.condition) for r in rb.rules) <= 4
    est = RuleInducer(random_state=0)
    assert est.get_params()["prune_ratio"] == pytest.approx(1 / 3)
    assert est.set_params(max_rules=3).max_rules == 3
