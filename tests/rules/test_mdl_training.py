"""The MDL choice with training rows (issue #17, docs/rules.md session 7b): the rows the tree was
grown on (``organize(..., grown_from=)``) fit each rule by construction, so a rule's errors there
count as C4.5's pessimistic estimate ``n * U_cf(e, n)`` (``_grown_extra`` adds the excess to the
false positives, which may then be fractional); the held-out rows count as they are."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.errors import RulekitError
from rulekit.rules.prune import (GROWN_CF, _class_cost, _context, _feature_stats, _grown_extra, _mdl_refine,
                                 _mdl_subset, _single_box, organize)
from tests.rules.helpers import NOMINAL_HEAD


def _lg2_binom(n: float, k: float) -> float:
    """log2 of n choose k for real k, by the gamma function (0 outside 0 < k < n)."""
    if k <= 0 or k >= n:
        return 0.0
    return math.log2(math.gamma(n + 1) / (math.gamma(k + 1) * math.gamma(n - k + 1)))


def test_grown_extra_is_the_pessimistic_excess_on_the_grown_rows():
    grown = np.array([False, False, True, True, True, True, True, True, True])
    good = np.array([True, True, True, True, False, True, True, True, True])
    # two grown rows, both of the class, cf 0.25: U = 1 - 0.25 ** (1/2) = 0.5, so 2 * 0.5 - 0 = 1
    m = np.array([True, True, True, True, False, False, False, False, False])
    assert _grown_extra(m, good, grown, 0.25) == pytest.approx(1.0, abs=1e-12)
    # two grown rows, one an error, cf 0.19: U solves x ** 2 = 0.81, so 2 * 0.9 - 1 = 0.8
    m2 = np.array([False, False, False, True, True, False, False, False, False])
    assert _grown_extra(m2, good, grown, 0.19) == pytest.approx(0.8, abs=1e-9)
    # five error-free grown rows at the default cf 0.05: 5 * (1 - 0.05 ** 0.2) = 2.2536
    m5 = np.array([True, False, True, True, False, True, True, True, False])
    assert GROWN_CF == 0.05
    assert _grown_extra(m5, good, grown) == pytest.approx(5 * (1 - 0.05 ** 0.2), abs=1e-12)
    assert _grown_extra(m5, good, grown) == pytest.approx(2.2536, abs=1e-4)
    # held-out rows are not charged; no grown row, no charge
    assert _grown_extra(np.array([True, True] + [False] * 7), good, grown) == 0.0


def test_class_cost_adds_the_excess_to_the_false_positives():
    good = np.array([True, True, False, True, False, False, True, False])
    m = np.array([True, True, True, True, False, False, False, False])  # r = 4, fp = 1; fn = 1 of 4
    theory = [6.0]
    assert _class_cost([m], theory, good, 0.5) == pytest.approx(
        math.log2(math.comb(4, 1)) + math.log2(math.comb(4, 1)) + 3.0, abs=1e-12)
    # one whole extra error: fp 2 of 4
    assert _class_cost([m], theory, good, 0.5, [1.0]) == pytest.approx(
        math.log2(math.comb(4, 2)) + math.log2(4) + 3.0, abs=1e-12)
    # a fractional one: C(4, 1.8) = 4! / (Gamma(2.8) Gamma(3.2)) = 5.9057
    got = _class_cost([m], theory, good, 0.5, [0.8])
    assert got == pytest.approx(_lg2_binom(4, 1.8) + 2.0 + 3.0, abs=1e-9)
    assert 2 ** (got - 5.0) == pytest.approx(5.9057, abs=1e-3)
    # the charge stops at half the covered rows, where the bits are largest: C(4, 2)
    top = math.log2(math.comb(4, 2)) + 2.0 + 3.0
    assert _class_cost([m], theory, good, 0.5, [7.0]) == pytest.approx(top, abs=1e-12)
    assert _class_cost([m], theory, good, 0.5, [1.5]) == pytest.approx(top, abs=1e-12)
    # extras are per rule: they add up
    assert _class_cost([m, m], [6.0, 6.0], good, 0.5, [0.5, 0.5]) == pytest.approx(
        math.log2(math.comb(4, 2)) + 2.0 + 6.0, abs=1e-12)


def test_class_cost_never_falls_as_the_charge_grows():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(2, 40))
        good = rng.random(n) < 0.5
        m = rng.random(n) < 0.6
        costs = [_class_cost([m], [5.0], good, 0.5, [x]) for x in np.linspace(0.0, n, 41)]
        assert all(b >= a - 1e-12 for a, b in zip(costs, costs[1:])), costs


def _rows() -> tuple[pd.DataFrame, np.ndarray, int]:
    """24 held-out rows then 24 grown rows, each the grid of a, b, z once: class 1 where a = p, plus
    every fifth row elsewhere (noise) and the cell (q, u, k) in both halves (one row each)."""
    grid = pd.DataFrame(list(itertools.product("pqrs", "uv", "klm")), columns=["a", "b", "z"], dtype=object)
    y = (grid.a == "p").astype(int).to_numpy().copy()
    y[np.flatnonzero((grid.a != "p").to_numpy())[::5]] = 1
    y[((grid.a == "q") & (grid.b == "u") & (grid.z == "k")).to_numpy()] = 1
    X = pd.concat([grid, grid], ignore_index=True)
    return X, np.concatenate([y, y]), len(grid)


def test_a_rule_the_grown_rows_alone_support_is_left_out():
    """``a = q and b = u and z = k`` is right on its two rows (one held out, one grown): counted as
    they are, they pay for its conditions; with the grown row's error counted pessimistically
    (0.95 of an error at cf 0.05) they do not, and the concept's rule stays alone."""
    X, y, held = _rows()
    rb = rulekit.dsl.loads(NOMINAL_HEAD + "r1: if a = p then 1\nr2: if a = q and b = u and z = k then 1\n")
    plain = organize(rb, X, y, mdl=True)
    assert len(plain.rules) == 2, rulekit.dsl.dumps(plain)  # (the refinement widens r2 to b = u and z = k)
    for no_grown in (None, len(y)):  # no grown rows: the plain choice
        assert organize(rb, X, y, mdl=True, grown_from=no_grown).rules == plain.rules
    out = organize(rb, X, y, mdl=True, grown_from=held)
    assert [str(r.condition) for r in out.rules] == [str(rb.rules[0].condition)], rulekit.dsl.dumps(out)
    # without the MDL choice the grown rows change nothing
    assert organize(rb, X, y, grown_from=held).rules == organize(rb, X, y).rules


