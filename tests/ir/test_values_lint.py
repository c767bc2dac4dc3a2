"""The linter judges a nominal value written in a rule by the rule engine's lookup
(rulekit.semantics.values: same type and equal, else the same text): ``f = "1"`` on the domain
``{0, 1}`` matches the value 1 in the engine, so the linter must not call the rule dead."""

import numpy as np
import pandas as pd
import pytest

from rulekit import dsl
from rulekit.dsl.lint import lint
from rulekit.rules.base import Compare, InSet

TEXT = """rulebase r
target y: classes {a, b}
feature f: nominal {0, 1}
default b
r1: if f = 1 then a
"""

LITERALS = [Compare(feature="f", op="=", value="1"), Compare(feature="f", op="=", value="0"),
            Compare(feature="f", op="!=", value="1"), InSet(feature="f", values=("1",)),
            InSet(feature="f", values=("0", 1)), InSet(feature="f", values=("0", "1"), negated=True),
            Compare(feature="f", op="=", value=1)]


def _with(cond):
    rb = dsl.loads(TEXT)
    return rb.model_copy(update={"rules": (rb.rules[0].model_copy(update={"condition": cond}),)})


@pytest.mark.parametrize("cond", LITERALS, ids=repr)
def test_linter_says_a_rule_is_dead_exactly_when_the_engine_never_fires_it(cond):
    rb = _with(cond)
    fires = "a" in set(np.asarray(rb.predict(pd.DataFrame({"f": [0, 1, 2, np.nan]}))).tolist())
    dead = any("can never fire" in f.message for f in lint(rb))
    assert dead == (not fires), ([f.message for f in lint(rb)], fires)


def test_text_fallback_matches_the_domain_value_in_the_engine():
    rb = _with(Compare(feature="f", op="=", value="1"))
    assert list(rb.predict(pd.DataFrame({"f": [0, 1]}))) == ["b", "a"]
    assert not lint(rb)
