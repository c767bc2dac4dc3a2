"""Impurity measures and split scores, vectorized over many candidate splits at once.

Everything works on *channel-first* arrays ``(C, ...)``: for classification the (weighted) class
counts of sets of examples, for regression ``(sum w, sum w*y, sum w*y^2)``. Impurities are returned *weighted*
(``W * impurity``) so that children add up: a split's gain is ``I(parent) - sum I(child)``, and its
information gain in bits is that divided by the parent's weight. The public helpers at the end
compute the figures the lecture notes print (entropy, information gain, gain ratio, the impurity at
every midpoint of a numeric feature).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

CLASSIFICATION_CRITERIA = ("gini", "entropy", "gain_ratio")
REGRESSION_CRITERIA = ("mse", "sdr")


def channel_weight(A: np.ndarray, regression: bool) -> np.ndarray:
    """Total weight of channel-first arrays ``A`` (C, ...)."""
    if regression:
        return A[0]
    out = A[0].copy()
    for k in range(1, A.shape[0]):
        out += A[k]
    return out


def _xlog2x(a: np.ndarray) -> np.ndarray:
    a = np.maximum(a, 0.0)
    lg = np.zeros_like(a)
    np.log2(a, out=lg, where=a > 0)
    return a * lg


def weighted_impurity(A: np.ndarray, criterion: str) -> np.ndarray:
    """``W * impurity`` of channel-first arrays ``A`` (C, ...); 0 where the weight is 0.

    Classification channels are class weights; regression channels are ``(W, S1, S2)``.
    """
    if criterion in ("mse", "sdr"):
        W = A[0]
        safe = np.where(W > 0, W, 1.0)
        sse = np.maximum(np.where(W > 0, A[2] - A[1] * A[1] / safe, 0.0), 0.0)
        if criterion == "mse":
            return sse
        return np.where(W > 0, W * np.sqrt(sse / safe), 0.0)
    W = np.maximum(channel_weight(A, False), 0.0)
    if criterion == "gini":
        sq = A[0] * A[0]
        for k in range(1, A.shape[0]):
            sq += A[k] * A[k]
        return np.where(W > 0, W - sq / np.where(W > 0, W, 1.0), 0.0)
    # entropy and gain_ratio: W*H = W log2 W - sum c log2 c
    acc = _xlog2x(W)
    for k in range(A.shape[0]):
        acc -= _xlog2x(A[k])
    return np.maximum(acc, 0.0)


def impurity(A: np.ndarray, criterion: str) -> np.ndarray:
    """Per-weight impurity of channel-first arrays (entropy in bits, Gini, MSE, standard deviation)."""
    regression = criterion in REGRESSION_CRITERIA
    W = channel_weight(A, regression)
    return np.where(W > 0, weighted_impurity(A, criterion) / np.where(W > 0, W, 1.0), 0.0)


def split_information(parts: np.ndarray, total: np.ndarray) -> np.ndarray:
    """``-sum (w_i/W) log2 (w_i/W)`` over the FIRST axis of ``parts`` (the intrinsic information)."""
    safe = np.where(total > 0, total, 1.0)
    out = np.zeros(np.shape(total))
    for part in parts:
        out -= _xlog2x(np.where(total > 0, part / safe, 0.0))
    return out


def _xlog2x_fast(a: np.ndarray) -> np.ndarray:
    lg = np.zeros_like(a)
    np.log2(a, out=lg, where=a > 0)
    return a * lg


def _weighted_impurity_fast(A: np.ndarray, criterion: str) -> np.ndarray:
    """``weighted_impurity`` without guards: undefined (nan/inf) where the weight is 0."""
    if criterion in ("mse", "sdr"):
        sse = A[2] - A[1] * A[1] / A[0]
        if criterion == "mse":
            return sse
        return A[0] * np.sqrt(np.maximum(sse, 0.0) / A[0])
    W = A[0] + A[1] if A.shape[0] == 2 else A.sum(axis=0)
    if criterion == "gini":
        sq = A[0] * A[0]
        for k in range(1, A.shape[0]):
            sq += A[k] * A[k]
        return W - sq / W
    acc = W * np.log2(W)
    for k in range(A.shape[0]):
        acc -= _xlog2x_fast(A[k])
    return acc


def score_binary(L: np.ndarray, R: np.ndarray, M: np.ndarray | None, parent: np.ndarray, criterion: str,
                 missing: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Weighted gain and missing branch of binary candidates (channel-first arrays (C, P)).

    ``L``/``R``: known-value channels left/right; ``M``: the node's missing-value channels per
    candidate (None when there are none: then the missing branch is not computed, it is the heavier
    side, and gains of candidates with an empty side are undefined: callers mask them); ``parent``:
    the weighted impurity of the node (all its examples). ``missing`` says how examples with a
    missing value count: ``majority`` (they join the heavier side), ``learned`` (both sides tried, the
    better kept; the heavier side on a tie) or ``fractional`` (C4.5: the gain is computed on the known
    values only, which in weighted units is ``F * gain(known)``). The missing branch returned is where
    such a value goes at prediction time. :func:`binary_parts` gives the split information.
    """
    regression = criterion in REGRESSION_CRITERIA
    if M is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            return parent - _weighted_impurity_fast(L, criterion) - _weighted_impurity_fast(R, criterion), None
    wL, wR = channel_weight(L, regression), channel_weight(R, regression)
    heavier = (wL < wR).astype(np.int64)
    if missing == "fractional":
        gain = weighted_impurity(L + R, criterion) - weighted_impurity(L, criterion) \
            - weighted_impurity(R, criterion)
        return gain, heavier
    if missing == "learned":
        g_left = parent - weighted_impurity(L + M, criterion) - weighted_impurity(R, criterion)
        g_right = parent - weighted_impurity(L, criterion) - weighted_impurity(R + M, criterion)
        has = channel_weight(M, regression) > 0
        go = np.where(has & (g_left != g_right), np.where(g_left > g_right, 0, 1), heavier)
        return np.where(go == 0, g_left, g_right), go
    go = heavier
    gain = parent - weighted_impurity(np.where(go == 0, L + M, L), criterion) \
        - weighted_impurity(np.where(go == 1, R + M, R), criterion)
    return gain, go