def test_the_subset_and_the_refinement_each_charge_the_grown_rows():
    """Both MDL steps, each on its own: given both rules, the subset choice and the refinement drop
    the small one with the grown rows charged and keep it without."""
    X, y, held = _rows()
    rb = rulekit.dsl.loads(NOMINAL_HEAD + "r1: if a = p then 1\nr2: if a = q and b = u and z = k then 1\n")
    ctx = _context(rb, X, y)
    stats = _feature_stats(ctx)
    lst = [(r, 1, ctx.ev.true(r.condition), _single_box(ctx, r)) for r in rb.rules]
    good = ctx.yc == 1
    grown = np.arange(len(y)) >= held
    assert len(_mdl_subset(lst, good, stats, 0.5)) == 2
    assert [cd[0].id for cd in _mdl_subset(lst, good, stats, 0.5, grown)] == ["r1"]
    assert len(_mdl_refine(ctx, lst, good, stats, 0.5)) == 2
    assert [cd[0].id for cd in _mdl_refine(ctx, lst, good, stats, 0.5, grown)] == ["r1"]


def test_grown_from_outside_the_rows_is_refused():
    X, y, _ = _rows()
    rb = rulekit.dsl.loads(NOMINAL_HEAD + "r1: if a = p then 1\n")
    for bad in (-1, len(y) + 1):
        with pytest.raises(RulekitError, match="grown_from"):
            organize(rb, X, y, mdl=True, grown_from=bad)
