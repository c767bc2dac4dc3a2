"""Grow one tree breadth-first, a whole level at a time, with vectorized numpy and no recursion.

State per level: the *entries* (a training row with a weight; C4.5's fractional instances make one
row several entries) grouped by node, and for every numeric feature the entries sorted by that
feature inside each node (sorted once at the root, then kept sorted by stable partitioning). Every
candidate threshold of every node is scored at once from cumulative class counts; nominal features
from per-node category counts. No Python loop runs over rows or thresholds; loops run over levels,
features, and (for oblique splits only) nodes.

Split kinds: numeric thresholds at midpoints (``x <= t`` goes to branch 0), nominal multiway splits
over the whole domain (ID3/C4.5: one branch per domain value, an empty branch becomes a leaf with the
parent's distribution, plus an "other" branch for values unseen in training), nominal subset splits
``x in B`` (CART), and linear splits ``w.x <= t`` (oblique trees).

Thresholds are the shortest decimals between consecutive distinct values ``a <= t < b`` (so they
read well and split the training rows as the midpoint would; see
:func:`rulekit.learners.criteria.readable_threshold`); they are stored as float64 ``<=``
tests, so the IR routes every training row exactly where the learner counted it.

Tie-breaking (deterministic): among candidate thresholds of one feature, the smallest threshold;
among features whose scores are equal (relative tolerance 1e-10), the split with the smaller split
information (the more compact partition: fewer and more even branches), then the lowest feature
index. This reproduces the notes' mushroom tree (points before color at the root, color before size
below). Among classes, ``argmax`` picks the first class in sorted class order. Random forests draw
their feature subsets and extra trees their thresholds from the generator passed in.

Why one module of ~880 lines (issue #23): every step reads and updates the same per-level state of
``_Builder`` (entries by node, each numeric feature's sorted order, cumulative class counts), in
this order: candidates (numeric scans, nominal and subset splits, oblique), the choice, the split
(partitioning entries and orders into the children, ``_split``), and the flat tree at the end.
Splitting those apart would pass that state between modules or hide it in mixins; the criteria
(``criteria.py``) and the tree layout (``flat.py``) are already their own modules.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rulekit.ir.compiled import linear_score
from rulekit.learners import criteria as C
from rulekit.learners.flat import LEAF, LINEAR, NOMINAL, NUMERIC, FlatTree

_TIE = 1e-10
_CHUNK = 2_000_000  # entries scored per pass over the numeric features (bounds temporary memory)
_MULTIWAY, _SUBSET = 2, 4  # internal kinds besides NUMERIC / LINEAR


@dataclass
class Settings:
    """How to grow a tree (the estimators translate their parameters into this)."""

    task: str = "classification"
    criterion: str = "gini"  # gini | entropy | gain_ratio | mse | sdr
    nominal_split: str = "subset"  # subset (CART) | multiway (ID3, C4.5)
    missing: str = "learned"  # majority | learned | fractional
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_impurity_decrease: float = 0.0
    impurity_threshold: float = 0.0
    max_features: int | None = None
    random_thresholds: bool = False
    oblique: str | None = None  # None | lda | logistic
    oblique_min_samples: int = 8
    average_gain_guard: bool = True
    require_positive_gain: bool = False
    max_exhaustive_categories: int = 10
    leaf_by_weight: bool = False  # min_samples_leaf counts weight (C4.5's MINOBJS) instead of rows


@dataclass
class Problem:
    X: np.ndarray  # (n, p) float64, nominal features as codes, NaN missing
    y: np.ndarray  # class index (int64) or target (float64)
    w: np.ndarray  # sample weights
    nominal: np.ndarray  # bool per feature
    sizes: np.ndarray  # domain size per feature (0 for numeric)
    n_classes: int = 0  # 0 for regression
    ordinal: np.ndarray | None = None  # bool per feature: nominal codes in a meaningful order


class _Level:
    """Entries of one level, grouped by node (``node`` is nondecreasing)."""

    def __init__(self, s: np.ndarray, w: np.ndarray, node: np.ndarray, n_nodes: int):
        self.s, self.w, self.node, self.n_nodes = s, w, node, n_nodes
        self.count = np.bincount(node, minlength=n_nodes)
        self.start = np.concatenate([[0], np.cumsum(self.count)])


def build(problem: Problem, settings: Settings, rng: np.random.Generator | None = None) -> FlatTree:
    """Grow a tree on ``problem`` (see the module docstring); returns its flat form."""
    return _Builder(problem, settings, rng or np.random.default_rng(0)).run()


class _Builder:
    def __init__(self, problem: Problem, settings: Settings, rng: np.random.Generator):
        self.P, self.S, self.rng = problem, settings, rng
        self.regression = settings.task == "regression"
        self.K = problem.n_classes
        self.C = 3 if self.regression else self.K
        self.Xt = np.ascontiguousarray(problem.X.T)
        self._Xflat = self.Xt.reshape(-1)
        self.n = problem.X.shape[0]
        self.p = problem.X.shape[1]
        self.numeric = [f for f in range(self.p) if not problem.nominal[f]]
        self.num = np.asarray(self.numeric, dtype=np.int64)
        self.has_nan = np.isnan(problem.X).any(axis=0)
        self.multiway = settings.nominal_split == "multiway"
        self.imp_crit = "entropy" if settings.criterion == "gain_ratio" else settings.criterion
        self.blocks: list[dict] = []

    # --- channels ----------------------------------------------------------------------------------
    def _node_totals(self, lv: _Level) -> tuple[np.ndarray, np.ndarray]:
        """(channels per node, per-entry channel basis): class weights or centred (W, S1, S2)."""
        B = lv.n_nodes
        if self.regression:
            y = self.P.y[lv.s]
            W = np.bincount(lv.node, weights=lv.w, minlength=B)
            S1 = np.bincount(lv.node, weights=lv.w * y, minlength=B)
            mean = np.where(W > 0, S1 / np.where(W > 0, W, 1.0), 0.0)
            yc = y - mean[lv.node]
            ch_w = lv.w
            tot = np.stack([W, np.bincount(lv.node, weights=ch_w * yc, minlength=B),
                            np.bincount(lv.node, weights=ch_w * yc * yc, minlength=B)])
            self._mean = mean
            return tot, yc
        cls = self.P.y[lv.s]
        tot = np.bincount(lv.node * self.K + cls, weights=lv.w, minlength=B * self.K).reshape(B, self.K).T
        return np.ascontiguousarray(tot), cls

    def _channels(self, idx: np.ndarray, lv: _Level, basis: np.ndarray) -> np.ndarray:
        """Channel-first rows (C x len(idx)) of the entries ``idx``."""
        w = lv.w[idx]
        if self.regression:
            yc = basis[idx]
            wy = w * yc
            return np.stack([w, wy, wy * yc])
        cls = basis[idx]
        if self.K == 2:
            one = cls == 1
            return np.stack([np.where(one, 0.0, w), np.where(one, w, 0.0)])
        out = np.zeros((self.K, idx.shape[0]))
        out[cls, np.arange(idx.shape[0])] = w
        return out

    def _group_sums(self, keys: np.ndarray, idx: np.ndarray, lv: _Level, basis: np.ndarray,
                    n_groups: int) -> np.ndarray:
        """Channels summed per group key, channel-first (C x n_groups), for entries ``idx``."""
        w = lv.w[idx]
        if self.regression:
            yc = basis[idx]
            return np.stack([np.bincount(keys, weights=v, minlength=n_groups)
                             for v in (w, w * yc, w * yc * yc)])
        return np.bincount(keys * self.K + basis[idx], weights=w,
                           minlength=n_groups * self.K).reshape(n_groups, self.K).T

    # --- main loop ---------------------------------------------------------------------------------
    def run(self) -> FlatTree:
        P, S = self.P, self.S
        keep = np.flatnonzero(P.w > 0)
        lv = _Level(keep.astype(np.int64), P.w[keep].astype(np.float64), np.zeros(keep.size, np.int64), 1)
        # row r: the entries sorted by numeric feature self.numeric[r] (None: extra trees)
        orders = None if S.random_thresholds or not self.numeric else \
            np.stack([np.argsort(self.Xt[f][lv.s], kind="stable") for f in self.numeric])
        avail = np.ones((1, self.p), bool)
        parent_value = None
        depth = 0
        next_id = 1
        self.root_weight = float(lv.w.sum())
        while lv.n_nodes:
            res = self._level(lv, orders, avail, parent_value, depth, next_id)
            if res is None:
                break
            lv, orders, avail, parent_value, next_id = res
            depth += 1
        return self._assemble()

    def _level(self, lv, orders, avail, parent_value, depth, next_id):
        P, S = self.P, self.S
        B = lv.n_nodes
        tot, basis = self._node_totals(lv)
        W = C.channel_weight(tot, self.regression)
        parent_imp = C.weighted_impurity(tot, self.imp_crit)
        imp = np.where(W > 0, parent_imp / np.where(W > 0, W, 1.0), 0.0)
        if self.regression:
            value = self._mean[:, None].copy()
            stats = np.column_stack([W, self._mean, tot[2]])
        else:
            value = tot.T / np.where(W > 0, W, 1.0)[:, None]
            stats = tot.T.copy()
        empty = W <= 0
        if parent_value is not None and empty.any():
            value[empty] = parent_value[empty]
        if depth == 0:
            self.root_imp = float(imp[0])
        tol = 1e-12 * max(self.root_imp, 1e-300) if self.regression else 1e-12
        size = W if S.leaf_by_weight else lv.count
        splittable = (~empty) & (lv.count >= 2) \
            & (size >= max(S.min_samples_split, 2 * S.min_samples_leaf) * (1 - 1e-9)) \
            & (imp > S.impurity_threshold + tol)
        if S.max_depth is not None and depth >= S.max_depth:
            splittable[:] = False
        block = dict(kind=np.full(B, LEAF, np.int8), feature=np.full(B, -1, np.int64),
                     threshold=np.zeros(B), missing=np.zeros(B, np.int64),
                     child_start=np.zeros(B, np.int64), n_children=np.zeros(B, np.int64),
                     value=value, weight=W, n_samples=lv.count.astype(np.float64), impurity=imp,
                     stats=stats, gain=np.zeros(B), edge_values={}, linear={}, first_id=next_id - B)
        self.blocks.append(block)
        if not splittable.any():
            return None
        cand = self._candidates(lv, orders, avail & splittable[:, None], tot, basis, parent_imp, W)
        choice = self._choose(cand, W, splittable)
        if S.oblique is not None:
            self._try_oblique(lv, basis, tot, parent_imp, W, choice, splittable, avail)
        do = choice["kind"] > 0
        if not do.any():
            return None
        return self._split(lv, orders, avail, block, choice, do, value, next_id, basis)

    # --- candidates ------------------------------------------------------------------------------
    def _eligible(self, lv: _Level, orders, mask: np.ndarray) -> np.ndarray:
        """(nodes x features): the feature has at least two distinct known values in the node."""
        B = lv.n_nodes
        el = np.zeros((B, self.p), bool)
        nodes = np.flatnonzero(mask.any(axis=1))
        first = lv.start[nodes]
        cnt_n = lv.count[nodes]
        if orders is not None and nodes.size:
            rows = np.flatnonzero(~self.has_nan[self.num])
            if rows.size:
                fr = self.num[rows][:, None] * self.n
                lo = self._Xflat[fr + lv.s[orders[rows][:, first]]]
                hi = self._Xflat[fr + lv.s[orders[rows][:, first + cnt_n - 1]]]
                el[np.ix_(nodes, self.num[rows])] = ((cnt_n >= 2)[None, :] & (lo < hi)).T
        slow = [r for r in range(self.num.size) if orders is None or self.has_nan[self.num[r]]]
        nonempty = np.flatnonzero(lv.count > 0)
        if slow and nonempty.size and lv.s.size:
            # min and max of the known values per node (fmin/fmax skip NaN), all features at once
            fs = self.num[slow]
            xs = self._Xflat[fs[:, None] * self.n + lv.s[None, :]]
            starts = lv.start[nonempty]
            lo = np.full((fs.size, B), np.nan)
            hi = np.full((fs.size, B), np.nan)
            lo[:, nonempty] = np.fmin.reduceat(xs, starts, axis=1)
            hi[:, nonempty] = np.fmax.reduceat(xs, starts, axis=1)
            el[np.ix_(nodes, fs)] = (lo[:, nodes] < hi[:, nodes]).T
        for f in np.flatnonzero(self.P.nominal):
            x = self.Xt[f][lv.s]
            kn = ~np.isnan(x)
            D = int(self.P.sizes[f])
            cnt = np.bincount(lv.node[kn] * D + x[kn].astype(np.int64), minlength=B * D).reshape(B, D)
            el[:, f] = (cnt > 0).sum(axis=1) >= 2
        return el & mask

    def _candidates(self, lv, orders, mask, tot, basis, parent_imp, W):
        S = self.S
        B = lv.n_nodes
        if S.max_features is not None and S.max_features < self.p:
            el = self._eligible(lv, orders, mask)
            u = self.rng.random((B, self.p))
            u[~el] = np.inf
            k = S.max_features
            idx = np.argpartition(u, k - 1, axis=1)[:, :k]
            sel = np.zeros_like(el)
            np.put_along_axis(sel, idx, True, axis=1)
            mask = sel & el
        cand = dict(gain=np.full((B, self.p), -np.inf), si=np.zeros((B, self.p)),
                    parts=np.zeros((3, B, self.p)),
                    nbr=np.zeros((B, self.p), np.int64), thr=np.zeros((B, self.p)),
                    miss=np.zeros((B, self.p), np.int64), subset={})
        if self.numeric:
            self._numeric_candidates(lv, orders, mask, tot, basis, parent_imp, cand)
        for f in range(self.p):
            nodes_f = mask[:, f]
            if self.P.nominal[f] and nodes_f.any():
                self._nominal_candidates(f, lv, nodes_f, tot, basis, parent_imp, cand)
        return cand

    def _numeric_candidates(self, lv, orders, mask, tot, basis, parent_imp, cand):
        """Score every numeric feature for the nodes that consider it, a few features per pass: the
        rows of ``orders`` (entries sorted by each feature inside each node) are concatenated into
        segments keyed ``row * B + node`` (at most ``_CHUNK`` entries per pass bound the memory).
        Extra trees pass ``orders=None``: random thresholds need no sorting, the entries are used in
        node order."""
        m = lv.s.size
        R = self.num.size
        if m == 0 or not mask[:, self.num].any():
            return
        step = max(1, _CHUNK // m)
        for r0 in range(0, R, step):
            self._numeric_chunk(lv, orders, mask, tot, basis, parent_imp, cand, np.arange(r0, min(R, r0 + step)))

    def _numeric_chunk(self, lv, orders, mask, tot, basis, parent_imp, cand, rows_in):
        B = lv.n_nodes
        m = lv.s.size
        num = self.num[rows_in]
        R = num.size
        sel = mask[:, num]  # (B, R)
        if not sel.any():
            return
        base = np.broadcast_to(np.arange(m), (R, m)) if orders is None else orders[rows_in]
        if sel.all():
            idx = base.ravel()
            rows = np.repeat(np.arange(R), m)
            nodes = np.tile(lv.node, R)
        else:
            rr, jj = np.nonzero(sel[lv.node].T)  # row-major: grouped by row, then node
            idx = base[rr, jj]
            rows = rr
            nodes = lv.node[jj]
        xs = self._Xflat[num[rows] * self.n + lv.s[idx]]
        ch = self._channels(idx, lv, basis)
        key = rows * B + nodes
        may_nan = bool(self.has_nan[num].any())
        if orders is None:
            res = self._random_split(xs, ch, key, tot, parent_imp, may_nan, B)
        else:
            res = self._scan(xs, ch, key, tot, parent_imp, may_nan, B)
        if res is None:
            return
        keys, gain, (wl, wr, wm), go, thr = res
        nd = keys % B
        f = num[keys // B]
        cand["gain"][nd, f] = gain
        cand["si"][nd, f] = np.nan
        cand["nbr"][nd, f] = 2
        cand["thr"][nd, f] = thr
        cand["miss"][nd, f] = go
        cand["parts"][0][nd, f] = wl
        cand["parts"][1][nd, f] = wr
        cand["parts"][2][nd, f] = wm

    @staticmethod
    def _segments(seg_node: np.ndarray):
        """(first position, length, node) of each run of equal ``seg_node`` values."""
        m = seg_node.size
        flag = np.empty(m, bool)
        flag[0] = True
        np.not_equal(seg_node[1:], seg_node[:-1], out=flag[1:])
        first = np.flatnonzero(flag)
        return first, np.diff(np.append(first, m)), seg_node[first]

    def _missing_totals(self, tot, snode, known_tot):
        miss = np.maximum(tot[:, snode] - known_tot, 0.0)
        return miss if np.any(miss > 1e-12 * max(self.root_weight, 1.0)) else None

    def _random_split(self, x, ch, seg_node, tot, parent_imp, may_have_nan, B=None):
        """Extra trees: one threshold per node drawn uniformly in [min, max) of its known values."""
        S = self.S
        m = x.size
        if m < 2:
            return None
        first, seglen, snode = self._segments(seg_node)
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
        miss = None if kn is None else self._missing_totals(tot, node_of, known_tot)
        Mi = None if miss is None else miss[:, sg]
        gain, go = C.score_binary(L, R, Mi, parent_imp[node_of[sg]], self.imp_crit, S.missing)
        reg = self.regression
        wL, wR = C.channel_weight(L, reg), C.channel_weight(R, reg)
        wM = np.zeros_like(wL) if Mi is None else C.channel_weight(Mi, reg)
        if go is None:
            go = (wL < wR).astype(np.int64)
        return snode[sg], gain, (wL, wR, wM), go, t[sg]

    @staticmethod
    def _store(cand, nodes, f, gain, si, nbr, thr, go):
        cand["gain"][nodes, f] = gain
        cand["si"][nodes, f] = si
        cand["nbr"][nodes, f] = nbr
        cand["thr"][nodes, f] = thr
        cand["miss"][nodes, f] = go

    def _scan(self, xs, ch, seg_node, tot, parent_imp, may_have_nan=True, B=None):
        """Best threshold per node over entries sorted by value within contiguous node segments.

        ``ch``: channel-first (C, m); ``tot``: node totals (C, B). Every position ``j`` (split
        between entries ``j`` and ``j+1``) is scored at once; invalid ones are masked. Returns
        (nodes, weighted gain, (wL, wR, wM), missing branch, threshold) or None.
        """
        S = self.S
        m = xs.size
        if m < 2:
            return None
        first, seglen, snode = self._segments(seg_node)
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
        miss_tot = None if all_known else self._missing_totals(tot, node_of, known_tot)
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

    def _nominal_candidates(self, f, lv, nodes_f, tot, basis, parent_imp, cand):
        S = self.S
        B = lv.n_nodes
        D = int(self.P.sizes[f])
        x = self.Xt[f][lv.s]
        sel = nodes_f[lv.node] & ~np.isnan(x)
        idx = np.flatnonzero(sel)
        key = lv.node[idx] * D + x[idx].astype(np.int64)
        cnt = self._group_sums(key, idx, lv, basis, B * D).reshape(self.C, B, D)
        ncnt = np.bincount(key, minlength=B * D).reshape(B, D)
        nodes = np.flatnonzero(nodes_f)
        cnt, ncnt = cnt[:, nodes], ncnt[nodes]
        known = cnt.sum(axis=2)
        M = np.maximum(tot[:, nodes] - known, 0.0)
        reg = self.regression
        wcat = C.channel_weight(cnt, reg)
        present = wcat > 0
        npres = present.sum(axis=1)
        if self.multiway:
            big = np.argmax(wcat, axis=1)
            big_enough = (wcat >= S.min_samples_leaf * (1 - 1e-9)) if S.leaf_by_weight \
                else (ncnt >= S.min_samples_leaf)
            valid = (npres >= 2) & (big_enough.sum(axis=1) >= 2)
            wM = C.channel_weight(M, reg)
            rows = np.arange(nodes.size)
            if S.missing == "fractional":
                gain = C.weighted_impurity(known, self.imp_crit) \
                    - C.weighted_impurity(cnt, self.imp_crit).sum(axis=1)
                si = C.split_information(np.vstack([wcat.T, wM[None, :]]), wcat.sum(axis=1) + wM)
            else:
                cnt2 = cnt.copy()
                cnt2[:, rows, big] += M
                gain = parent_imp[nodes] - C.weighted_impurity(cnt2, self.imp_crit).sum(axis=1)
                w2 = C.channel_weight(cnt2, reg)
                si = C.split_information(w2.T, w2.sum(axis=1))
            v = np.flatnonzero(valid)
            self._store(cand, nodes[v], f, gain[v], si[v], D + 1, 0.0, big[v])
            return
        self._subset_candidates(f, nodes, cnt, ncnt, M, wcat, parent_imp, cand)

    def _subset_candidates(self, f, nodes, cnt, ncnt, M, wcat, parent_imp, cand):
        """CART's binary split ``x in B``: categories ordered by class-1 proportion (two classes) or
        mean target (regression), which Breiman et al. prove optimal; with more classes every subset
        when the domain has at most ``max_exhaustive_categories`` values, else the prefixes of one
        ordering per class (by that class's proportion: a heuristic)."""
        S = self.S
        Cn, Bn, D = cnt.shape
        known = cnt.sum(axis=2)
        reg = self.regression
        ordinal = self.P.ordinal is not None and bool(self.P.ordinal[f])
        exhaustive = not (reg or self.K == 2 or ordinal) and D <= S.max_exhaustive_categories
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
                classes = [1] if self.K == 2 else range(self.K)
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
        pf = np.repeat(parent_imp[nodes], n_c)
        gain, go = C.score_binary(Lf, Rf, Mf, pf, self.imp_crit, S.missing)
        if go is None:
            go = (wl < wr).astype(np.int64).reshape(-1)
        gain = np.where(valid.reshape(-1), gain, -np.inf).reshape(Bn, n_c)
        best = np.argmax(gain, axis=1)
        bg = gain[np.arange(Bn), best]
        v = np.flatnonzero(np.isfinite(bg))
        flat = v * n_c + best[v]
        wM = C.channel_weight(M[:, v], reg)
        si = C.binary_parts(wl.reshape(-1)[flat], wr.reshape(-1)[flat], wM, go[flat], S.missing)
        self._store(cand, nodes[v], f, bg[v], si, 2, 0.0, go[flat])
        lm = left_masks[v, best[v]]
        present = wcat[v] > 0
        store = cand["subset"].setdefault(f, {})
        for j, node in enumerate(nodes[v]):
            if ordinal:  # every code up to the cut point goes left, seen here or not
                store[int(node)] = (lm[j].copy(), None)
            else:
                store[int(node)] = (lm[j] & present[j], ~lm[j] & present[j])

    # --- choosing ----------------------------------------------------------------------------------
    def _choose(self, cand, W, splittable):
        S = self.S
        gain = cand["gain"]
        valid = np.isfinite(gain)
        B = gain.shape[0]
        si = cand["si"]
        num = np.isnan(si)
        if num.any():
            pl, pr, pm = cand["parts"]
            si[num] = C.binary_parts(pl[num], pr[num], pm[num], cand["miss"][num], S.missing)
        if S.criterion == "gain_ratio":
            score = np.where(valid & (si > 1e-12), gain / np.where(si > 1e-12, si, 1.0), -np.inf)
            if S.average_gain_guard:
                n_valid = valid.sum(axis=1)
                avg = np.where(valid, gain, 0.0).sum(axis=1) / np.maximum(n_valid, 1)
                score[gain < avg[:, None] - 1e-9 * np.maximum(np.abs(avg[:, None]), 1e-300)] = -np.inf
        else:
            score = gain
        best = score.max(axis=1)
        finite = np.isfinite(best)
        tied = (score >= (best - _TIE * np.maximum(np.abs(best), 1e-300))[:, None]) & np.isfinite(score)
        # ties: the smaller split information (the more compact split), then the lower feature index
        si_t = np.where(tied, si, np.inf)
        min_si = si_t.min(axis=1)
        tied &= si_t <= (min_si + 1e-12)[:, None]
        f = np.argmax(tied, axis=1)
        rows = np.arange(B)
        g = gain[rows, f]
        ok = finite & splittable
        ok &= g >= S.min_impurity_decrease * self.root_weight - 1e-12 * np.maximum(W, 1.0)
        if S.require_positive_gain:
            ok &= g > 1e-12 * np.maximum(W, 1.0)
        kind = np.zeros(B, np.int64)
        nominal = self.P.nominal[f]
        kind[ok] = np.where(nominal[ok], _MULTIWAY if self.multiway else _SUBSET, NUMERIC)
        return dict(kind=kind, feature=np.where(ok, f, -1), gain=np.where(ok, g, 0.0),
                    score=np.where(ok, score[rows, f], -np.inf), thr=cand["thr"][rows, f],
                    miss=cand["miss"][rows, f], nbr=np.where(ok, cand["nbr"][rows, f], 0),
                    subset=cand["subset"], linear={})

    # --- oblique splits ----------------------------------------------------------------------------
    def _try_oblique(self, lv, basis, tot, parent_imp, W, choice, splittable, avail):
        from rulekit.learners.oblique import fit_direction  # noqa: PLC0415

        S = self.S
        nodes = np.flatnonzero(splittable & (lv.count >= S.oblique_min_samples))
        for b in nodes:
            feats = [f for f in self.numeric if avail[b, f]]
            if len(feats) < 2:
                continue
            lo, hi = lv.start[b], lv.start[b + 1]
            rows = lv.s[lo:hi]
            Xn = self.P.X[np.ix_(rows, feats)]
            ok = ~np.isnan(Xn).any(axis=1)
            if ok.sum() < S.oblique_min_samples:
                continue
            sd = Xn[ok].std(axis=0)
            use = sd > 0
            if use.sum() < 2:
                continue
            fu = [f for f, u in zip(feats, use) if u]
            w_ent = lv.w[lo:hi]
            direction = fit_direction(Xn[np.ix_(ok, use)], basis[lo:hi][ok], w_ent[ok], S.oblique,
                                      regression=self.regression, n_classes=self.K)
            if direction is None:
                continue
            fa = np.asarray(fu, np.int64)
            z = linear_score(self.P.X, rows, fa, direction)
            order = np.argsort(z, kind="stable")
            idx = lo + order
            ch = self._channels(idx, lv, basis)
            res = self._scan(z[order], ch, np.zeros(order.size, np.int64), tot[:, b:b + 1],
                             parent_imp[b:b + 1])
            if res is None:
                continue
            _, gain, (wl, wr, wm), go, thr = res
            si = C.binary_parts(wl, wr, wm, go, S.missing)
            g = float(gain[0])
            score = g / si[0] if S.criterion == "gain_ratio" and si[0] > 1e-12 else g
            if S.criterion == "gain_ratio" and si[0] <= 1e-12:
                continue
            cur = choice["score"][b]
            if not (score > cur + _TIE * max(abs(cur), 1e-300) if np.isfinite(cur) else True):
                continue
            if g < S.min_impurity_decrease * self.root_weight - 1e-12:
                continue
            choice["kind"][b] = LINEAR
            choice["feature"][b] = -1
            choice["gain"][b] = g
            choice["score"][b] = score
            choice["thr"][b] = float(thr[0])
            choice["miss"][b] = int(go[0])
            choice["nbr"][b] = 2
            choice["linear"][int(b)] = (fa, direction, z)

    # --- splitting ---------------------------------------------------------------------------------
    def _split(self, lv, orders, avail, block, choice, do, value, next_id, basis):
        S = self.S
        B = lv.n_nodes
        kind = choice["kind"]
        feat = choice["feature"]
        nch = np.zeros(B, np.int64)
        nch[do] = np.where(kind[do] == _MULTIWAY, self.P.sizes[np.maximum(feat[do], 0)] + 1, 2)
        off = np.concatenate([[0], np.cumsum(nch)])[:-1]
        first_child_id = next_id
        split_nodes = np.flatnonzero(do)
        block["kind"][split_nodes] = np.where(kind[split_nodes] == LINEAR, LINEAR,
                                              np.where(kind[split_nodes] == NUMERIC, NUMERIC, NOMINAL))
        block["feature"][split_nodes] = feat[split_nodes]
        block["threshold"][split_nodes] = np.where(np.isin(kind[split_nodes], (NUMERIC, LINEAR)),
                                                   choice["thr"][split_nodes], 0.0)
        block["missing"][split_nodes] = choice["miss"][split_nodes]
        block["child_start"][split_nodes] = first_child_id + off[split_nodes]
        block["n_children"][split_nodes] = nch[split_nodes]
        block["gain"][split_nodes] = choice["gain"][split_nodes]
        for b in split_nodes:
            k = kind[b]
            if k == _MULTIWAY:
                D = int(self.P.sizes[feat[b]])
                block["edge_values"][int(b)] = [(j,) for j in range(D)] + [None]
            elif k == _SUBSET:
                left, right = choice["subset"][int(feat[b])][int(b)]
                lv_ = tuple(int(c) for c in np.flatnonzero(left))
                if right is None:  # ordinal cut: the codes up to it, everything else (unseen too) right
                    block["edge_values"][int(b)] = [lv_, None]
                    continue
                rv_ = tuple(int(c) for c in np.flatnonzero(right))
                # the heavier side takes "other" (categories absent from this node, unseen values)
                heavier_left = self._heavier_left(lv, b, feat[b], left)
                block["edge_values"][int(b)] = [None, rv_] if heavier_left else [lv_, None]
            elif k == LINEAR:
                fa, wv, _ = choice["linear"][int(b)]
                block["linear"][int(b)] = (tuple(int(v) for v in fa), tuple(float(v) for v in wv))

        # route every entry of a split node to a child (or to all children: fractional)
        in_split = do[lv.node]
        e = np.flatnonzero(in_split)
        en = lv.node[e]
        child = np.full(e.size, -1, np.int64)
        isnan = np.zeros(e.size, bool)
        for k in (NUMERIC, _MULTIWAY, _SUBSET):
            sel = np.flatnonzero(kind[en] == k)
            if not sel.size:
                continue
            x = self._Xflat[feat[en[sel]] * self.n + lv.s[e[sel]]]
            nan = np.isnan(x)
            isnan[sel] = nan
            if k == NUMERIC:
                c = np.where(x <= choice["thr"][en[sel]], 0, 1)
            elif k == _MULTIWAY:
                c = np.where(nan, 0, np.nan_to_num(x)).astype(np.int64)
            else:
                c = np.ones(sel.size, np.int64)
                for fb in np.unique(feat[en[sel]]):
                    ss = np.flatnonzero(feat[en[sel]] == fb)
                    table = choice["subset"][int(fb)]
                    nodes_here = en[sel[ss]]
                    codes = np.where(nan[ss], 0, np.nan_to_num(x[ss])).astype(np.int64)
                    lefts = np.stack([table[int(nb)][0] for nb in np.unique(nodes_here)])
                    pos = np.searchsorted(np.unique(nodes_here), nodes_here)
                    c[ss] = np.where(lefts[pos, codes], 0, 1)
            child[sel] = c
        for b, (fa, wv, z) in choice["linear"].items():
            lo, hi = lv.start[b], lv.start[b + 1]
            sel = np.flatnonzero(en == b)  # entries of node b, in entry order
            zz = z  # computed over the node's entries in entry order
            isnan[sel] = np.isnan(zz)
            child[sel] = np.where(zz <= choice["thr"][b], 0, 1)
        miss_branch = choice["miss"][en]
        fractional = S.missing == "fractional"
        rep = isnan & fractional
        child = np.where(isnan & ~rep, miss_branch, child)

        # fractional entries: one copy per non-empty child, weighted by the child's share
        single = np.flatnonzero(~rep)
        src = [e[single]]
        nn = [off[en[single]] + child[single]]
        wf = [np.ones(single.size)]
        if rep.any():
            kw = self._child_known_weights(lv, e, en, child, isnan, nch, off)
            r = np.flatnonzero(rep)
            nb = nch[en[r]]
            rr = np.repeat(r, nb)
            j = np.arange(rr.size) - np.repeat(np.cumsum(nb) - nb, nb)
            cid = off[en[rr]] + j
            frac = kw[cid] / np.maximum(self._node_known[en[rr]], 1e-300)
            keep = frac > 0
            src.append(e[rr[keep]])
            nn.append(cid[keep])
            wf.append(frac[keep])
        src_a = np.concatenate(src)
        nn_a = np.concatenate(nn)
        wf_a = np.concatenate(wf)
        B_new = int(nch.sum())
        kdt = np.uint16 if B_new < 65536 else np.int64
        perm = np.argsort(nn_a.astype(kdt), kind="stable")
        new_s = lv.s[src_a[perm]]
        new_w = lv.w[src_a[perm]] * wf_a[perm]
        new_node = nn_a[perm]
        new_lv = _Level(new_s, new_w, new_node, B_new)

        # keep every numeric order sorted inside the new nodes (stable partition)
        newpos = np.empty(perm.size, np.int64)
        newpos[perm] = np.arange(perm.size)
        m_old = lv.s.size
        single_copy = not rep.any()
        if not single_copy:
            copies = np.bincount(src_a, minlength=m_old)
            csr_start = np.concatenate([[0], np.cumsum(copies)])[:-1]
            csr_pos = newpos[np.argsort(src_a, kind="stable")]
        else:
            pos_of = np.full(m_old, -1, np.int64)
            pos_of[src_a] = newpos
        new_orders = None
        if orders is not None:
            R = orders.shape[0]
            split_nodes_all = np.flatnonzero(do)
            binary = single_copy and bool(np.all(nch[split_nodes_all] == 2))
            new_orders = np.empty((R, new_s.size), np.int64)
            step = max(1, _CHUNK // max(m_old, 1))
            for r0 in range(0, R, step):
                part = orders[r0:r0 + step]
                Rc = part.shape[0]
                if single_copy:
                    q = pos_of[part]
                    q = q[q >= 0].reshape(Rc, -1)  # every row holds the same entries
                else:
                    o = part.ravel()
                    c = copies[o]
                    o2 = o[c > 0]
                    c = c[c > 0]
                    grp = np.cumsum(c) - c
                    within = np.arange(int(c.sum())) - np.repeat(grp, c)
                    q = csr_pos[np.repeat(csr_start[o2], c) + within].reshape(Rc, -1)
                if binary:
                    new_orders[r0:r0 + Rc] = self._partition_binary(q, new_node, new_lv,
                                                                    lv.count[split_nodes_all])
                else:
                    key = new_node[q].astype(kdt)
                    new_orders[r0:r0 + Rc] = np.take_along_axis(q, np.argsort(key, axis=1, kind="stable"),
                                                                axis=1)

        # availability below: a multiway split uses its nominal feature up
        parent_of_new = np.repeat(np.arange(B), nch)
        new_avail = avail[parent_of_new].copy()
        mw = np.flatnonzero(kind[parent_of_new] == _MULTIWAY)
        new_avail[mw, feat[parent_of_new[mw]]] = False
        new_parent_value = value[parent_of_new]
        return new_lv, new_orders, new_avail, new_parent_value, next_id + B_new

    @staticmethod
    def _partition_binary(q, new_node, new_lv, seg_counts):
        """Stable partition of each row of ``q`` (new entry ids grouped by parent, in sorted order)
        into the parents' two children, by counting instead of sorting."""
        nn = new_node[q]
        # the k-th parent's children are new nodes 2k and 2k+1: the child bit is nn - 2k
        first_child = np.repeat(np.arange(0, 2 * seg_counts.size, 2), seg_counts)
        rbit = nn - first_child[None, :]
        cs = np.cumsum(rbit, axis=1)
        seg_first = np.cumsum(seg_counts) - seg_counts
        before = cs[:, seg_first] - rbit[:, seg_first]
        ones_before = cs - rbit - np.repeat(before, seg_counts, axis=1)
        pos_in_seg = np.arange(q.shape[1]) - np.repeat(seg_first, seg_counts)
        rank = np.where(rbit == 1, ones_before, pos_in_seg[None, :] - ones_before)
        dest = new_lv.start[nn] + rank
        out = np.empty_like(q)
        np.put_along_axis(out, dest, q, axis=1)
        return out

    def _heavier_left(self, lv, b, f, left) -> bool:
        lo, hi = lv.start[b], lv.start[b + 1]
        x = self.P.X[lv.s[lo:hi], f]
        kn = ~np.isnan(x)
        codes = x[kn].astype(np.int64)
        w = lv.w[lo:hi][kn]
        wl = w[left[codes]].sum()
        return bool(wl >= w.sum() - wl)

    def _child_known_weights(self, lv, e, en, child, isnan, nch, off):
        """Known-value weight of every new child, and (as a side table) of every split node."""
        known = ~isnan
        kw = np.bincount(off[en[known]] + child[known], weights=lv.w[e[known]], minlength=int(nch.sum()))
        self._node_known = np.bincount(en[known], weights=lv.w[e[known]], minlength=lv.n_nodes)
        return kw

    # --- output ------------------------------------------------------------------------------------
    def _assemble(self) -> FlatTree:
        keys = ("kind", "feature", "threshold", "missing", "child_start", "n_children", "value",
                "weight", "n_samples", "impurity", "stats", "gain")
        cat = {k: np.concatenate([blk[k] for blk in self.blocks]) for k in keys}
        edge_values: dict = {}
        linear: dict = {}
        for blk in self.blocks:
            base = blk["first_id"]
            for b, v in blk["edge_values"].items():
                edge_values[base + b] = v
            for b, v in blk["linear"].items():
                linear[base + b] = v
        return FlatTree(edge_values=edge_values, linear=linear, **cat)
