"""loads(dumps(rb, exact=True)) == rb exactly (types, -0.0, order), dumps is idempotent, hostile names
survive (the readable default form is tested in test_readable.py)."""

from __future__ import annotations

import functools
import math

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit import dsl
from rulekit.dsl.build import MAX_DEPTH
from rulekit.dsl.grammar import all_words, grammar_text
from rulekit.dsl.lexer import RulesLexer, Source
from rulekit.errors import ExportError
from rulekit.ir.model import Combiner, Feature
from rulekit.rules.base import (TRUE, And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or, Rule,
                                RuleBase)
from rulekit.testing.strategies import HOSTILE_NAMES, floats, rule_bases, strict_repr

from tests.marks import lane_examples

def examples(n: int) -> settings:
    return settings(max_examples=lane_examples(n), deadline=None, suppress_health_check=list(HealthCheck))


def round_trip(rb: RuleBase) -> str:
    text = dsl.dumps(rb, exact=True)
    back = dsl.loads(text)
    assert strict_repr(back) == strict_repr(rb), text
    assert back == rb
    assert dsl.dumps(back, exact=True) == text  # canonical: printing what was read gives the same text
    return text


@examples(800)
@given(rule_bases())
def test_every_rule_base_round_trips(rb):
    round_trip(rb)


def _rb(features=(Feature(name="x"),), rules=(), **kw) -> RuleBase:
    kw.setdefault("task", "classification")
    kw.setdefault("classes", ("a", "b"))
    return RuleBase(features=tuple(features), rules=tuple(rules), **kw)


@pytest.mark.parametrize("name", HOSTILE_NAMES + tuple(sorted(all_words())))
def test_hostile_name_everywhere(name):
    """The same hostile text as rulebase name, target, feature, class, nominal value, rule id, key."""
    other = name + "2" if name != "x" else "y"
    feats = (Feature(name=name), Feature(name=other, kind="nominal", domain=(name, "v")))
    cond = And(items=(Compare(feature=name, op="<=", value=1.5), Compare(feature=other, op="=", value=name),
                      InSet(feature=other, values=(name,), negated=True), IsMissing(feature=name),
                      Linear(terms=((2.0, name), (-1.0, name)), op=">", value=0.0)))
    rb = _rb(feats, [Rule(id=name, condition=cond, conclusion=Conclusion(label=name), stats={name: 1.0},
                          comments=(name.replace("\n", " ").rstrip(),))],
             name=name, target=name, classes=(name, "b"), default=Conclusion(label=name))
    round_trip(rb)


def test_quoting_is_only_where_needed():
    rb = _rb([Feature(name="value"), Feature(name="order date"), Feature(name="and")],
             [Rule(id="r1", condition=And(items=(Compare(feature="value", op=">", value=3.0),
                                                  Compare(feature="order date", op="<=", value=2.0),
                                                  Compare(feature="and", op="<", value=1.0))),
                   conclusion=Conclusion(label="value"))], classes=("value", "b"))
    text = round_trip(rb)
    assert 'r1: if value > 3 and "order date" <= 2 and "and" < 1 then "value"' in text
    assert "feature value: numeric" in text and 'feature "order date": numeric' in text


@pytest.mark.parametrize("x", [0.1, 1 / 3, -0.0, 0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                               math.inf, -math.inf, 1e16, 1e22, 123456789012345.0, 2.4500000476837158, -7.0])
def test_numbers_are_exact_and_shortest(x):
    rb = _rb(rules=[Rule(condition=Compare(feature="x", op="<=", value=x), conclusion=Conclusion(value=x),
                         weight=x, stats={"s": x})],
             task="regression", classes=None, default=Conclusion(value=x))
    text = round_trip(rb)
    shortest = "inf" if x == math.inf else "-inf" if x == -math.inf else repr(x).removesuffix(".0")
    assert f"x <= {shortest} then {shortest} weight {shortest} with s = {shortest}" in text.replace("\n    then", " then")


@examples(300)
@given(floats)
def test_any_float_threshold(x):
    rb = _rb(rules=[Rule(condition=Compare(feature="x", op=">", value=x), conclusion=Conclusion(label="a"))])
    round_trip(rb)


