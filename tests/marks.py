"""Test marks shared by the suite: which parametrized cases belong to the slow lane.

The everyday lane is ``python -m pytest -m "not slow"``; it keeps a representative slice of every
parametrized case list (every backend still runs), and CI runs everything.
"""

from __future__ import annotations

import pytest


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
