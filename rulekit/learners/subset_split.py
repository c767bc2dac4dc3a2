"""CART's nominal subset split ``x in B`` for many nodes at once: the candidate subsets of a
feature's categories (a cut in category order for ordinal codes, every subset of a small domain, or
the prefixes of orderings by class proportion) scored from per-node category counts.

The tree grower (:mod:`rulekit.learners.builder`) calls :func:`best_subsets` and records the chosen
subsets; what a split's impurity is comes from :mod:`rulekit.learners.criteria`.
"""

from __future__ import annotations

import numpy as np

from rulekit.learners import criteria as C
from rulekit.learners.settings import Settings


def best_subsets(cnt: np.ndarray, ncnt: np.ndarray, M: np.ndarray, wcat: np.ndarray,
                 parent_imp: np.ndarray, *, settings: Settings, regression: bool, n_classes: int,
                 ordinal: bool, imp_crit: str):
    """CART's binary split ``x in B``: categories ordered by class-1 proportion (two classes) or
    mean target (regression), which Breiman et al. prove optimal; with more classes every subset
    when the domain has at most ``max_exhaustive_categories`` values, else the prefixes of one
    ordering per class (by that class's proportion: a heuristic); ordinal codes are cut in their order.

    ``cnt`` (C, nodes, D) and ``ncnt`` (nodes, D): channel sums and row counts per category; ``M``:
    missing channel sums per node; ``wcat``: weight per category; ``parent_imp``: per node. Returns
    the nodes (positions) with a valid split, their gain, split information, missing branch and the
    left side's mask over the D categories."""
    S = settings
    Cn, Bn, D = cnt.shape
    known = cnt.sum(axis=2)
    reg = regression
    exhaustive = not (reg or n_classes == 2 or ordinal) and D <= S.max_exhaustive_categories
    safe = np.where(wcat > 0, wcat, 1.0)
    if ordinal:  # thresholds in category order: x in {a_1..a_k}
        L = np.cumsum(cnt, axis=2)[:, :, :-1]
        nL = np.cumsum(ncnt, axis=1)[:, :-1]
        left_masks = np.broadcast_to(np.arange(D)[None, :] < np.arange(1, D)[:, None], (Bn, D - 1, D))
    elif exhaustive:
        n_sub = 2 ** (D - 1) - 1
        bits = (np.arange(1, n_sub + 1)[:, None] >> np.arange(D)[None, :]) & 1
        masks = bits.astype(bool)  # the last category always on the right
        L = np.einsum("sd,cbd->cbs", masks.astype(np.float64), cnt)
        nL = ncnt @ masks.T.astype(np.int64)
        left_masks = np.broadcast_to(masks, (Bn, n_sub, D))
    else:
        if reg:
            keys = [np.where(wcat > 0, cnt[1] / safe, np.inf)]
        else:
            classes = [1] if n_classes == 2 else range(n_classes)
            keys = [np.where(wcat > 0, cnt[k] / safe, np.inf) for k in classes]
        Ls, nLs, lms = [], [], []
        for key in keys:
            order = np.argsort(key, axis=1, kind="stable")
            sc = np.take_along_axis(cnt, order[None, :, :].repeat(Cn, 0), axis=2)
            sn = np.take_along_axis(ncnt, order, axis=1)
            Ls.append(np.cumsum(sc, axis=2)[:, :, :-1])
            nLs.append(np.cumsum(sn, axis=1)[:, :-1])
            rank = np.empty_like(order)
            np.put_along_axis(rank, order, np.broadcast_to(np.arange(D), (Bn, D)), axis=1)
            lms.append(rank[:, None, :] < np.arange(1, D)[None, :, None])
        L = np.concatenate(Ls, axis=2)
        nL = np.concatenate(nLs, axis=1)
        left_masks = np.concatenate(lms, axis=1)
    n_c = L.shape[2]
    if n_c == 0:  # a one-value domain (a constant or all-missing column) has no subset to split off
        empty = np.zeros(0)
        return np.zeros(0, np.int64), empty, empty, np.zeros(0, np.int64), np.zeros((0, D), bool)
    R = known[:, :, None] - L
    ntot = ncnt.sum(axis=1)
    wl = C.channel_weight(L, reg)
    wr = C.channel_weight(R, reg)
    if S.leaf_by_weight:
        msl = S.min_samples_leaf * (1 - 1e-9)
        valid = (wl > 0) & (wr > 0) & (wl >= msl) & (wr >= msl)
    else:
        valid = (wl > 0) & (wr > 0) & (nL >= S.min_samples_leaf) & (ntot[:, None] - nL >= S.min_samples_leaf)
    Lf, Rf = L.reshape(Cn, -1), R.reshape(Cn, -1)
    has_missing = bool(np.any(M > 0))
    Mf = np.repeat(M, n_c, axis=1) if has_missing else None
    pf = np.repeat(parent_imp, n_c)
    gain, go = C.score_binary(Lf, Rf, Mf, pf, imp_crit, S.missing)
    if go is None:
        go = (wl < wr).astype(np.int64).reshape(-1)
    gain = np.where(valid.reshape(-1), gain, -np.inf).reshape(Bn, n_c)
    best = np.argmax(gain, axis=1)
    bg = gain[np.arange(Bn), best]
    v = np.flatnonzero(np.isfinite(bg))
    flat = v * n_c + best[v]
    wM = C.channel_weight(M[:, v], reg)
    si = C.binary_parts(wl.reshape(-1)[flat], wr.reshape(-1)[flat], wM, go[flat], S.missing)
    return v, bg[v], si, go[flat], left_masks[v, best[v]]
