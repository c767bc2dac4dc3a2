"""The exact float64 boundary of a monotone test, found by bisection over the doubles themselves.

A tree behind a scaler tests ``F(x) <= c`` where ``F`` is scikit-learn's float arithmetic (say
``fl((x - m) / s)``) and ``c`` the canonical float64 boundary of the tree's own test. ``F`` is
monotone non-decreasing in ``x``, so the doubles passing the test are ``[-max, b]``; ``b`` is found
by bisection over the integer view of the doubles (64 steps, every threshold at once), never as
``c * s + m``, which is a different test on some rows (shared/FACTS.md).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_MAX = np.finfo(np.float64).max
ALL = np.inf       # every finite double passes
NONE = -np.inf     # no finite double passes


def _key(x: np.ndarray) -> np.ndarray:
    """Order-preserving int64 key of doubles (-0.0 and 0.0 share key 0)."""
    bits = np.asarray(x, np.float64).view(np.int64)
    return np.where(bits >= 0, bits, -(bits & np.int64(0x7FFFFFFFFFFFFFFF)))


def _from_key(k: np.ndarray) -> np.ndarray:
    k = np.asarray(k, np.int64)
    mag = np.abs(k).view(np.float64)
    return np.where(k >= 0, mag, -mag)


def largest_passing(fn: Callable[[np.ndarray], np.ndarray], bounds: np.ndarray) -> np.ndarray:
    """For each ``c`` in ``bounds``: the largest finite double ``b`` with ``fn(b) <= c``.

    ``fn`` maps a float64 array to a float64 array and must be non-decreasing on finite doubles.
    Returns :data:`ALL` (``inf``) where every finite double passes and :data:`NONE` (``-inf``) where
    none does; otherwise ``fn(b) <= c`` and ``fn(nextafter(b, inf)) > c``.
    """
    c = np.asarray(bounds, np.float64)
    n = c.shape[0]
    lo = np.full(n, _key(np.float64(-_MAX)))
    hi = np.full(n, _key(np.float64(_MAX)))
    with np.errstate(all="ignore"):
        top_ok = fn(np.full(n, _MAX)) <= c
        bottom_ok = fn(np.full(n, -_MAX)) <= c
    active = bottom_ok & ~top_ok
    # invariant on active entries: fn(from_key(lo)) <= c, fn(from_key(hi)) > c
    while True:
        gap = hi - lo  # at most ~2^63 apart on each side of zero: compute mid without overflow
        todo = active & ((hi > 0) & (lo < 0) | (gap > 1))
        if not todo.any():
            break
        mid = (lo >> 1) + (hi >> 1) + ((lo & 1) + (hi & 1) >> 1)
        with np.errstate(all="ignore"):
            ok = fn(_from_key(mid)) <= c
        lo = np.where(todo & ok, mid, lo)
        hi = np.where(todo & ~ok, mid, hi)
    out = _from_key(lo)
    out = np.where(top_ok, ALL, out)
    return np.where(~top_ok & ~bottom_ok, NONE, out)
