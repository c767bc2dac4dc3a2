"""An empty ``--induce`` rule base suggests ``--select none`` only when that learns a rule on the
same rows (audit finding 12b: on pure noise the advice wrote the same empty file)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from rulekit.rules import induce_hint
from rulekit.rules.induction import RuleInducer


def _pure_noise():
    """The audit's make_noise.py training half: 30% yes, independent of six 3-valued features."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame({f"f{j}": rng.choice(list("abc"), 1200) for j in range(6)})
    y = rng.choice(["yes", "no"], 1200, p=[0.3, 0.7])
    return X.iloc[:600], y[:600]


def test_pure_noise_gets_no_select_none_advice():
    X, y = _pure_noise()
    assert not RuleInducer(mdl=True, random_state=0).fit(X, y).rule_base_.rules
    assert not RuleInducer(mdl=False, random_state=0).fit(X, y).rule_base_.rules
    said = induce_hint.empty_advice(X, y, "mdl")
    assert "--select none" not in said and said == "; more data may show one"


def test_select_none_already_chosen_is_not_advised():
    X, y = _pure_noise()
    assert "--select" not in induce_hint.empty_advice(X, y, "none")


def test_advised_when_rules_without_mdl(monkeypatch):
    class Grows:
        def __init__(self, **kw):
            self.kw = kw

        def fit(self, X, y):
            assert self.kw["mdl"] is False
            return SimpleNamespace(rule_base_=SimpleNamespace(rules=(1, 2)))

    monkeypatch.setattr(induce_hint, "RuleInducer", Grows)
    said = induce_hint.empty_advice(pd.DataFrame({"f": ["a"]}), np.array(["x"]), "mdl")
    assert said == "; try --select none (2 rules without the MDL choice) or more data"
