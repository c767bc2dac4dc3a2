"""rulekit.semantics.values: a nominal value in a rule equals a data value only when the type matches,
then the value (True != 1, "1" != 1, 1 != 1.0); label lookups fall back to the same text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.semantics import values

from tests.marks import lane_examples

SCALARS = st.one_of(st.booleans(), st.integers(-3, 3), st.floats(-3, 3, allow_nan=False).map(lambda f: round(f, 1)),
                    st.sampled_from(["1", "0", "True", "a", "1.0", ""]))


@pytest.mark.parametrize("a, b", [(True, 1), (1, True), (False, 0), ("1", 1), (1, 1.0), (1.0, 1), ("True", True),
                                  (0, 0.0), (False, "False")])
def test_python_equal_is_not_the_same_value(a, b):
    assert not values.same(a, b)
    assert values.key(a) != values.key(b)


@pytest.mark.parametrize("a", [True, 1, 1.0, "1", "", 0.0])
def test_same_value(a):
    assert values.same(a, a)
    assert values.key(a) == values.key(a)


@settings(max_examples=lane_examples(300), deadline=None)
@given(a=SCALARS, b=SCALARS)
def test_key_agrees_with_same(a, b):
    assert (values.key(a) == values.key(b)) == values.same(a, b)
    assert values.same_or_text(a, b) == (values.same(a, b) or str(a) == str(b))


@settings(max_examples=lane_examples(300), deadline=None)
@given(domain=st.lists(SCALARS, max_size=6), value=SCALARS)
def test_index_of_and_index(domain, value):
    exact = [i for i, v in enumerate(domain) if type(v) is type(value) and v == value]
    text = [i for i, v in enumerate(domain) if str(v) == str(value)]
    want = exact[0] if exact else (text[0] if text else None)
    assert values.index_of(domain, value) == want
    assert values.Index(domain).get(value) == want
    assert values.contains(domain, value) == bool(exact)


def test_label_read_from_text_finds_the_typed_class():
    classes = [0, 1, True]
    assert values.index_of(classes, True) == 2  # the bool, not the 1 that == True
    assert values.index_of(classes, "1") == 1  # no str "1": the first with that text
    assert values.index_of(classes, "True") == 2
    assert values.index_of(classes, 2) is None


def test_backends_follow_the_rule():
    """The linter, the rule engine's codes and the missing-value declarations ask values.same."""
    from rulekit.dsl import missing, unseen
    from rulekit.rules.conditions import Compare, InSet

    lit = Compare(feature="f", op="=", value=True)
    assert missing.holds(lit, True, "float64") is True
    assert missing.holds(lit, 1, "float64") is False
    assert missing.holds(InSet(feature="f", values=("1", 2)), 1, "float64") is False
    assert unseen._holds_known(Compare(feature="f", op="!=", value="1"), 1) is True


def _rule_base(value):
    from rulekit.ir.model import Feature
    from rulekit.rules.base import RuleBase
    from rulekit.rules.conditions import Compare, Conclusion, Rule

    return RuleBase(features=[Feature(name="f", kind="nominal", domain=[0, 1])], task="classification",
                    semantics="first-hit", classes=["a", "b"], default=Conclusion(label="b"),
                    rules=[Rule(condition=Compare(feature="f", op="=", value=value), conclusion=Conclusion(label="a"))])


@pytest.mark.parametrize("value", [True, 1.0])
def test_rule_engine_onnx_and_linter_do_not_take_a_python_equal_value(value):
    """``f = True`` (or ``1.0``) on the domain [0, 1]: not the value 1 for the rule engine, the ONNX
    rule export or the linter."""
    import pandas as pd

    from rulekit import export
    from rulekit.dsl.lint import lint
    from rulekit.errors import ExportError, RulekitError

    rb = _rule_base(value)
    with pytest.raises(RulekitError, match="is not a value of nominal feature"):
        rb.predict(pd.DataFrame({"f": pd.Series([0, 1], dtype=object)}))
    with pytest.raises(ExportError, match="is not a value of nominal feature"):
        export.to_onnx(rb)
    assert [f.message for f in lint(rb)] == ["this rule can never fire: no input satisfies its condition"]
    assert _rule_base(1).predict(pd.DataFrame({"f": [0, 1]})).tolist() == ["b", "a"]
