"""Turn one level of the tree grower into the next once its splits are chosen.

Three steps, each a function: record the splits in the level's block (kind, threshold, children,
the values each nominal branch takes), send every entry of a split node to a child (a missing value
to the split's missing branch; with C4.5's fractional instances a weighted copy to every child), and
keep each numeric feature's sorted order sorted inside the new nodes by a stable partition, so no
level sorts again. The grower (:mod:`rulekit.learners.builder`) chooses; this module only moves.
"""

from __future__ import annotations

import numpy as np

from rulekit.learners.flat_tree import LINEAR, NOMINAL, NUMERIC

MULTIWAY, SUBSET = 2, 4  # the grower's nominal split kinds (both NOMINAL in the flat tree)


class Level:
    """Entries of one level, grouped by node (``node`` is nondecreasing)."""

    def __init__(self, s: np.ndarray, w: np.ndarray, node: np.ndarray, n_nodes: int):
        self.s, self.w, self.node, self.n_nodes = s, w, node, n_nodes
        self.count = np.bincount(node, minlength=n_nodes)
        self.start = np.concatenate([[0], np.cumsum(self.count)])


def split_level(lv: Level, orders, avail, block: dict, choice: dict, do: np.ndarray, value: np.ndarray,
                next_id: int, *, X: np.ndarray, Xflat: np.ndarray, sizes: np.ndarray, fractional: bool,
                chunk: int):
    """Apply the splits ``choice`` picked for the nodes ``do`` of level ``lv``; returns the children's
    (level, numeric orders, feature availability, parent values, next free node id).

    ``Xflat`` is ``X`` feature-major and flat; ``chunk`` bounds the entries re-sorted per pass."""
    B = lv.n_nodes
    kind = choice["kind"]
    feat = choice["feature"]
    nch = np.zeros(B, np.int64)
    nch[do] = np.where(kind[do] == MULTIWAY, sizes[np.maximum(feat[do], 0)] + 1, 2)
    off = np.concatenate([[0], np.cumsum(nch)])[:-1]
    record_splits(block, lv, choice, do, nch, off, next_id, X=X, sizes=sizes)
    e, en, child, isnan = route_entries(lv, choice, do, Xflat=Xflat, n=X.shape[0])
    new_lv, src_a, perm, single_copy = next_level(lv, e, en, child, isnan, choice, nch, off, fractional)
    new_orders = None
    if orders is not None:
        new_orders = carry_orders(orders, lv, new_lv, src_a, perm, single_copy, nch, do, chunk)
    # availability below: a multiway split uses its nominal feature up
    parent_of_new = np.repeat(np.arange(B), nch)
    new_avail = avail[parent_of_new].copy()
    mw = np.flatnonzero(kind[parent_of_new] == MULTIWAY)
    new_avail[mw, feat[parent_of_new[mw]]] = False
    new_parent_value = value[parent_of_new]
    return new_lv, new_orders, new_avail, new_parent_value, next_id + new_lv.n_nodes


def record_splits(block: dict, lv: Level, choice: dict, do: np.ndarray, nch: np.ndarray, off: np.ndarray,
                  first_child_id: int, *, X: np.ndarray, sizes: np.ndarray) -> None:
    """Write the split nodes' kind, feature, threshold, missing branch, children and branch values."""
    kind = choice["kind"]
    feat = choice["feature"]
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
        if k == MULTIWAY:
            D = int(sizes[feat[b]])
            block["edge_values"][int(b)] = [(j,) for j in range(D)] + [None]
        elif k == SUBSET:
            left, right = choice["subset"][int(feat[b])][int(b)]
            lv_ = tuple(int(c) for c in np.flatnonzero(left))
            if right is None:  # ordinal cut: the codes up to it, everything else (unseen too) right
                block["edge_values"][int(b)] = [lv_, None]
                continue
            rv_ = tuple(int(c) for c in np.flatnonzero(right))
            # the heavier side takes "other" (categories absent from this node, unseen values)
            heavier_left = _heavier_left(lv, b, feat[b], left, X)
            block["edge_values"][int(b)] = [None, rv_] if heavier_left else [lv_, None]
        elif k == LINEAR:
            fa, wv, _ = choice["linear"][int(b)]
            block["linear"][int(b)] = (tuple(int(v) for v in fa), tuple(float(v) for v in wv))


