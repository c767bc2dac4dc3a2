"""Test marks shared by the suite: which parametrized cases belong to the slow lane.

The everyday lane is ``python -m pytest -m "not slow"``; it keeps a representative slice of every
parametrized case list (every backend still runs), and CI runs everything. Property tests run
``lane_examples(n)`` examples: ``n`` in the full suite, a tenth (at least 10) in the fast lane, which
``tests/conftest.py`` selects from the ``-m`` expression before any test module is imported.
"""

from __future__ import annotations

import re

import pytest

FAST_LANE = False  # set by tests/conftest.py's pytest_configure (``-m "not slow"``)
ZOO_FAST = ("sklearn_tree_binary", "sklearn_tree_regressor", "sklearn_forest_classifier",
            "xgboost_binary_nan_hostile", "handmade_nominal", "lightgbm_categorical_nan",
            "learned_cart_subset_oblique")
"""The fast lane's slice of tests/zoo.py: a classifier, a regressor, an averaged ensemble, a boosted
ensemble with NaN and hostile names, a nominal tree, a categorical model with missing values, an
oblique learned tree."""


def select_lane(markexpr: str) -> bool:
    """True (and remembered) when the ``-m`` expression deselects the slow lane."""
    global FAST_LANE
    FAST_LANE = re.search(r"\bnot\s+slow\b", markexpr or "") is not None
    return FAST_LANE


def lane_examples(n: int) -> int:
    """Hypothesis ``max_examples``: ``n`` in the full suite, a tenth (at least 10) in the fast lane."""
    return max(min(n, 10), n // 10) if FAST_LANE else n


def slow_cases(cases, slow) -> list:
    """``cases`` with those named in ``slow`` marked ``slow`` (the rest stay in the fast lane)."""
    slow = set(slow)
    unknown = slow - set(cases)
    if unknown:
        raise ValueError(f"slow cases not in the list: {sorted(unknown)}")
    return [pytest.param(c, marks=pytest.mark.slow) if c in slow else c for c in cases]


def fast_cases(cases, fast) -> list:
    """``cases`` with all but those named in ``fast`` marked ``slow``."""
    return slow_cases(cases, [c for c in cases if c not in set(fast)])


def zoo_cases(cases, also=()) -> list:
    """``cases`` (zoo names, or tuples holding one) with all but the fast slice (plus ``also``) marked
    ``slow``; a tuple is one case of a multi-argument parametrization."""
    keep = set(ZOO_FAST) | set(also)
    out = []
    for c in cases:
        names = c if isinstance(c, tuple) else (c,)
        if any(n in keep for n in names):
            out.append(c)
        else:
            out.append(pytest.param(*names, marks=pytest.mark.slow))
    return out
