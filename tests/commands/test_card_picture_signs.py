"""A weighted sum's picture draws what the engine adds: a negative weight signed once (``yes -2``,
was ``yes +-2``), and a default without points per class as the 1 it starts its class at (was drawn
as just ``no`` while ``predict --explain`` counted 'start 1'). Review of the card pictures."""

from __future__ import annotations

import numpy as np

from rulekit import dsl
from rulekit.rule_pictures import rules_dot, rules_mermaid, rules_svg
from rulekit.rules.explain import explain

W = ("rulebase t\ntarget y: classes {no, yes}\nfeature x: numeric\nsemantics weighted-sum\ndefault no\n"
     "r1: if x > 1 then yes weight -2\nr2: if x > 2 then yes {no: 0.5, yes: 0.5}\nr3: if x > 3 then no weight 0\n")


def test_a_negative_weight_is_signed_once():
    rb = dsl.loads(W)
    for text in (rules_dot(rb), rules_mermaid(rb), rules_svg(rb)):
        assert "yes -2" in text and "+-" not in text, text
        assert "no +0.5 yes +0.5" in text and "no +0" in text


def test_a_default_label_starts_its_class_at_1_as_explain_counts_it():
    rb = dsl.loads(W)
    (e,) = explain(rb, {"x": np.array([3.0])})
    assert "no 1.5 = start 1 + r2 0.5" in e.text, e.text
    for text in (rules_dot(rb), rules_mermaid(rb), rules_svg(rb)):
        assert "no 1" in text, text
