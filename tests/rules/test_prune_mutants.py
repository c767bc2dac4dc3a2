"""C4.5's pessimistic pruning core (``rules/prune.py``: ``ucf`` and ``_prune_pessimistic``): the
behaviours a mutation run of these two functions found untested (issue #23): ucf's edge cases, and
which condition goes (the one whose dropping lowers the pessimistic error most, the first on a tie,
none that raises it, one left at least, each drop counting the rows it newly admits).
docs/testing.md lists the run."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.rules.prune import _prune_pessimistic, ucf


def test_ucf_edges():
    assert ucf(0, 0) == 1.0 and ucf(3, 0) == 1.0  # no case: nothing known
    assert ucf(5, 5) == 1.0 and ucf(6, 5) == 1.0  # every case wrong
    assert ucf(0, 1) == pytest.approx(0.75, abs=1e-15)
    assert 0.0 < ucf(1, 10) < 1.0


def _matrix(groups):
    """Rows as (how many, which conditions fail, good?) -> T (conditions x rows), good."""
    k = max(max(f, default=-1) for _, f, _ in groups) + 1
    k = max(k, 2)
    cols, good = [], []
    for n, fail, g in groups:
        for _ in range(n):
            cols.append([u not in fail for u in range(k)])
            good.append(g)
    return np.array(cols, dtype=bool).T, np.array(good, dtype=bool)


def test_the_condition_whose_drop_lowers_the_estimate_goes():
    T, good = _matrix([(10, (), True), (1, (), False), (20, (1,), True), (20, (0,), False)])
    assert _prune_pessimistic(T, good, 0.25) == [True, False]
    T, good = _matrix([(10, (), True), (1, (), False), (20, (1,), False), (20, (0,), False)])
    assert _prune_pessimistic(T, good, 0.25) == [True, True]  # every drop admits wrong rows


def test_nothing_to_judge_keeps_every_condition():
    assert _prune_pessimistic(np.zeros((0, 5), dtype=bool), np.ones(5, dtype=bool), 0.25) == []
    T, good = _matrix([(5, (0,), True), (5, (1,), True)])  # no row passes every condition
    assert _prune_pessimistic(T, good, 0.25) == [True, True]


def test_a_tie_drops_the_first_and_no_worse_is_enough():
    T, good = _matrix([(10, (), True), (20, (0,), True), (20, (1,), True)])
    assert _prune_pessimistic(T, good, 0.25) == [False, True]
    T, good = _matrix([(10, (), True), (1, (), False)])  # no near rows: dropping changes nothing
    assert _prune_pessimistic(T, good, 0.25) == [False, True]


def test_later_drops_count_the_rows_earlier_drops_brought_near():
    # rows failing both u1 and u2 are good: after u1 goes they fail u2 only, and u2 goes as well
    T, good = _matrix([(10, (), True), (1, (), False), (30, (1,), True), (40, (1, 2), True), (40, (0,), False)])
    assert _prune_pessimistic(T, good, 0.25) == [True, False, False]
    # with those rows wrong, u2 stays
    T, good = _matrix([(10, (), True), (1, (), False), (30, (1,), True), (40, (1, 2), False), (40, (0,), False)])
    assert _prune_pessimistic(T, good, 0.25) == [True, False, True]
