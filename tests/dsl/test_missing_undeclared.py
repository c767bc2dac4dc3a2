"""missing.undeclared: the features whose `is missing` tests no `missing x counts as v` line replaces
(audit item 7: the rules file then says why they stay)."""

from rulekit.dsl.missing import undeclared
from rulekit.rules.base import Conclusion, Feature, Rule, RuleBase
from rulekit.rules.conditions import And, Compare, IsMissing, Or


def _base(*conds):
    feats = (Feature(name="x", kind="nominal", domain=("a", "b", "c")),
             Feature(name="z", kind="nominal", domain=("a", "b", "c")))
    rules = tuple(Rule(id=f"r{i}", condition=c, conclusion=Conclusion(label="y")) for i, c in enumerate(conds))
    return RuleBase(task="classification", classes=("n", "y"), features=feats, rules=rules,
                    default=Conclusion(label="n"))


def _or_missing(lit):
    return Or(items=(lit, IsMissing(feature=lit.feature)))


def test_consistent_routing_is_declared():
    rb = _base(And(items=(_or_missing(Compare(feature="x", op="!=", value="a")), Compare(feature="z", op="=", value="b"))),
               Compare(feature="x", op="=", value="a"))  # missing x acts as b or c everywhere
    assert undeclared(rb) == []


def test_routing_no_value_takes_is_named():
    # missing x goes with x = a in r0, but not with x = a in r1 (nor with b, c in r0): no value fits
    rb = _base(And(items=(_or_missing(Compare(feature="x", op="=", value="a")), Compare(feature="z", op="=", value="b"))),
               And(items=(Compare(feature="x", op="=", value="a"), Compare(feature="z", op="=", value="c"))),
               _or_missing(Compare(feature="z", op="=", value="a")))
    assert undeclared(rb) == ["x"]
