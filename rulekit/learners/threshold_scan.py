"""Score binary threshold splits of many nodes at once: entries sorted by value inside contiguous
node segments, every candidate position scored from cumulative channel sums (:meth:`ThresholdScorer.scan`),
or one random threshold per node for extra trees (:meth:`ThresholdScorer.random_split`).

The tree grower (:mod:`rulekit.learners.builder`) calls it for numeric features and for the
projections of oblique splits; what a split's impurity is comes from :mod:`rulekit.learners.criteria`.
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from rulekit.learners import criteria as C
from rulekit.learners.settings import Settings


def segments(seg_node: np.ndarray):
    """(first position, length, node) of each run of equal ``seg_node`` values."""
    m = seg_node.size
    flag = np.empty(m, bool)
    flag[0] = True
    np.not_equal(seg_node[1:], seg_node[:-1], out=flag[1:])
    first = np.flatnonzero(flag)
    return first, np.diff(np.append(first, m)), seg_node[first]


@dataclass
class ThresholdScorer:
    """What scoring a threshold depends on: the grower's settings, the task, the impurity criterion,
    the root's weight (the scale below which missing weight counts as none) and the generator extra
    trees draw their thresholds from."""

    settings: Settings
    regression: bool
    imp_crit: str
    root_weight: float
    rng: np.random.Generator

    def missing_totals(self, tot, snode, known_tot):
        """Weight of missing values per segment (node totals less the known), None if negligible."""
        miss = np.maximum(tot[:, snode] - known_tot, 0.0)
        return miss if np.any(miss > 1e-12 * max(self.root_weight, 1.0)) else None

    def random_split(self, x, ch, seg_node, tot, parent_imp, may_have_nan, B=None):
        """Extra trees: one threshold per node drawn uniformly in [min, max) of its known values."""
        S = self.settings
        m = x.size
        if m < 2:
            return None
        first, seglen, snode = segments(seg_node)
        node_of = snode if B is None else snode % B
        kn = None
        if may_have_nan:
            kn = ~np.isnan(x)
            if kn.all():
                kn = None
        xl = x if kn is None else np.where(kn, x, np.inf)
        xh = x if kn is None else np.where(kn, x, -np.inf)
        lo = np.minimum.reduceat(xl, first)
        hi = np.maximum.reduceat(xh, first)
        ok = lo < hi
        u = self.rng.random(first.size)
        with np.errstate(invalid="ignore", over="ignore"):
            t = lo + u * (hi - lo)
        t = np.where((t >= hi) | ~np.isfinite(t), lo, t)
        with np.errstate(invalid="ignore"):
            left = x <= np.repeat(t, seglen)
        nL = np.add.reduceat(left.astype(np.int64), first)
        kc = seglen if kn is None else np.add.reduceat(kn.astype(np.int64), first)
        L = np.add.reduceat(np.where(left, ch, 0.0), first, axis=1)
        known_tot = np.add.reduceat(ch if kn is None else np.where(kn, ch, 0.0), first, axis=1)
        msl = S.min_samples_leaf
        if S.leaf_by_weight:
            wl_, wk_ = C.channel_weight(L, self.regression), C.channel_weight(known_tot, self.regression)
            sg = np.flatnonzero(ok & (wl_ >= msl - 1e-9 * msl) & (wk_ - wl_ >= msl - 1e-9 * msl))
        else:
            sg = np.flatnonzero(ok & (nL >= msl) & (kc - nL >= msl))
        if not sg.size:
            return None
        L = L[:, sg]
        R = known_tot[:, sg] - L
        miss = None if kn is None else self.missing_totals(tot, node_of, known_tot)
        Mi = None if miss is None else miss[:, sg]
        gain, go = C.score_binary(L, R, Mi, parent_imp[node_of[sg]], self.imp_crit, S.missing)
        reg = self.regression
        wL, wR = C.channel_weight(L, reg), C.channel_weight(R, reg)
        wM = np.zeros_like(wL) if Mi is None else C.channel_weight(Mi, reg)
        if go is None:
            go = (wL < wR).astype(np.int64)
        return snode[sg], gain, (wL, wR, wM), go, t[sg]

    def scan(self, xs, ch, seg_node, tot, parent_imp, may_have_nan=True, B=None):
        """Best threshold per node over entries sorted by value within contiguous node segments.

        ``ch``: channel-first (C, m); ``tot``: node totals (C, B). Every position ``j`` (split
        between entries ``j`` and ``j+1``) is scored at once; invalid ones are masked. Returns
        (nodes, weighted gain, (wL, wR, wM), missing branch, threshold) or None.
        """
        S = self.settings
        m = xs.size
        if m < 2:
            return None
        first, seglen, snode = segments(seg_node)
        node_of = snode if B is None else snode % B
        all_known = True
        if may_have_nan:
            kn = ~np.isnan(xs)
            all_known = bool(kn.all())
        kc = seglen if all_known else np.add.reduceat(kn.astype(np.int64), first)
        Cn = ch.shape[0]
        cum = np.empty((Cn, m + 1))
        cum[:, 0] = 0.0
        for k in range(Cn):
            np.cumsum(ch[k], out=cum[k, 1:])
        base = cum[:, first]
        known_tot = cum[:, first + kc] - base
        miss_tot = None if all_known else self.missing_totals(tot, node_of, known_tot)
        valid = xs[:-1] < xs[1:]  # NaN compares false: never a threshold next to a missing value
        valid[first[1:] - 1] = False  # no threshold across two nodes
        msl = S.min_samples_leaf
        if msl > 1 and not S.leaf_by_weight:
            nL = np.arange(1, m) - np.repeat(first, seglen)[:-1]
            valid &= (nL >= msl) & (np.repeat(kc, seglen)[:-1] - nL >= msl)
        if not valid.any():
            return None
        L = cum[:, 1:m] - np.repeat(base, seglen, axis=1)[:, :-1]
        R = np.repeat(known_tot, seglen, axis=1)[:, :-1] - L
        if msl > 1 and S.leaf_by_weight:
            tol = 1e-9 * msl
            valid &= (C.channel_weight(L, self.regression) >= msl - tol) \
                & (C.channel_weight(R, self.regression) >= msl - tol)
            if not valid.any():
                return None
        Mi = None if miss_tot is None else np.repeat(miss_tot, seglen, axis=1)[:, :-1]
        gain, go = C.score_binary(L, R, Mi, np.repeat(parent_imp[node_of], seglen)[:-1], self.imp_crit,
                                  S.missing)
        g = np.full(m, -np.inf)
        g[:-1][valid] = gain[valid]
        segmax = np.maximum.reduceat(g, first)
        has = np.isfinite(segmax)
        idx = np.where(g >= np.repeat(segmax, seglen), np.arange(m), m)
        pick = np.minimum.reduceat(idx, first)[has]
        thr = C.readable_threshold(xs[pick], xs[pick + 1])
        reg = self.regression
        wL = C.channel_weight(L[:, pick], reg)
        wR = C.channel_weight(R[:, pick], reg)
        if go is None:
            gp = (wL < wR).astype(np.int64)
            wM = np.zeros_like(wL)
        else:
            gp = go[pick]
            wM = C.channel_weight(Mi[:, pick], reg)
        return snode[has], g[pick], (wL, wR, wM), gp, thr

