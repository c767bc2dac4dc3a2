"""Numeric cuts for the rule inducer (:mod:`rulekit.rules.induction`): where a test ``x <= t`` or
``x > t`` goes.

Scoring a cut between every pair of neighbouring values costs a search per value, so the inducer
scores ``max_thresholds`` quantiles of the covered cases first. A cut confined to that grid misses
the place where the classes change by up to a grid step (``f1 > 0.20092`` for a concept cut at 0.2
over 30,000 rows, and then a sliver rule for the rows in between). So the best grid cut of each side
is then refined: every gap between neighbouring values from the grid point before it to the grid
point after it is scored by the same gain, in one vectorised pass, and the best gap wins. The cut is
the midpoint of its gap, as before.

A grown rule's cuts are then settled (:func:`settle`): each is chosen again near where it is, given
the rule's other tests, and placed within its gap of the growing rows by all the rows of the step.
"""

from __future__ import annotations

import math

import numpy as np

_EPS = 1e-12


def foil(p0: float, n0: float, p1: np.ndarray, n1: np.ndarray) -> np.ndarray:
    """FOIL's information gain of going from ``p0``/``n0`` covered cases to ``p1``/``n1``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        g = p1 * (np.log2((p1 + _EPS) / (p1 + n1 + _EPS)) - math.log2((p0 + _EPS) / (p0 + n0 + _EPS)))
    return np.where(p1 > 0, g, -np.inf)


def grid(vals: np.ndarray, xs: np.ndarray, max_thresholds: int) -> np.ndarray:
    """Positions (into the midpoints of the sorted distinct ``vals``) of the cuts scored first:
    all of them, or those at ``max_thresholds`` quantiles of the covered values ``xs``."""
    n_mids = vals.size - 1
    if n_mids <= max_thresholds:
        return np.arange(n_mids)
    q = np.unique(np.quantile(xs, np.linspace(0, 1, max_thresholds + 2)[1:-1], method="lower"))
    pos = np.searchsorted(vals, q)
    return np.unique(pos[(pos >= 0) & (pos < n_mids)])


def window(at: np.ndarray, k: int, n_mids: int) -> tuple[int, int]:
    """The midpoints strictly between the grid points either side of grid point ``k`` (the ends of
    the value range where it has no neighbour): ``[lo, hi)``."""
    lo = int(at[k - 1]) + 1 if k > 0 else 0
    hi = int(at[k + 1]) if k + 1 < at.size else n_mids
    return lo, hi


def numeric_candidates(j: int, xp: np.ndarray, xn: np.ndarray, p0: float, n0: float,
                       max_thresholds: int) -> list[tuple]:
    """The best ``x <= t`` and the best ``x > t`` on column ``j``: ``(gain, (j, op, t), p, n)``
    each, ``xp``/``xn`` the column over the covered positives and negatives (NaN: missing)."""
    vp, vn = xp[~np.isnan(xp)], xn[~np.isnan(xn)]
    if vp.size == 0:
        return []
    both = np.concatenate([vp, vn])
    vals = np.unique(both)
    if vals.size < 2:
        return []
    mids = vals[:-1] / 2.0 + vals[1:] / 2.0  # no overflow near the largest floats
    sp, sn = np.sort(vp), np.sort(vn)
    at = grid(vals, both, max_thresholds)
    out = []
    for op in ("<=", ">"):
        best = _best(op, mids[at], sp, sn, p0, n0)
        if at.size < mids.size:
            best = refine(op, best, window(at, best[0], mids.size), mids, sp, sn, p0, n0)
        k, g, pc, nc, t = best
        out.append((g, (j, op, float(t)), pc, nc))
    return out


def refine(op: str, best: tuple, span: tuple[int, int], mids: np.ndarray, sp: np.ndarray, sn: np.ndarray,
           p0: float, n0: float) -> tuple:
    """``best`` (from :func:`_best` on the grid), or the cut of ``mids[lo:hi]`` with a higher gain."""
    lo, hi = span
    if hi <= lo:
        return best
    fine = _best(op, mids[lo:hi], sp, sn, p0, n0)
    return fine if fine[1] > best[1] else best


def _best(op: str, cuts: np.ndarray, sp: np.ndarray, sn: np.ndarray, p0: float, n0: float) -> tuple:
    """``(index, gain, p, n, cut)`` of the cut in ``cuts`` with the best gain for side ``op``."""
    g, pc, nc = _gains(op, cuts, sp, sn, p0, n0)
    k = int(np.argmax(g))
    return k, g[k], pc[k], nc[k], cuts[k]


def _gains(op: str, cuts: np.ndarray, sp: np.ndarray, sn: np.ndarray, p0: float, n0: float) -> tuple:
    """FOIL's gain of side ``op`` at each of ``cuts``, and the positives and negatives it keeps
    (``sp``/``sn``: the covered values, sorted)."""
    pc = np.searchsorted(sp, cuts, "right").astype(float)
    nc = np.searchsorted(sn, cuts, "right").astype(float)
    if op == ">":
        pc, nc = sp.size - pc, sn.size - nc
    return foil(p0, n0, pc, nc), pc, nc


def settle(data, rule: list[tuple], grow: tuple[np.ndarray, np.ndarray],
           rows: tuple[np.ndarray, np.ndarray]) -> list[tuple]:
    """``rule`` with each numeric cut moved to the best place given the rule's other tests.

    A cut grown early is chosen before the later tests removed the cases near it (FOIL gives a cut a
    few values past the class change for dropping negatives a later test drops anyway), so each one
    is chosen again near where it is (:func:`_regrow`), by the same gain, on the growing rows
    ``grow`` that the other tests cover. The growing rows only fix the gap between two of their
    values; within it the cut goes where the gain is best on ``rows`` (all the positives and
    negatives of the class step once the rule is pruned), so rows the growing third never saw fall
    on the right side. ``data`` is the inducer's matrix (``M``,
    ``literal_truth``, ``max_thresholds``)."""
    for _ in range(2):  # a second pass sees the other cuts settled
        before, rule = rule, _settle_once(data, list(rule), grow, rows)
        if rule == before:
            break
    return rule


def _settle_once(data, rule: list[tuple], grow: tuple, rows: tuple) -> list[tuple]:
    sets = (*grow, *rows)
    truth = [[data.literal_truth(lit, s) for lit in rule] for s in sets]  # each test on each set, once
    for i, (j, op, t) in enumerate(rule):
        if op not in ("<=", ">"):
            continue
        pg, ng, p, n = (s[_all_but(tr, i, s.size)] for s, tr in zip(sets, truth))
        t = _regrow(op, t, data.M[pg, j], data.M[ng, j], data.max_thresholds)
        xg = data.M[np.concatenate([pg, ng]), j]
        t = _place(op, t, xg[~np.isnan(xg)], data.M[p, j], data.M[n, j])
        if t != rule[i][2]:
            rule[i] = (j, op, t)
            for s, tr in zip(sets, truth):
                tr[i] = data.literal_truth(rule[i], s)
    return rule


def _all_but(truth: list[np.ndarray], i: int, size: int) -> np.ndarray:
    """Rows where every test but the ``i``-th holds."""
    ok = np.ones(size, bool)
    for k, tr in enumerate(truth):
        if k != i:
            ok &= tr
    return ok


def _regrow(op: str, t: float, xp: np.ndarray, xn: np.ndarray, max_thresholds: int) -> float:
    """The cut of side ``op`` with the best gain on these cases near ``t`` (between the grid points
    two either side of it), or ``t`` when none beats it. Only where the grid is coarser than the
    values: on few values the cut was chosen among all of them already."""
    vp, vn = xp[~np.isnan(xp)], xn[~np.isnan(xn)]
    both = np.concatenate([vp, vn])
    vals = np.unique(both)
    if vals.size < 2:
        return t
    mids = vals[:-1] / 2.0 + vals[1:] / 2.0  # no overflow near the largest floats
    at = grid(vals, both, max_thresholds)
    if at.size == mids.size:
        return t
    k = int(np.searchsorted(mids[at], t))
    lo = int(at[k - 2]) + 1 if k >= 2 else 0
    hi = int(at[k + 1]) if k + 1 < at.size else mids.size
    sp, sn = np.sort(vp), np.sort(vn)
    now = _best(op, np.array([t]), sp, sn, xp.size, xn.size)
    best = refine(op, now, (lo, hi), mids, sp, sn, xp.size, xn.size)
    return float(best[4]) if best[1] > now[1] + 1e-9 else t


def _place(op: str, t: float, xg: np.ndarray, xp: np.ndarray, xn: np.ndarray) -> float:
    """``t`` moved within its gap between neighbouring growing values ``xg`` to the midpoint with the
    best gain on all the covered cases ``xp``/``xn`` (the middle one of equals)."""
    below, above = xg[xg <= t], xg[xg > t]
    if below.size == 0 or above.size == 0:
        return t
    a, b = below.max(), above.min()
    vp, vn = xp[~np.isnan(xp)], xn[~np.isnan(xn)]
    both = np.concatenate([vp, vn])
    vals = np.unique(both[(both >= a) & (both <= b)])
    if vals.size < 2:
        return t
    cuts = vals[:-1] / 2.0 + vals[1:] / 2.0  # no overflow near the largest floats
    g, _, _ = _gains(op, cuts, np.sort(vp), np.sort(vn), xp.size, xn.size)
    top = np.flatnonzero(g >= g.max() - 1e-9)
    return float(cuts[top[top.size // 2]])