def test_labels_keep_their_type():
    classes = (1, 1.0, True, "1", "true", -2, 2.5, -math.inf, "")
    rb = _rb(classes=classes, rules=[Rule(condition=TRUE, conclusion=Conclusion(label=c)) for c in classes])
    text = round_trip(rb)
    assert 'classes {1, 1.0, true, "1", "true", -2, 2.5, -inf, ""}' in text


def test_chains_single_items_and_groups():
    x = "x"
    lo = Compare(feature=x, op=">", value=20.0)
    hi = Compare(feature=x, op="<=", value=40.0)
    cases = {
        "20 < x <= 40": And(items=(lo, hi)),
        "(20 < x <= 40) and x <= 40": And(items=(And(items=(lo, hi)), hi)),
        "20 < x <= 40 and x <= 40": And(items=(lo, hi, hi)),
        "x <= 40 and x > 20": And(items=(hi, lo)),
        "and(x > 20)": And(items=(lo,)),
        "or(x > 20)": Or(items=(lo,)),
        "true": TRUE,
        "false": Or(items=()),
        "not (x > 20)": Not(item=lo),
        "not (not (20 < x <= 40))": Not(item=Not(item=And(items=(lo, hi)))),
        "(x > 20 and x <= 40) or x is missing": None,
        "x > 20 or 20 < x <= 40": Or(items=(lo, And(items=(lo, hi)))),
        "(20 < x <= 40 or x is missing) and x > 20": And(items=(Or(items=(And(items=(lo, hi)),
                                                                          IsMissing(feature=x))), lo)),
        "(x > 20 or (20 < x <= 40 and x > 20)) and x > 20": And(items=(Or(items=(lo, And(items=(lo, hi, lo)))), lo)),
        "and(and(x > 20))": And(items=(And(items=(lo,)),)),
        "(x > 20 or x <= 40) and true": And(items=(Or(items=(lo, hi)), TRUE)),
        "1*x - 0*x + nan*x > 1": Linear(terms=((1.0, x), (-0.0, x), (math.nan, x)), op=">", value=1.0),
    }
    for text, cond in cases.items():
        if cond is None:
            continue
        printed = dsl.printer.condition(cond)
        assert printed == text
        if "nan" not in text:
            round_trip(_rb(rules=[Rule(condition=cond, conclusion=Conclusion(label="a"))]))


def test_regression_and_score_conclusions():
    rb = _rb(task="regression", classes=None, rules=[
        Rule(condition=TRUE, conclusion=Conclusion(value=3.5)),
        Rule(condition=TRUE, conclusion=Conclusion(label="x", value=1.0)),
        Rule(condition=TRUE, conclusion=Conclusion(distribution=(0.5, 0.5), value=1.0)),
        Rule(condition=TRUE, conclusion=Conclusion())])
    text = round_trip(rb)
    assert "then 3.5\n" in text and "then label x value 1\n" in text and "then [0.5, 0.5] value 1\n" in text
    rb = _rb(combiner=Combiner(kind="sum", base_score=(0.5,), link="sigmoid", tree_output=(0, 0),
                               decision="raw>0"),
             rules=[Rule(condition=TRUE, conclusion=Conclusion(value=-0.25), group=1)])
    text = round_trip(rb)
    assert "combiner sum link sigmoid base_score [0.5] tree_output [0, 0] decision raw > 0" in text
    assert "group 1\nif true then value -0.25" in text


def test_deep_nesting_up_to_the_limit():
    node = Compare(feature="x", op="<", value=1.0)
    for i in range(MAX_DEPTH):
        node = Not(item=node) if i % 2 else And(items=(node, IsMissing(feature="x")))
    round_trip(_rb(rules=[Rule(condition=node, conclusion=Conclusion(label="a"))]))
    with pytest.raises(ExportError, match="nests more than 100"):
        dsl.dumps(_rb(rules=[Rule(id="deep", condition=Not(item=node), conclusion=Conclusion(label="a"))]))