def route_entries(lv: Level, choice: dict, do: np.ndarray, *, Xflat: np.ndarray, n: int):
    """The entries of split nodes (positions ``e``, their nodes ``en``), the branch each takes by
    its value (-1 while unknown) and whether the tested value is missing."""
    kind = choice["kind"]
    feat = choice["feature"]
    in_split = do[lv.node]
    e = np.flatnonzero(in_split)
    en = lv.node[e]
    child = np.full(e.size, -1, np.int64)
    isnan = np.zeros(e.size, bool)
    for k in (NUMERIC, MULTIWAY, SUBSET):
        sel = np.flatnonzero(kind[en] == k)
        if not sel.size:
            continue
        x = Xflat[feat[en[sel]] * n + lv.s[e[sel]]]
        nan = np.isnan(x)
        isnan[sel] = nan
        if k == NUMERIC:
            c = np.where(x <= choice["thr"][en[sel]], 0, 1)
        elif k == MULTIWAY:
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
    for b, (_fa, _wv, z) in choice["linear"].items():
        sel = np.flatnonzero(en == b)  # entries of node b, in entry order
        zz = z  # computed over the node's entries in entry order
        isnan[sel] = np.isnan(zz)
        child[sel] = np.where(zz <= choice["thr"][b], 0, 1)
    return e, en, child, isnan


def next_level(lv: Level, e, en, child, isnan, choice: dict, nch, off, fractional: bool):
    """The children's level: each routed entry once, a missing value on its split's missing branch,
    or (``fractional``) one copy per non-empty child weighted by the child's share of known weight.
    Returns (level, source entry of each new entry before sorting, the sorting permutation, whether
    every entry went to one child)."""
    miss_branch = choice["miss"][en]
    rep = isnan & fractional
    child = np.where(isnan & ~rep, miss_branch, child)
    single = np.flatnonzero(~rep)
    src = [e[single]]
    nn = [off[en[single]] + child[single]]
    wf = [np.ones(single.size)]
    if rep.any():
        kw, node_known = _known_weights(lv, e, en, child, isnan, nch, off)
        r = np.flatnonzero(rep)
        nb = nch[en[r]]
        rr = np.repeat(r, nb)
        j = np.arange(rr.size) - np.repeat(np.cumsum(nb) - nb, nb)
        cid = off[en[rr]] + j
        frac = kw[cid] / np.maximum(node_known[en[rr]], 1e-300)
        keep = frac > 0
        src.append(e[rr[keep]])
        nn.append(cid[keep])
        wf.append(frac[keep])
    src_a = np.concatenate(src)
    nn_a = np.concatenate(nn)
    wf_a = np.concatenate(wf)
    B_new = int(nch.sum())
    perm = np.argsort(nn_a.astype(_key_dtype(B_new)), kind="stable")
    new_lv = Level(lv.s[src_a[perm]], lv.w[src_a[perm]] * wf_a[perm], nn_a[perm], B_new)
    return new_lv, src_a, perm, not rep.any()


def carry_orders(orders: np.ndarray, lv: Level, new_lv: Level, src_a, perm, single_copy: bool, nch,
                 do: np.ndarray, chunk: int) -> np.ndarray:
    """Every row of ``orders`` (the old level's entries sorted by one numeric feature inside each
    node) as new entry ids sorted inside each new node: a stable partition, ``chunk`` entries a pass."""
    new_node = new_lv.node
    kdt = _key_dtype(new_lv.n_nodes)
    newpos = np.empty(perm.size, np.int64)
    newpos[perm] = np.arange(perm.size)
    m_old = lv.s.size
    if not single_copy:
        copies = np.bincount(src_a, minlength=m_old)
        csr_start = np.concatenate([[0], np.cumsum(copies)])[:-1]
        csr_pos = newpos[np.argsort(src_a, kind="stable")]
    else:
        pos_of = np.full(m_old, -1, np.int64)
        pos_of[src_a] = newpos
    R = orders.shape[0]
    split_nodes_all = np.flatnonzero(do)
    binary = single_copy and bool(np.all(nch[split_nodes_all] == 2))
    new_orders = np.empty((R, new_lv.s.size), np.int64)
    step = max(1, chunk // max(m_old, 1))
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
            new_orders[r0:r0 + Rc] = _partition_binary(q, new_node, new_lv, lv.count[split_nodes_all])
        else:
            key = new_node[q].astype(kdt)
            new_orders[r0:r0 + Rc] = np.take_along_axis(q, np.argsort(key, axis=1, kind="stable"), axis=1)
    return new_orders


def _key_dtype(n_nodes: int):
    """The narrowest sort key for node ids (uint16 sorts faster where it fits)."""
    return np.uint16 if n_nodes < 65536 else np.int64


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


def _heavier_left(lv: Level, b, f, left, X: np.ndarray) -> bool:
    """Whether the left side of node ``b``'s subset split holds at least half its known weight."""
    lo, hi = lv.start[b], lv.start[b + 1]
    x = X[lv.s[lo:hi], f]
    kn = ~np.isnan(x)
    codes = x[kn].astype(np.int64)
    w = lv.w[lo:hi][kn]
    wl = w[left[codes]].sum()
    return bool(wl >= w.sum() - wl)


def _known_weights(lv: Level, e, en, child, isnan, nch, off):
    """Known-value weight of every new child and of every split node."""
    known = ~isnan
    kw = np.bincount(off[en[known]] + child[known], weights=lv.w[e[known]], minlength=int(nch.sum()))
    node_known = np.bincount(en[known], weights=lv.w[e[known]], minlength=lv.n_nodes)
    return kw, node_known
