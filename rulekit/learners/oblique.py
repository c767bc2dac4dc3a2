"""Directions for multivariate (oblique) splits ``w.x <= t`` fitted on one node's examples.

``lda``: Fisher's linear discriminant (two classes: ``Sw^-1 (m1 - m0)``; more: the leading
eigenvector of ``Sw^-1 Sb``); ``logistic``: a weighted logistic regression by Newton steps (more than
two classes: the node's most frequent class against the rest). Regression nodes use the weighted
least-squares slope whatever the name. Features are standardized for the fit and the weights mapped
back to raw units, scaled so the largest ``|w|`` is 1; the threshold is then searched on the
projection like a numeric feature, so only the direction comes from here. ``None`` when the fit is
degenerate.
"""

from __future__ import annotations

import numpy as np

_RIDGE = 1e-6


def fit_direction(X: np.ndarray, y: np.ndarray, w: np.ndarray, method: str, *, regression: bool,
                  n_classes: int) -> np.ndarray | None:
    mu = np.average(X, axis=0, weights=w)
    sd = np.sqrt(np.average((X - mu) ** 2, axis=0, weights=w))
    sd = np.where(sd > 0, sd, 1.0)
    Z = (X - mu) / sd
    if regression:
        ws = _least_squares(Z, y, w)
    elif method == "logistic":
        ws = _logistic(Z, y, w, n_classes)
    elif method == "lda":
        ws = _lda(Z, y, w, n_classes)
    else:
        raise ValueError(f"unknown oblique method {method!r} (lda or logistic)")
    if ws is None or not np.all(np.isfinite(ws)):
        return None
    raw = ws / sd
    top = np.max(np.abs(raw))
    if not np.isfinite(top) or top <= 0:
        return None
    return raw / top


def _least_squares(Z, y, w):
    sw = np.sqrt(w)
    yc = y - np.average(y, weights=w)
    A = Z * sw[:, None]
    coef, *_ = np.linalg.lstsq(A.T @ A + _RIDGE * np.eye(Z.shape[1]), A.T @ (yc * sw), rcond=None)
    return coef


def _scatter(Z, y, w, k):
    sel = y == k
    wk = w[sel]
    if wk.sum() <= 0:
        return None, None, 0.0
    m = np.average(Z[sel], axis=0, weights=wk)
    D = Z[sel] - m
    return m, (D * wk[:, None]).T @ D, wk.sum()


def _lda(Z, y, w, n_classes):
    d = Z.shape[1]
    Sw = _RIDGE * np.eye(d) * w.sum()
    means, sizes = [], []
    for k in range(n_classes):
        m, S, n = _scatter(Z, y, w, k)
        if m is None:
            continue
        Sw += S
        means.append(m)
        sizes.append(n)
    if len(means) < 2:
        return None
    if len(means) == 2:
        return np.linalg.solve(Sw, means[1] - means[0])
    M = np.asarray(means)
    n = np.asarray(sizes)
    g = (n[:, None] * M).sum(axis=0) / n.sum()
    Sb = ((M - g) * n[:, None]).T @ (M - g)
    vals, vecs = np.linalg.eig(np.linalg.solve(Sw, Sb))
    return np.real(vecs[:, int(np.argmax(np.real(vals)))])


def _logistic(Z, y, w, n_classes, steps: int = 25):
    if n_classes > 2:
        counts = np.bincount(y, weights=w, minlength=n_classes)
        t = (y == int(np.argmax(counts))).astype(np.float64)
    else:
        t = (y == 1).astype(np.float64)
    if t.min() == t.max():
        return None
    A = np.column_stack([np.ones(Z.shape[0]), Z])
    beta = np.zeros(A.shape[1])
    lam = 1e-3 * w.sum()
    for _ in range(steps):
        eta = np.clip(A @ beta, -30, 30)
        p = 1.0 / (1.0 + np.exp(-eta))
        g = A.T @ (w * (p - t)) + lam * np.r_[0.0, beta[1:]]
        H = (A * (w * p * (1 - p))[:, None]).T @ A + lam * np.diag(np.r_[0.0, np.ones(Z.shape[1])])
        H[0, 0] += 1e-9
        step = np.linalg.solve(H, g)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return beta[1:]