def binary_parts(wL: np.ndarray, wR: np.ndarray, wM: np.ndarray, go: np.ndarray, missing: str) -> np.ndarray:
    """Split information of binary splits given side weights, missing weight and missing branch."""
    if missing == "fractional":
        return split_information(np.stack([wL, wR, wM]), wL + wR + wM)
    parts = np.stack([wL + np.where(go == 0, wM, 0.0), wR + np.where(go == 1, wM, 0.0)])
    return split_information(parts, wL + wR + wM)


def midpoint(a: Any, b: Any) -> Any:
    """Thresholds between consecutive distinct values ``a < b``: ``(a+b)/2`` in float64, such that
    ``a <= t < b`` always holds. When rounding gives ``b`` (neighbouring floats) or the sum overflows,
    ``a/2 + b/2`` is tried and then ``a`` itself is used."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        m = (a + b) / 2.0
        bad = ~((a <= m) & (m < b))
        if np.any(bad):
            m2 = a * 0.5 + b * 0.5
            ok2 = (a <= m2) & (m2 < b)
            m = np.where(bad, np.where(ok2, m2, a), m)
    return m if m.ndim else float(m)


def readable_threshold(a: Any, b: Any) -> np.ndarray:
    """Thresholds between consecutive distinct values ``a < b`` that read well: the shortest decimal
    in the middle fifth of the gap (``2.4`` between 2.3817 and 2.4152, ``3.5`` between 3 and 4,
    ``1270`` between 1234 and 1300), so the training rows split exactly as at the midpoint and unseen
    values between them go about where the midpoint sends them (held-out accuracy within 0.2 points
    of the midpoint's, docs/learners.md); the :func:`midpoint` where no decimal of at most 18 digits
    fits (or beyond 1e+-22). Vectorized: one pass per digit."""
    a = np.atleast_1d(np.asarray(a, dtype=np.float64))
    b = np.atleast_1d(np.asarray(b, dtype=np.float64))
    m = np.atleast_1d(np.asarray(midpoint(a, b), dtype=np.float64))
    out = m.copy()
    done = np.zeros(a.shape, dtype=bool)
    with np.errstate(all="ignore"):
        lo, hi = a + (b - a) * 0.4, b - (b - a) * 0.4  # the middle fifth
        mag = np.maximum(np.abs(a), np.abs(b))
        n0 = -np.floor(np.log10(np.where((mag > 0) & np.isfinite(mag), mag, 1.0))) - 1
        for j in range(18):
            n = n0 + j  # candidates: the multiples of 10**-n on either side of the midpoint
            p = np.power(10.0, np.abs(n))  # exact for |n| <= 22
            up = n >= 0
            scaled = np.where(up, m * p, m / p)
            for k in (np.floor(scaled), np.ceil(scaled)):
                t = np.where(up, k / p, k * p) + 0.0  # (-0.0 reads as 0)
                hit = (~done & (np.abs(n) <= 22) & (lo <= t) & (t <= hi) & (a <= t) & (t < b)
                       & np.isfinite(t))
                out[hit] = t[hit]
                done |= hit
            if done.all():
                break
    return out


# --- the figures of the lecture notes ----------------------------------------------------------------


def _class_channels(y: Sequence[Any], weights: Sequence[float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    classes, codes = np.unique(np.asarray(y, dtype=object).astype(str), return_inverse=True)
    w = np.ones(len(codes)) if weights is None else np.asarray(weights, dtype=np.float64)
    onehot = np.zeros((len(codes), len(classes)))
    onehot[np.arange(len(codes)), codes] = w
    return onehot, codes


def entropy(y: Sequence[Any], weights: Sequence[float] | None = None) -> float:
    """Entropy in bits of the labels ``y``."""
    onehot, _ = _class_channels(y, weights)
    return float(impurity(onehot.sum(axis=0), "entropy"))


def gini(y: Sequence[Any], weights: Sequence[float] | None = None) -> float:
    onehot, _ = _class_channels(y, weights)
    return float(impurity(onehot.sum(axis=0), "gini"))


def conditional_impurity(x: Sequence[Any], y: Sequence[Any], criterion: str = "entropy") -> float:
    """Impurity after a multiway split on the nominal values ``x``: ``sum |D_v|/|D| * I(D_v)``."""
    onehot, _ = _class_channels(y)
    xs = np.asarray(x, dtype=object).astype(str)
    values, idx = np.unique(xs, return_inverse=True)
    counts = np.zeros((len(values), onehot.shape[1]))
    np.add.at(counts, idx, onehot)
    return float(weighted_impurity(counts.T, criterion).sum() / onehot.sum())


def information_gain(x: Sequence[Any], y: Sequence[Any]) -> float:
    """Information gain (bits) of a multiway split on the nominal values ``x``."""
    return entropy(y) - conditional_impurity(x, y, "entropy")


def intrinsic_information(x: Sequence[Any]) -> float:
    """Split information of a multiway split on ``x``: ``-sum |D_v|/|D| log2 |D_v|/|D|``."""
    _, counts = np.unique(np.asarray(x, dtype=object).astype(str), return_counts=True)
    return float(split_information(counts.astype(float), np.float64(counts.sum())))


def gain_ratio(x: Sequence[Any], y: Sequence[Any]) -> float:
    """C4.5's gain ratio: information gain over intrinsic information."""
    si = intrinsic_information(x)
    return information_gain(x, y) / si if si > 0 else 0.0


def fractional_gain(x: Sequence[Any], y: Sequence[Any]) -> tuple[float, float]:
    """C4.5's (gain, split information) of a multiway split on ``x`` with missing values (None/NaN):
    the gain of the known values scaled by their fraction; the missing ones a part of the split."""
    xs = np.asarray(x, dtype=object)
    known = np.array([not (v is None or (isinstance(v, float) and np.isnan(v))) for v in xs])
    yk = np.asarray(y, dtype=object)[known]
    F = known.mean()
    gain = F * information_gain(xs[known], yk)
    _, counts = np.unique(xs[known].astype(str), return_counts=True)
    parts = np.append(counts.astype(float), float((~known).sum()))
    return float(gain), float(split_information(parts, np.float64(parts.sum())))


def numeric_split_table(x: Sequence[float], y: Sequence[Any], criterion: str = "gini") -> list[tuple[float, float]]:
    """``(threshold, weighted child impurity)`` for every midpoint between consecutive distinct values
    of the numeric feature ``x`` (the table the notes draw for taxable income and temperature)."""
    xv = np.asarray(x, dtype=np.float64)
    order = np.argsort(xv, kind="stable")
    xs = xv[order]
    if criterion in REGRESSION_CRITERIA:
        yv = np.asarray(y, dtype=np.float64)[order]
        ch = np.column_stack([np.ones_like(yv), yv, yv * yv])
    else:
        onehot, _ = _class_channels(y)
        ch = onehot[order]
    cum = np.cumsum(ch, axis=0)
    total = cum[-1]
    pos = np.flatnonzero(xs[:-1] < xs[1:])
    L = cum[pos].T
    R = total[:, None] - L
    W = channel_weight(total, criterion in REGRESSION_CRITERIA)
    child = (weighted_impurity(L, criterion) + weighted_impurity(R, criterion)) / W
    thr = midpoint(xs[pos], xs[pos + 1])
    return [(float(t), float(c)) for t, c in zip(np.atleast_1d(thr), child)]
