"""Joined candidates (`rulekit.rules.join`, issue #17 dnf6, docs/rules.md session 8): a rule whose
nominal test a tree cut into value subsets gets the cell it left out when the pruning rows support
it, and never when they do not; a joined candidate's pessimistic error rate on the pruning rows is
never above the worse of the two boxes it joins."""

from __future__ import annotations


import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.rules import join
from rulekit.rules.boxes import Box, NomSet
from rulekit.rules.prune import organize, ucf
from tests.marks import lane_examples
from tests.rules.helpers import NOMINAL_HEAD, nominal_grid


def _predict(rb, X) -> np.ndarray:
    return np.asarray(rb.predict(X)).astype(int)


def test_two_rules_that_differ_in_one_nominal_test_join():
    """`a in {p, q} and b = u` and `a = s and b = u` (the concept `a != r and b = u`): one rule."""
    X = nominal_grid(8)
    y = ((X.a != "r") & (X.b == "u")).astype(int).to_numpy()
    rb = rulekit.dsl.loads(NOMINAL_HEAD + "r1: if a in {p, q} and b = u then 1\nr2: if a = s and b = u then 1\n")
    out = organize(rb, X, y, mdl=True, grown_from=len(y))
    assert len(out.rules) == 1, rulekit.dsl.dumps(out)
    assert np.array_equal(_predict(out, X), y)


def test_a_rule_joins_the_cell_no_candidate_holds():
    """dnf6's shape: the tree's only rule says `a in {p, q}`, the concept `a != r`: the cell `a = s`
    (every row of class 1) is joined, so its rows are predicted 1."""
    X = nominal_grid(8)
    y = ((X.a != "r") & (X.b == "u")).astype(int).to_numpy()
    rb = rulekit.dsl.loads(NOMINAL_HEAD + "r1: if a in {p, q} and b = u then 1\n")
    out = organize(rb, X, y, mdl=True, grown_from=len(y))
    assert np.array_equal(_predict(out, X), y), rulekit.dsl.dumps(out)


def test_no_join_when_the_cell_is_not_the_class():
    """The cell `a = s and b = u` is class 0 on 3 of its 4 rows per repeat: no joined rule, the
    rule stays `a in {p, q}` and the cell's rows are predicted 0."""
    X = nominal_grid(8)
    y = (X.a.isin(["p", "q"]) & (X.b == "u")).astype(int).to_numpy().copy()
    cell = np.flatnonzero(((X.a == "s") & (X.b == "u")).to_numpy())
    y[cell[::4]] = 1  # a quarter of the cell is class 1: its pessimistic error rate is far above 0.3
    rb = rulekit.dsl.loads(NOMINAL_HEAD + "r1: if a in {p, q} and b = u then 1\n")
    out = organize(rb, X, y, mdl=True, grown_from=len(y))
    assert not _predict(out, X)[cell].any(), rulekit.dsl.dumps(out)
    ctx_boxes = [Box({("a",): NomSet(frozenset({0, 1}), 4), ("b",): NomSet(frozenset({0}), 2)})]
    codes = {"a": X.a.map("pqrs".index).to_numpy(), "b": X.b.map("uv".index).to_numpy()}

    def member(box):
        rows = [np.isin(codes[k[0]], sorted(c.codes)) for k, c in box.items.items()]
        return np.logical_and.reduce(rows)

    good = y == 1
    assert join.joins(ctx_boxes, [member(ctx_boxes[0])], good, np.ones(len(y), bool), ucf, member) == []


def test_no_join_of_overlapping_sets_that_adds_errors():
    """`a in {p, q}` and `a in {q, r}` (b = u both): q is class 1, p and r one error each: the join
    `a in {p, q, r}` has two errors where each parent has one, a higher pessimistic rate."""
    codes = {"a": np.array([1] * 10 + [0, 2]), "b": np.zeros(12, int)}
    good = np.array([True] * 10 + [False, False])

    def member(box):
        return np.logical_and.reduce([np.isin(codes[k], sorted(c.codes)) for k, c in box.items.items()])

    boxes = [Box({"a": NomSet(frozenset({0, 1}), 4), "b": NomSet(frozenset({0}), 2)}),
             Box({"a": NomSet(frozenset({1, 2}), 4), "b": NomSet(frozenset({0}), 2)})]
    out = join.joins(boxes, [member(b) for b in boxes], good, np.ones(12, bool), ucf, member)
    assert not any(j[1].items["a"].codes == {0, 1, 2} for j in out), out


def _rate(m, good, pruning):
    rows = m & pruning
    return ucf(int((rows & ~good).sum()), int(rows.sum()))


@st.composite
def _case(draw):
    sizes = draw(st.lists(st.integers(2, 4), min_size=2, max_size=4))
    n = draw(st.integers(20, 120))
    seed = draw(st.integers(0, 2 ** 31))
    rng = np.random.default_rng(seed)
    codes = [rng.integers(0, s, n) for s in sizes]
    good = rng.random(n) < draw(st.floats(0.2, 0.95))
    pruning = rng.random(n) < draw(st.floats(0.3, 1.0))
    def values(s):
        return NomSet(frozenset(int(v) for v in rng.choice(s, int(rng.integers(1, s)), replace=False)), s)

    boxes = []
    for _ in range(draw(st.integers(1, 6))):
        if boxes and rng.random() < 0.5:  # a sibling: one test of an earlier box drawn again
            items = dict(boxes[int(rng.integers(len(boxes)))].items)
            f = list(items)[int(rng.integers(len(items)))]
            items[f] = values(sizes[f[0]])
        else:
            items = {(f,): values(s) for f, s in enumerate(sizes) if rng.random() < 0.6}
        if items:
            boxes.append(Box(items))
    return codes, good, pruning, boxes


@settings(max_examples=lane_examples(200), deadline=None)
@given(_case())
def test_a_joined_candidate_is_never_worse_than_the_worse_parent(case):
    codes, good, pruning, boxes = case

    def member(box):
        rows = [np.isin(codes[k[0]], sorted(c.codes)) for k, c in box.items.items()]
        return np.logical_and.reduce(rows) if rows else np.ones(len(good), bool)

    for parent, box, m, left, right in join.joins(boxes, [member(b) for b in boxes], good, pruning, ucf, member):
        assert np.array_equal(m, member(box))
        # the two joined boxes differ in one nominal test, the joined one takes both value sets
        diff = [k for k in left.items if left.items[k] != right.items.get(k)]
        assert left.items.keys() == right.items.keys() and len(diff) == 1
        k = diff[0]
        assert box.items[k].codes == left.items[k].codes | right.items[k].codes
        assert all(box.items[o] == left.items[o] for o in left.items if o != k)
        assert _rate(m, good, pruning) <= max(_rate(member(left), good, pruning),
                                              _rate(member(right), good, pruning)) + 1e-12
