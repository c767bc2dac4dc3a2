"""RuleInducer's negated nominal tests (audit item 8): a ``f != v`` concept is one rule, not one rule
per other value; ``!=`` keeps the rule base's semantics (false on a missing value); the rules
describe the rarer classes and the default is the class left over."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.errors import RulekitError
from rulekit.rules import text
from rulekit.rules.boxes import conjuncts, count_literals
from rulekit.rules.induction import RuleInducer

VALUES = ("p", "q", "r", "s", "t")


def _table(seed: int, n: int, n_feats: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"g{j}": rng.choice(VALUES, n) for j in range(n_feats)})


def _literals(rb) -> set:
    return {frozenset(text.condition(c) for c in conjuncts(r.condition)) for r in rb.rules}


def _flip(y: np.ndarray, share: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    flip = rng.random(y.size) < share
    return np.where(flip, ~y, y)


def test_a_negated_literal_is_one_rule():
    X = _table(21, 3000)
    y = ((X.g0 == "q") & (X.g1 != "s")) | ((X.g2 == "p") & (X.g3 == "t"))
    lab = np.where(_flip(y.to_numpy(), 0.03, 1), "hit", "miss")
    rb = RuleInducer(random_state=0).fit(X, lab).rule_base_
    assert _literals(rb) == {frozenset({"g0 = q", "g1 != s"}), frozenset({"g2 = p", "g3 = t"})}
    assert rb.default.label == "miss" and {r.conclusion.label for r in rb.rules} == {"hit"}
    fresh = _table(22, 2000)
    truth = ((fresh.g0 == "q") & (fresh.g1 != "s")) | ((fresh.g2 == "p") & (fresh.g3 == "t"))
    assert (rb.predict(fresh) == np.where(truth, "hit", "miss")).all()


def test_a_long_negated_term_stays_short():
    X = _table(23, 4000, 12)
    y = ((X.g0 != "p") & (X.g1 != "q") & (X.g2 == "r")) | ((X.g4 == "t") & (X.g5 != "t") & (X.g0 == "p"))
    rb = RuleInducer(random_state=0).fit(X, np.where(y, "yes", "no")).rule_base_
    assert _literals(rb) == {frozenset({"g0 != p", "g1 != q", "g2 = r"}),
                             frozenset({"g4 = t", "g5 != t", "g0 = p"})}
    assert sum(count_literals(r.condition) for r in rb.rules) == 6


def test_equal_only_needs_a_rule_per_other_value():
    X = _table(21, 3000)
    y = (X.g0 == "q") & (X.g1 != "s")
    lab = np.where(y, "hit", "miss")
    narrow = RuleInducer(random_state=0, nominal_tests="equal").fit(X, lab).rule_base_
    assert len(narrow.rules) == 4 and all("!=" not in text.condition(r.condition) for r in narrow.rules)
    wide = RuleInducer(random_state=0).fit(X, lab).rule_base_
    assert _literals(wide) == {frozenset({"g0 = q", "g1 != s"})}
    with pytest.raises(RulekitError, match="nominal_tests"):
        RuleInducer(nominal_tests="subsets").fit(X, lab)


def test_negated_literal_is_false_on_a_missing_value():
    X = _table(24, 3000).astype(object)
    y = (X.g0 == "q") & (X.g1 != "s")
    lab = np.where(y, "hit", "miss")
    gone = np.random.default_rng(5).random(len(X)) < 0.1
    X.loc[gone, "g1"] = None
    lab[gone] = "miss"  # a row whose g1 is missing is not known to satisfy g1 != s
    rb = RuleInducer(random_state=0).fit(X, lab).rule_base_
    assert _literals(rb) == {frozenset({"g0 = q", "g1 != s"})}
    assert (rb.predict(X) == lab).all()  # the learner counted missing rows as the rule base evaluates them
    row = pd.DataFrame({c: ["q"] for c in X.columns}).astype(object)
    row.loc[0, "g1"] = None
    assert rb.predict(row)[0] == "miss"


def test_rules_describe_the_rarer_classes_and_the_default_is_left_over():
    X = _table(25, 3000, 6)
    y = np.where(X.g1 == "p", "rest", np.where(X.g0.isin(["p", "q"]), "low", "mid"))
    counts = pd.Series(y).value_counts()
    assert counts.idxmax() == "mid"
    rb = RuleInducer(random_state=0).fit(X, y).rule_base_
    assert rb.default.label == "mid"
    assert {r.conclusion.label for r in rb.rules} == {"rest", "low"}
    assert rb.rules[0].conclusion.label == counts.idxmin()
    assert (rb.predict(X) == y).all()
