"""DNF and pruned rule bases re-render their conditions from boxes (rulekit.rules.box_conditions). A box's
oblique-sum constraint with the missing flag means "the sum is NaN" (a missing input, ``inf - inf``,
``0 * inf``: the tree's missing side); rendering spells that with the NaN-sum clauses of
:func:`rulekit.semantics.routing.nan_sum_tests`, as rulekit.rules.extract spells tree paths, so the
re-rendered rules equal the model on NaN-sum rows (tests/ir/test_routing_nan_sum.py: raw paths).

Checked: a rendered box against the rule engine's own membership of its constraints (the boxes'
meaning: a linear key is missing where its float64 sum is NaN), the zoo's oblique CART and random
oblique classification trees through ``to_rules(dnf=True)`` against ``Model.predict`` (engine, DSL
round trip, Python export), and the pruning path's re-rendered rules against their boxes.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.ir.model import Feature, Model
from rulekit.ir.tree import TreeBuilder, validate_tree
from rulekit.rules import engine, prune
from rulekit.rules.base import Conclusion, Linear, Rule, RuleBase
from rulekit.rules.boxes import Box, LiteralSchema, num_universe
from rulekit.rules.box_conditions import box_condition
from tests import zoo
from tests.ir.test_routing_nan_sum import NAMES, ROWS

OBLIQUE = "learned_cart_subset_oblique"


def _nan_rows(model: Model, X: pd.DataFrame, n: int = 12) -> pd.DataFrame:
    """``n`` rows of ``X`` with +inf/-inf put on each ordered pair of features some oblique split
    uses (both signs): most such sums are NaN."""
    used = sorted({int(f) for t in model.trees for _, a in t.nodes(data=True) if a.get("kind") == "linear"
                   for f in a["features"]})
    names = [model.features[i].name for i in used]
    out = []
    for i, j in itertools.permutations(names, 2):
        for vi, vj in ((math.inf, -math.inf), (-math.inf, math.inf)):
            r = X.head(n).copy()
            r[i], r[j] = vi, vj
            out.append(r)
    return pd.concat(out, ignore_index=True)


def _box_truth(ev: engine.Evaluator, box: Box) -> np.ndarray:
    """Rows in ``box``: every constraint holds, as the engine's membership reads it."""
    t = np.ones(ev.n, bool)
    for k, c in box.items.items():
        t &= ev.member(k, c, cache=False)
    return t


def _rule_base(names=NAMES) -> RuleBase:
    feats = [Feature(name=n) for n in names]
    return RuleBase(features=feats, task="regression",
                    rules=[Rule(id="r", condition=Linear(terms=((1.0, names[0]),), op="<=", value=0.0),
                                conclusion=Conclusion(value=1.0))])


terms_st = st.lists(st.tuples(st.sampled_from([1.0, -1.0, 0.5, -3.0, 0.0, 2.0]), st.sampled_from(NAMES)),
                    min_size=1, max_size=3, unique_by=lambda t: t[1])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terms_st, st.sampled_from(["<=", ">=", "<", ">", "universe"]),
       st.sampled_from([0.0, 1.5, -1.0, math.inf, -math.inf]), st.booleans(),
       st.sampled_from([None, ("<=", 1.0), (">", -2.5)]))
def test_a_rendered_box_is_its_constraints(terms, op, value, missing, other):
    """``box_condition`` is TRUE exactly on the box's rows (the engine's membership: a linear key is
    missing where its sum is NaN), incl. a whole-line sum without NaN (``not (<NaN clauses>)``)."""
    assume(not (value == -math.inf and op in (">=", "<")))  # refused: semantics.thresholds
    rb = _rule_base()
    schema = LiteralSchema(rb)
    if op == "universe":
        key, c = ("linear", tuple(terms)), num_universe()
    else:
        key, c = schema.literal_set(Linear(terms=tuple(terms), op=op, value=value))
    items = {key: c.with_missing(missing)}
    if other is not None:
        k2, c2 = schema.literal_set(Linear(terms=((1.0, "c"),), op=other[0], value=other[1]))
        items[k2] = c2
    box = Box(items)
    M = engine.matrix(rb, ROWS)
    ev = engine.Evaluator(schema, M)
    got = engine.Evaluator(schema, M).truth(box_condition(box, schema))[0]
    assert got.tolist() == _box_truth(ev, box).tolist()


