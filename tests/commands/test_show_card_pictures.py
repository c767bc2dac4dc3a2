"""`show --format dot|mermaid|svg` of a scorecard draws what each rule adds and the start points.
It drew a decision list: 's2: "City Name" = Zürich' -> 'yes' and 'default: otherwise' -> 'no', no
weight anywhere, though Zürich and age <= 60 is 'no' (audit 3, #7). A vote base shows its weights."""

from __future__ import annotations

from rulekit import dsl
from rulekit.rule_pictures import rules_dot, rules_mermaid, rules_svg

CARD = ("rulebase scorecard\ntarget y: classes {no, yes}\nfeature city: nominal {Köln, Zürich}\n"
        "feature age: numeric\nsemantics weighted-sum\ndefault no {no: 3.038, yes: 0}\n\n"
        "s1: if city = Zürich then yes weight 4.649\ns2: if age <= 60 then no weight 3.949\n")
SPLIT = ("rulebase scorecard\ntarget c: classes {high, low, mid}\nfeature x1: numeric\nsemantics weighted-sum\n"
         "default high {high: 4.357, low: 0, mid: 0.5514}\n\n"
         "s1: if x1 <= 3 then low {high: 0.05603, low: 0.944, mid: 0} weight 8.723\n")
VOTE = ("rulebase v\ntarget y: classes {no, yes}\nfeature age: numeric\nsemantics vote\ndefault no\n\n"
        "r1: if age > 60 then yes weight 0.9793\n")


def test_a_card_shows_points_and_start_points():
    rb = dsl.loads(CARD)
    for text in (rules_dot(rb), rules_mermaid(rb), rules_svg(rb)):
        assert "otherwise" not in text
        assert "yes +4.649" in text and "no +3.949" in text
        assert "start points, added on every row" in text and "no 3.038 yes 0" in text


def test_a_split_weight_shows_each_class_share_of_the_points():
    assert "low +8.235 high +0.4887" in rules_dot(dsl.loads(SPLIT))


def test_a_vote_shows_its_weights_and_keeps_otherwise():
    dot = rules_dot(dsl.loads(VOTE))
    assert "yes (weight 0.9793)" in dot and "default: otherwise" in dot
