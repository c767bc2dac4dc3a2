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

Layout (issue #23): this module holds the per-level state (``_TreeGrower``: entries by node, each
numeric feature's sorted order, channel sums) and chooses splits; scoring thresholds on sorted
segments is :mod:`~rulekit.learners.threshold_scan`, CART's subsets :mod:`~rulekit.learners.subset_split`,
moving entries and orders into the children :mod:`~rulekit.learners.partition`; the criteria are
:mod:`~rulekit.learners.criteria`, the tree layout :mod:`~rulekit.learners.flat_tree`, what the grower is
given (``Settings``, ``Problem``) :mod:`~rulekit.learners.settings`.
"""

from __future__ import annotations

import numpy as np

from rulekit.ir.compiled import linear_score
from rulekit.learners import criteria as C
from rulekit.learners.flat_tree import LEAF, LINEAR, NUMERIC, FlatTree
from rulekit.learners.partition import MULTIWAY, SUBSET, Level, split_level
from rulekit.learners.settings import Problem, Settings  # re-exported: the estimators import them from here
from rulekit.learners.subset_split import best_subsets
from rulekit.learners.threshold_scan import ThresholdScorer

_TIE = 1e-10
_CHUNK = 2_000_000  # entries scored per pass over the numeric features (bounds temporary memory)


def build(problem: Problem, settings: Settings, rng: np.random.Generator | None = None) -> FlatTree:
    """Grow a tree on ``problem`` (see the module docstring); returns its flat form."""
    return _TreeGrower(problem, settings, rng or np.random.default_rng(0)).run()


class _TreeGrower:
    """One tree grown level by level: the level's entries, each numeric feature's order, the blocks
    of finished nodes; scores candidates, chooses a split per node and hands the moving to
    :func:`~rulekit.learners.partition.split_level`."""

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
    def _node_totals(self, lv: Level) -> tuple[np.ndarray, np.ndarray]:
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

    def _channels(self, idx: np.ndarray, lv: Level, basis: np.ndarray) -> np.ndarray:
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

    def _group_sums(self, keys: np.ndarray, idx: np.ndarray, lv: Level, basis: np.ndarray,
                    n_groups: int) -> np.ndarray:
        """Channels summed per group key, channel-first (C x n_groups), for entries ``idx``; float64
        even when ``idx`` is empty (numpy's bincount then returns integers)."""
        w = lv.w[idx]
        if self.regression:
            yc = basis[idx]
            return np.stack([np.bincount(keys, weights=v, minlength=n_groups)
                             for v in (w, w * yc, w * yc * yc)]).astype(np.float64, copy=False)
        return np.bincount(keys * self.K + basis[idx], weights=w,
                           minlength=n_groups * self.K).reshape(n_groups, self.K).T.astype(np.float64, copy=False)

    # --- main loop ---------------------------------------------------------------------------------
    def run(self) -> FlatTree:
        P, S = self.P, self.S
        keep = np.flatnonzero(P.w > 0)
        lv = Level(keep.astype(np.int64), P.w[keep].astype(np.float64), np.zeros(keep.size, np.int64), 1)
        # row r: the entries sorted by numeric feature self.numeric[r] (None: extra trees)
        orders = None if S.random_thresholds or not self.numeric else \
            np.stack([np.argsort(self.Xt[f][lv.s], kind="stable") for f in self.numeric])
        avail = np.ones((1, self.p), bool)
        parent_value = None
        depth = 0
        next_id = 1
        self.root_weight = float(lv.w.sum())
        self.scorer = ThresholdScorer(S, self.regression, self.imp_crit, self.root_weight, self.rng)
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
        return split_level(lv, orders, avail, block, choice, do, value, next_id, X=P.X, Xflat=self._Xflat,
                           sizes=P.sizes, fractional=S.missing == "fractional", chunk=_CHUNK)

    # --- candidates ------------------------------------------------------------------------------
    def _eligible(self, lv: Level, orders, mask: np.ndarray) -> np.ndarray:
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
            res = self.scorer.random_split(xs, ch, key, tot, parent_imp, may_nan, B)
        else:
            res = self.scorer.scan(xs, ch, key, tot, parent_imp, may_nan, B)
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
    def _store(cand, nodes, f, gain, si, nbr, thr, go):
        cand["gain"][nodes, f] = gain
        cand["si"][nodes, f] = si
        cand["nbr"][nodes, f] = nbr
        cand["thr"][nodes, f] = thr
        cand["miss"][nodes, f] = go

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
        """CART's ``x in B`` for feature ``f`` (:func:`rulekit.learners.subset_split.best_subsets`);
        stores each node's best subset and the two sides' categories present in the node."""
        ordinal = self.P.ordinal is not None and bool(self.P.ordinal[f])
        v, gain, si, go, lm = best_subsets(cnt, ncnt, M, wcat, parent_imp[nodes], settings=self.S,
                                           regression=self.regression, n_classes=self.K, ordinal=ordinal,
                                           imp_crit=self.imp_crit)
        self._store(cand, nodes[v], f, gain, si, 2, 0.0, go)
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
        kind[ok] = np.where(nominal[ok], MULTIWAY if self.multiway else SUBSET, NUMERIC)
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
            res = self.scorer.scan(z[order], ch, np.zeros(order.size, np.int64), tot[:, b:b + 1],
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
