"""Timing helper shared by the benchmarks (bench/run.py puts this folder on sys.path)."""

from __future__ import annotations

import time


def best_time(fn, repeat: int = 3):
    """(best wall time over ``repeat`` calls, the last result): the least disturbed measurement."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out