def test_long_rules_wrap_one_item_per_line():
    items = tuple(Compare(feature="x", op="<=", value=float(i) + 0.123456789) for i in range(8))
    rb = _rb(rules=[Rule(id="long", condition=And(items=items), conclusion=Conclusion(label="a"),
                         trailing_comment="end")])
    text = round_trip(rb)
    assert "long: if x <= 0.123456789\n    and x <= 1.123456789\n" in text
    assert "\n    then a  # end\n" in text
    rb = _rb(rules=[Rule(id="mid", condition=And(items=items[:4]), conclusion=Conclusion(label="a"),
                         stats={"support": 1234.5, "confidence": 0.987654321})])
    text = round_trip(rb)
    assert ("mid: if x <= 0.123456789 and x <= 1.123456789 and x <= 2.123456789 and x <= 3.123456789\n"
            "    then a with support = 1234.5, confidence = 0.987654321\n") in text


def test_tree_transform_agrees_with_inline():
    """The Builder run as Transformer_NonRecursive over a lark tree gives the same rule base."""
    from rulekit.dsl.parser import _LOCK, _machinery, tree_parser

    text = dsl.dumps(_rb([Feature(name="x"), Feature(name="c", kind="nominal", domain=("r", "g"))],
                         [Rule(id="r1", condition=And(items=(Compare(feature="x", op=">", value=1.0),
                                                              Compare(feature="x", op="<=", value=2.0),
                                                              Or(items=(InSet(feature="c", values=("r",)),
                                                                        Not(item=IsMissing(feature="x")))))),
                               conclusion=Conclusion(label="b", distribution=(0.25, 0.75)),
                               stats={"n": 4.0})],
                         default=Conclusion(label="a")))
    tree = tree_parser().parse(Source(text))
    with _LOCK:
        _, b = _machinery()
        b.reset(text, "t")
        b.transform(tree)
        rb = b.finish()
    assert rb == dsl.loads(text)


def _no_comments(rb: RuleBase) -> RuleBase:
    return rb.model_copy(update={"comments": (), "footer_comments": (), "rules": tuple(
        r.model_copy(update={"comments": (), "trailing_comment": None}) for r in rb.rules)})


@functools.lru_cache(maxsize=1)
def _token_parser():
    return lark.Lark(grammar_text(), parser="lalr", lexer=RulesLexer)


@examples(150)
@given(rule_bases(max_rules=3), st.randoms(use_true_random=False))
def test_layout_does_not_matter(rb, rnd):
    """Any spacing, line breaks and comments between tokens read the same rule base."""
    text = dsl.dumps(rb)
    plain = _no_comments(dsl.loads(text))
    ip = _token_parser().parse_interactive(Source(text))
    seps = [" ", "\n", "\t ", "  # c\n", "\r\n", "\n\n# c\n\n"]
    shuffled = "".join(tok.value + rnd.choice(seps) for tok in ip.iter_parse())
    assert _no_comments(dsl.loads(shuffled)) == plain


def test_the_language_reference_example_is_canonical():
    import re
    from importlib import resources

    readme = (resources.files("rulekit.grammars") / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```\n(.*?)```", readme, re.S).group(1)
    assert dsl.dumps(dsl.loads(example)) == example


def test_the_dsl_knows_every_field_of_the_ir():
    """A new IR field must be taught to the DSL (printer, grammar, builder) before this passes."""
    known = {
        RuleBase: {"name", "task", "target", "classes", "features", "semantics", "precision", "rules",
                   "default", "combiner", "comments", "footer_comments"},
        Rule: {"id", "condition", "conclusion", "weight", "group", "stats", "comments", "trailing_comment"},
        Conclusion: {"label", "distribution", "value"},
        Feature: {"name", "kind", "domain", "match"},
        Combiner: {"kind", "base_score", "link", "tree_output", "decision", "arithmetic"},
        Compare: {"kind", "feature", "op", "value"},
        InSet: {"kind", "feature", "values", "negated"},
        IsMissing: {"kind", "feature", "negated"},
        Linear: {"kind", "terms", "op", "value"},
        And: {"kind", "items"}, Or: {"kind", "items"}, Not: {"kind", "item"},
    }
    for cls, fields in known.items():
        assert set(cls.model_fields) == fields, cls.__name__