def test_zoo_oblique_dnf_is_the_model_on_nan_sums():
    """``learned_cart_subset_oblique --dnf``: engine, DSL round trip and the Python export agree with
    the model on rows whose oblique sums are NaN (24 of these 144 rows differed without the clauses)."""
    model, X = zoo.get(OBLIQUE)
    R = _nan_rows(model, X)
    want = [str(v) for v in model.predict(R).tolist()]
    rb = rulekit.to_rules(model, dnf=True)
    text = rulekit.dsl.dumps(rb)
    for obj in (rb, rulekit.dsl.loads(text)):
        assert [str(v) for v in obj.predict(R).tolist()] == want
    ns: dict = {}
    exec(rulekit.export.to_python(rb), ns)  # noqa: S102
    rows = R.astype(object).where(R.notna(), None).to_dict("records")
    assert [str(ns["predict"](r)) for r in rows] == want


@st.composite
def oblique_classifiers(draw):
    """A depth-2 classification tree of oblique splits over a, b, c (weights with zeros, thresholds
    incl. +-inf, both missing sides), leaves one of two classes."""
    b = TreeBuilder()

    def split():
        n = draw(st.integers(2, 3))
        feats = draw(st.permutations(range(3)))[:n]
        return feats, [draw(st.sampled_from([1.0, -1.0, 0.5, -3.0, 0.0, 2.0])) for _ in feats]

    def node():
        t = draw(st.sampled_from([0.0, 1.5, -1.0, math.inf, -math.inf]))
        op = draw(st.sampled_from(["<="] if t == -math.inf else ["<=", "<"]))
        return b.linear(*split(), t, op=op, missing=draw(st.integers(0, 1)))

    def leaf():
        k = draw(st.integers(0, 1))
        return b.leaf((1.0 - k, float(k)))

    root = node()
    for branch in (0, 1):
        if draw(st.booleans()):
            inner = node()
            b.connect(root, inner, branch)
            b.connect(inner, leaf(), 0)
            b.connect(inner, leaf(), 1)
        else:
            b.connect(root, leaf(), branch)
    validate_tree(b.graph, n_features=3)
    return Model([b.graph], [Feature(name=n) for n in NAMES], task="classification", classes=["n", "y"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(oblique_classifiers())
def test_random_oblique_dnf_is_the_model(model):
    want = model.predict(ROWS).tolist()
    rb = rulekit.to_rules(model, dnf=True)
    assert rb.predict(ROWS).tolist() == want
    assert rulekit.dsl.loads(rulekit.dsl.dumps(rb)).predict(ROWS).tolist() == want


def test_pruned_rules_are_their_boxes(monkeypatch):
    """The pruning path (pessimistic, then DNF) renders each generalised rule from its box
    (prune._with_box): on NaN-sum rows the rendered condition is TRUE exactly where the box holds."""
    model, X = zoo.get(OBLIQUE)
    Xt, y, _ = zoo._learned_frame()
    seen: list[tuple[Box, LiteralSchema, Rule]] = []
    real = prune._with_box

    def spy(ctx, r, box):
        out = real(ctx, r, box)
        seen.append((box, ctx.schema, out))
        return out

    monkeypatch.setattr(prune, "_with_box", spy)
    rulekit.to_rules(model, prune="pessimistic", prune_data=(Xt, y), dnf=True)
    R = _nan_rows(model, X)
    linear = [x for x in seen if any(isinstance(k, tuple) for k in x[0].items)]
    assert linear
    M = engine.matrix(seen[0][1].rb, R)
    nan_rows = 0
    for box, schema, rule in linear:
        ev = engine.Evaluator(schema, M)
        got = ev.truth(rule.condition)[0]
        want = _box_truth(ev, box)
        assert got.tolist() == want.tolist(), box
        nan_rows += int(want.sum())
    assert nan_rows


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
