"""DNF merging (``rules/dnf.py``): the size limit's edge and the MDL term choice (issue #23).

The first mutation run of ``dnf.py`` left five mutants alive that change outputs (docs/testing.md):
``condition_boxes``' limit one higher, and in ``_mdl_groups`` the candidate conditions rendered from
nothing, the theory weight 0.5 -> 1.5 and the ``boxes[:1]`` fallback -> ``boxes[:2]``. Each test here
pins one of them; ``yc != c`` for ``yc == c`` is equivalent (C(r, fp) = C(r, r - fp)).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import pytest

from rulekit.errors import RulekitError
from rulekit.ir.model import Feature
from rulekit.rules.base import And, Compare, Conclusion, Or, Rule, RuleBase
from rulekit.rules.boxes import count_literals
from rulekit.rules.dnf import dnf


def C(f, op, v):
    return Compare(feature=f, op=op, value=v)


def _rb(features, *rules) -> RuleBase:
    """First-hit rules (condition, label), default ``q``."""
    return RuleBase(task="classification", target="y", classes=("p", "q"),
                    features=tuple(Feature(name=n) for n in features), semantics="first-hit",
                    rules=tuple(Rule(id=f"t{i}", condition=c, conclusion=Conclusion(label=lab))
                                for i, (c, lab) in enumerate(rules)),
                    default=Conclusion(label="q"))


def test_a_condition_of_1025_boxes_is_refused():
    # 2**10 boxes from the AND of ORs, one more from `h <= 0`: nothing merges, 1,025 boxes (limit 1,024)
    feats = [f"{c}{j}" for j in range(10) for c in "fg"] + ["h"]
    big = And(items=tuple(Or(items=(C(f"f{j}", "<=", 0.0), C(f"g{j}", "<=", 0.0))) for j in range(10)))
    rb = _rb(feats, (Or(items=(big, C("h", "<=", 0.0))), "p"))
    with pytest.raises(RulekitError, match="^rule t0: condition too complex to merge$"):
        dnf(rb)


def test_mdl_judges_each_term_by_the_rows_it_covers():
    # the class is exactly the two-literal term; the one-literal term is cheaper to state but covers
    # only noise: MDL keeps the term that covers the class (judged without rows, the cheaper one wins)
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": rng.uniform(0, 4, 300), "b": rng.uniform(0, 4, 300)})
    y = np.where((X.a <= 1.0) & (X.b <= 1.0), "p", "q")
    real = And(items=(C("a", "<=", 1.0), C("b", "<=", 1.0)))
    rb = _rb(["a", "b"], (real, "p"), (C("b", ">", 3.9), "p"))
    assert dnf(rb, X, y, mdl=True).rules[0].condition == real


def test_mdl_weighs_theory_bits_at_one_half():
    # `b > 3.9` (90% p there) saves more exception bits than half its theory bits, less than 1.5 times
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0, 4, 200), rng.uniform(0, 4, 200)
    y = np.where((a <= 1.0) | ((b > 3.9) & (rng.uniform(size=200) < 0.9)), "p", "q")
    rb = _rb(["a", "b"], (C("a", "<=", 1.0), "p"), (C("b", ">", 3.9), "p"))
    out = dnf(rb, pd.DataFrame({"a": a, "b": b}), y, mdl=True)
    assert out.rules[0].condition == Or(items=(C("a", "<=", 1.0), C("b", ">", 3.9)))


def test_mdl_dropping_every_term_keeps_the_first():
    # 11 terms (hill climbing, which may drop them all) on labels independent of every feature: no
    # term pays for itself, and the class keeps one term rather than none
    feats = [f"{c}{j}" for j in range(11) for c in "fg"]
    rb = _rb(feats, *((And(items=(C(f"f{j}", "<=", 0.0), C(f"g{j}", "<=", 0.0))), "p") for j in range(11)))
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(-1, 1, (300, 22)), columns=feats)
    y = np.where(rng.uniform(size=300) < 0.5, "p", "q")
    assert count_literals(dnf(rb, X, y).rules[0].condition) == 22
    out = dnf(rb, X, y, mdl=True)
    assert len(out.rules) == 1 and count_literals(out.rules[0].condition) == 2
