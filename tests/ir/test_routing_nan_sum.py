"""Rule bases from trees with oblique splits route a NaN sum (``inf - inf``, ``0 * inf``, a finite
partial sum that overflows before an opposite infinity) to the split's missing side, as the tree does
(:func:`rulekit.semantics.routing.nan_sum_tests`, spelled by rulekit.rules.extract).

Random oblique trees (weights with zeros and signs, thresholds including +-inf, both operators, both
missing sides, splits on the same sum nested) against ``Model.predict`` on rows of infinities, huge
finite values and NaN: raw paths, simplified paths, the pipeline's rules and their DSL round trip.
tests/exporters/test_sql_nan_sum.py runs the same on the Python, ONNX and SQL rule exports.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.ir.model import Feature, Model
from rulekit.ir.tree import TreeBuilder, validate_tree
from rulekit.rules.extract import extract
from rulekit.semantics import routing

NAMES = ("a", "b", "c")
VALUES = [-math.inf, math.inf, 0.0, 1.0, -2.5, 1e308, -1e308, math.nan]
ROWS = pd.DataFrame(list(itertools.product(VALUES, repeat=3)), columns=list(NAMES))

weights = st.sampled_from([1.0, -1.0, 0.5, -3.0, 0.0, 2.0])
thresholds = st.sampled_from([0.0, 1.5, -1.0, math.inf, -math.inf])


@st.composite
def oblique_trees(draw):
    """A depth-2 tree of oblique splits; the second level may reuse the root's terms."""
    b = TreeBuilder()
    value = itertools.count()

    def split():
        n = draw(st.integers(1, 3))
        feats = draw(st.permutations(range(3)))[:n]
        ws = [draw(weights) for _ in feats]
        return feats, ws

    def test():  # 'x < -inf' is refused (rulekit.semantics.thresholds.MinusInfinityTest)
        t = draw(thresholds)
        return t, draw(st.sampled_from(["<="] if t == -math.inf else ["<=", "<"]))

    root_terms = split()
    t, op = test()
    root = b.linear(*root_terms, t, op=op, missing=draw(st.integers(0, 1)))
    for branch in (0, 1):
        if draw(st.booleans()):
            terms = root_terms if draw(st.booleans()) else split()
            t, op = test()
            node = b.linear(*terms, t, op=op, missing=draw(st.integers(0, 1)))
            b.connect(root, node, branch)
            for k in (0, 1):
                b.connect(node, b.leaf((float(next(value)),)), k)
        else:
            b.connect(root, b.leaf((float(next(value)),)), branch)
    validate_tree(b.graph, n_features=3)
    return Model([b.graph], [Feature(name=n) for n in NAMES], task="regression")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(oblique_trees())
def test_rule_bases_send_nan_sums_where_the_tree_does(model):
    want = model.predict(ROWS).tolist()
    for rb in (extract(model), extract(model, simplify=True), rulekit.to_rules(model)):
        assert rb.predict(ROWS).tolist() == want
        assert rulekit.dsl.loads(rulekit.dsl.dumps(rb)).predict(ROWS).tolist() == want


@pytest.mark.parametrize("threshold,op", [(math.inf, "<="), (math.inf, "<"), (-math.inf, "<=")])
@pytest.mark.parametrize("missing", [0, 1])
def test_infinite_thresholds(threshold, op, missing):
    """``a - b <= inf`` holds for every sum but NaN: its box is the whole line without the missing
    flag, written ``not (a is missing or b is missing) and not (<NaN clauses>)``."""
    b = TreeBuilder()
    root = b.linear((0, 1), (1.0, -1.0), threshold, op=op, missing=missing)
    b.connect(root, b.leaf((1.0,)), 0)
    b.connect(root, b.leaf((2.0,)), 1)
    model = Model([b.graph], [Feature(name=n) for n in NAMES], task="regression")
    want = model.predict(ROWS).tolist()
    for rb in (extract(model), extract(model, simplify=True), rulekit.to_rules(model)):
        assert rb.predict(ROWS).tolist() == want
        assert rulekit.dsl.loads(rulekit.dsl.dumps(rb)).predict(ROWS).tolist() == want


def _nan_by_tests(terms, x: dict) -> bool:
    """Some clause of nan_sum_tests holds, evaluated in plain float arithmetic."""
    def value(ts):
        s = 0.0
        for w, n in ts:
            s = s + w * x[n]
        return s

    for clause in routing.nan_sum_tests(terms):
        ok = True
        for ts, op, v in clause:
            s = value(ts)
            ok = ok and (s >= v if op == ">=" else s <= v)
        if ok:
            return True
    return False


@pytest.mark.parametrize("terms", [((1.0, "a"), (1.0, "b"), (-2.0, "c")), ((0.0, "a"), (3.0, "b")),
                                   ((-1.0, "a"), (0.5, "b"), (0.0, "c")), ((2.0, "a"),)])
def test_nan_sum_tests_are_exactly_the_nan_sums(terms):
    """On every row of special values with no NaN input: a clause holds iff the left-to-right sum is NaN."""
    for row in itertools.product([v for v in VALUES if not math.isnan(v)], repeat=3):
        x = dict(zip(NAMES, row))
        s = 0.0
        for w, n in terms:
            s = s + w * x[n]
        assert _nan_by_tests(terms, x) == math.isnan(s), (terms, row)


def test_one_nonzero_term_has_no_nan_clause():
    assert routing.nan_sum_tests(((2.0, "a"),)) == []
    assert np.isnan(0.0 * math.inf)
    assert routing.nan_sum_tests(((0.0, "a"),)) == [((((1.0, "a"),), ">=", math.inf),),
                                                    ((((1.0, "a"),), "<=", -math.inf),)]
