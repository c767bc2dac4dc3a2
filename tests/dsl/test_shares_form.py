"""Readable distributions: one form per file, one denominator per line, exact round trip (audit item 4)."""

import re

from rulekit import dsl
from rulekit.rules.base import Conclusion, Feature, Rule, RuleBase
from rulekit.rules.conditions import Compare


def _base(*dists):
    rules = tuple(Rule(id=f"r{i + 1}", condition=Compare(feature="h", op=">", value=float(i)),
                       conclusion=Conclusion(label="c" if d[2] >= max(d) else "a", distribution=d))
                  for i, d in enumerate(dists[1:]))
    return RuleBase(task="classification", classes=("a", "b", "c"), features=(Feature(name="h"),),
                    default=Conclusion(label="c", distribution=dists[0]), rules=rules)


def _braces(text):
    return re.findall(r"\{a: ([^,]+), b: ([^,]+), c: ([^}]+)\}", text)


def test_one_denominator_per_line():
    rb = _base((23 / 1125, 28 / 1125, 358 / 375), (1 / 66, 10 / 11, 1 / 22 - 1 / 66 + 0.0))
    text = dsl.dumps(rb)
    (d0, d1) = _braces(text)
    assert d0 == ("23/1125", "28/1125", "1074/1125")  # not 358/375 next to /1125
    assert {v.split("/")[1] for v in d0} == {"1125"}
    back = dsl.loads(text)
    assert back.default.distribution == rb.default.distribution
    assert back.rules[0].conclusion.distribution == rb.rules[0].conclusion.distribution


def test_one_form_per_file():
    rb = _base((0.08, 0.0, 0.92), (1 / 54, 0.0, 53 / 54))  # a short decimal line next to a fraction line
    text = dsl.dumps(rb)
    lines = _braces(text)
    assert lines[0] == ("2/25", "0", "23/25") and lines[1] == ("1/54", "0", "53/54")
    back = dsl.loads(text)
    assert [back.default.distribution, back.rules[0].conclusion.distribution] == \
        [rb.default.distribution, rb.rules[0].conclusion.distribution]


def test_short_decimals_stay_decimals_and_exact_keeps_every_digit():
    rb = _base((0.25, 0.25, 0.5), (0.1, 0.2, 0.7))
    assert _braces(dsl.dumps(rb)) == [("0.25", "0.25", "0.5"), ("0.1", "0.2", "0.7")]
    odd = _base((23 / 1125, 28 / 1125, 358 / 375), (0.1, 0.2, 0.7))
    exact = dsl.dumps(odd, exact=True)
    assert "/" not in exact and dsl.loads(exact) == odd


def test_shares_over_the_rows_counted_where_exact():
    rb = _base((1 / 5, 0.0, 4 / 5), (2 / 43, 0.0, 41 / 43))
    text = dsl.dumps(rb, share_rows=(215, 215))  # the rule's 215 rows: 10 and 205 of them
    assert _braces(text)[1] == ("10/215", "0", "205/215")
    assert _braces(text)[0] == ("43/215", "0", "172/215")
    wrong = dsl.dumps(rb, share_rows=(7, None))  # 7 rows cannot give 1/5: the least denominator
    assert _braces(wrong) == [("1/5", "0", "4/5"), ("2/43", "0", "41/43")]
    assert dsl.loads(text) == dsl.loads(wrong) == dsl.loads(dsl.dumps(rb))
