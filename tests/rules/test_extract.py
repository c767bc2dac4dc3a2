"""Path rules reproduce their model exactly: every zoo model, probe rows (thresholds, neighbours, NaN)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.ir.model import Feature, Model
from rulekit.ir.tree import TreeBuilder
from rulekit.rules import decision_diagram as diagram, engine
from rulekit.rules.base import Compare, InSet, IsMissing, Or
from rulekit.rules.boxes import count_literals
from rulekit.rules.extract import extract
from tests import zoo
from tests.marks import slow_cases


def assert_same(model, rb, data):
    want = model.predict(data)
    got = rb.predict(data)
    if model.task == "regression":
        assert np.array_equal(got, want)  # the same arithmetic: bit for bit
    else:
        assert got.tolist() == want.tolist()
        P, Q = rb.predict_proba(data), model.predict_proba(data)
        assert np.abs(P - Q).max() <= 1e-12


@pytest.mark.parametrize("simplify", [False, True], ids=["raw", "simplified"])
@pytest.mark.parametrize("name", slow_cases(zoo.zoo_names(), ["chain_deep"]))
def test_path_rules_reproduce_the_model(name, simplify):
    model, data = zoo.get(name)
    rb = rulekit.to_rules(model, simplify=simplify)
    assert_same(model, rb, data)
    if len(model.trees) == 1:
        leaves = sum(1 for _, k in model.graph.nodes(data="kind") if k == "leaf")
        assert len(rb.rules) <= leaves
        if not simplify:
            assert len(rb.rules) == leaves
    else:
        assert rb.combiner == model.combiner
        assert {r.group for r in rb.rules} == set(range(len(model.trees)))


@pytest.mark.parametrize("name", slow_cases(zoo.zoo_names(), ["chain_deep"]))
def test_generic_evaluator_agrees_with_the_diagram(name):
    model, data = zoo.get(name)
    rb = rulekit.to_rules(model)
    M = engine.matrix(rb, data)
    for _, idx in engine.groups(rb)[:5]:
        assert (engine.first_hit(rb, M, idx) == engine._first_hit_generic(rb, M, idx)).all()


def test_tree_rules_compile_back_to_a_tree_of_the_same_size():
    model, _ = zoo.get("sklearn_tree_binary")
    rb = rulekit.to_rules(model)
    d = diagram.get(rb, tuple(range(len(rb.rules))))
    assert d is not None and d.numeric_only
    assert d.ct.kind.size == model.graph.number_of_nodes()


def test_missing_side_and_operators_follow_the_tree():
    b = TreeBuilder()
    root = b.numeric(0, 0.5, op="<", precision="float32", missing=1)  # XGBoost style: x < t, NaN right
    b.connect(root, b.leaf((1.0,)), 0)
    b.connect(root, b.leaf((2.0,)), 1)
    model = Model([b.graph], [Feature(name="x")], task="regression")
    rb = extract(model)
    assert rb.precision == "float32"
    assert rb.rules[0].condition == Compare(feature="x", op="<", value=0.5)
    assert rb.rules[1].condition == Or(items=(Compare(feature="x", op=">=", value=0.5), IsMissing(feature="x")))


def test_nominal_branches_other_values_and_unseen():
    model, data = zoo.get("handmade_nominal")
    rb = extract(model)
    texts = [r.condition for r in rb.rules]
    # the 'other' branch takes unseen values: a negated set; the missing branch adds `is missing`
    assert texts[-1] == Or(items=(InSet(feature="colour", values=("red", "green", "it's"), negated=True),
                                  IsMissing(feature="colour")))
    X = pd.DataFrame({"colour": ["purple", None, "red"], "size": [1.0, 1.0, 1.0], "shape": ["circle"] * 3})
    assert rb.predict(X).tolist() == model.predict(X).tolist()


def test_nominal_without_other_branch_sends_unseen_values_the_missing_way():
    feats = [Feature(name="c", kind="nominal", domain=("a", "b", "z"))]
    b = TreeBuilder()
    root = b.nominal(0, missing=1)
    b.connect(root, b.leaf((1.0, 0.0)), 0, values=(0,))
    b.connect(root, b.leaf((0.0, 1.0)), 1, values=(1,))
    model = Model([b.graph], feats, task="classification", classes=["p", "q"])
    rb = extract(model)
    X = pd.DataFrame({"c": ["a", "b", "z", "unseen", None]})
    assert rb.predict(X).tolist() == model.predict(X).tolist() == ["p", "q", "q", "q", "q"]
    assert rulekit.to_rules(model).rules[1].condition == Or(items=(Compare(feature="c", op="!=", value="a"),
                                                                   IsMissing(feature="c")))


@pytest.mark.slow
def test_deep_chain_simplified_in_linear_time():
    model = zoo.chain_model(20_000)
    t = time.thread_time()  # CPU (~1.3 s): a loaded machine stretches wall time, not this
    rb = rulekit.to_rules(model)
    assert time.thread_time() - t < 30
    assert len(rb.rules) == 20_001
    assert max(count_literals(r.condition) for r in rb.rules) <= 2
    xs = np.concatenate([np.arange(-1, 20_002, 0.5), [np.nan]]).reshape(-1, 1)
    assert rb.predict(xs).tolist() == model.predict(xs).tolist()


@pytest.mark.slow
def test_too_long_raw_paths_fall_back_to_simplified_ones():
    model = zoo.chain_model(3_300)  # the raw paths would hold 5.4 million tests
    raw = rulekit.to_rules(model, simplify=False)
    assert "paths simplified" in raw.comments[-1]
    assert max(count_literals(r.condition) for r in raw.rules) <= 2


def test_unreachable_leaves_are_dropped_when_simplifying():
    b = TreeBuilder()
    root = b.numeric(0, 5.0, missing=0)
    inner = b.numeric(0, 7.0, missing=0)
    b.connect(root, inner, 0)
    b.connect(root, b.leaf((3.0,)), 1)
    b.connect(inner, b.leaf((1.0,)), 0)
    b.connect(inner, b.leaf((2.0,)), 1)  # x <= 5 and x > 7: nothing reaches it
    model = Model([b.graph], [Feature(name="x")], task="regression")
    assert len(extract(model).rules) == 3
    rb = rulekit.to_rules(model)
    assert len(rb.rules) == 2
    xs = np.array([[4.0], [6.0], [8.0], [np.nan]])
    assert rb.predict(xs).tolist() == model.predict(xs).tolist()
