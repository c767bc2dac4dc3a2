"""Post-pruning of a grown tree (flat form): reduced-error, pessimistic (C4.5) and cost-complexity.

All three walk the tree bottom-up without recursion (breadth-first ids: a child's id is larger
than its parent's, so a reverse id loop visits children first). Pruning a node turns it into a leaf
predicting its own training distribution (or mean).

* ``reduced_error`` (seed 002): with a separate pruning set, a subtree becomes a leaf when the leaf
  does not do worse on the pruning set (misclassified weight, or squared error for regression).
  Nodes no pruning example reaches are pruned (their error is 0 either way).
* ``pessimistic`` (C4.5's error-based pruning): estimated errors are the upper confidence limit
  ``U_CF(e, N)`` of the training errors (Quinlan's ``addErrs``, as in Weka's J48); a subtree becomes a
  leaf when the leaf's estimate is at most the subtree's plus 0.1. Subtree raising is not done.
* ``cost_complexity`` (CART, Breiman et al.): weakest-link pruning on ``R(t) = w(t)/w(root) *
  impurity(t)``, exactly as scikit-learn defines it, so paths can be compared; the alpha path, a tree
  for a given alpha, and the pruning-set error along the path (to choose alpha).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from rulekit.learners.flat_tree import LEAF, FlatTree, make_leaves, node_totals


def _children(tree: FlatTree, i: int) -> range:
    s = int(tree.child_start[i])
    return range(s, s + int(tree.n_children[i]))


def leaf_errors(tree: FlatTree, totals: np.ndarray, classification: bool) -> np.ndarray:
    """Error of each node used as a leaf on the examples summarized by ``totals`` (per node):
    classification totals are class weights; regression totals are (W, S1, S2)."""
    if classification:
        pred = np.argmax(tree.value, axis=1)
        return totals.sum(axis=1) - totals[np.arange(tree.n_nodes), pred]
    m = tree.value[:, 0]
    W, S1, S2 = totals[:, 0], totals[:, 1], totals[:, 2]
    return np.maximum(S2 - 2 * m * S1 + m * m * W, 0.0)


def example_totals(tree: FlatTree, M: np.ndarray, target: np.ndarray, weight: np.ndarray,
                   classification: bool, n_classes: int, domain_sizes: list[int]) -> np.ndarray:
    """Per-node totals of a labelled data set routed through the tree (every node on each path)."""
    from rulekit.learners.flat_tree import apply  # noqa: PLC0415

    leaf = apply(tree, M, domain_sizes)
    if classification:
        ch = np.zeros((M.shape[0], n_classes))
        ch[np.arange(M.shape[0]), target] = weight
    else:
        ch = np.column_stack([weight, weight * target, weight * target * target])
    return node_totals(tree, leaf, ch)


def reduced_error(tree: FlatTree, totals: np.ndarray, classification: bool) -> FlatTree:
    """Reduced-error pruning given the pruning set's per-node ``totals`` (see :func:`example_totals`)."""
    err_leaf = leaf_errors(tree, totals, classification)
    err = err_leaf.copy()
    pruned = []
    for i in range(tree.n_nodes - 1, -1, -1):
        if tree.kind[i] == LEAF:
            continue
        sub = sum(err[c] for c in _children(tree, i))
        if err_leaf[i] <= sub + 1e-12 * max(1.0, abs(sub)):
            pruned.append(i)
            err[i] = err_leaf[i]
        else:
            err[i] = sub
    return make_leaves(tree, pruned)


def add_errors(N: float, e: float, cf: float) -> float:
    """Extra errors C4.5 adds to ``e`` observed errors out of ``N`` at confidence ``cf``."""
    if N <= 0:
        return 0.0
    if e < 1:
        base = N * (1 - cf ** (1 / N))
        if e == 0:
            return base
        return base + e * (add_errors(N, 1.0, cf) - base)
    if e + 0.5 >= N:
        return max(N - e, 0.0)
    z = NormalDist().inv_cdf(1 - cf)
    f = (e + 0.5) / N
    r = (f + z * z / (2 * N) + z * math.sqrt(f / N - f * f / N + z * z / (4 * N * N))) / (1 + z * z / N)
    return r * N - e


def pessimistic(tree: FlatTree, confidence: float = 0.25) -> FlatTree:
    """C4.5's error-based pruning (classification trees) at confidence ``confidence``."""
    if not 0 < confidence <= 0.5:
        raise ValueError(f"confidence must be in (0, 0.5], got {confidence}")
    N = tree.weight
    e = N - tree.stats.max(axis=1)
    est_leaf = np.array([e[i] + add_errors(float(N[i]), float(max(e[i], 0.0)), confidence)
                         for i in range(tree.n_nodes)])
    est = est_leaf.copy()
    pruned = []
    for i in range(tree.n_nodes - 1, -1, -1):
        if tree.kind[i] == LEAF:
            continue
        sub = sum(est[c] for c in _children(tree, i))
        if est_leaf[i] <= sub + 0.1:
            pruned.append(i)
            est[i] = est_leaf[i]
        else:
            est[i] = sub
    return make_leaves(tree, pruned)


def _risk(tree: FlatTree, classification: bool) -> np.ndarray:
    """``R(t)``: the node's weight share times its impurity (MSE for regression trees)."""
    root = tree.weight[0] if tree.weight[0] > 0 else 1.0
    if classification:
        return tree.weight * tree.impurity / root
    return tree.stats[:, 2] / root  # SSE / W(root) = w(t)/w(root) * MSE(t)


def weakest_links(tree: FlatTree, classification: bool, err_leaf: np.ndarray | None = None):
    """The weakest-link sequence: a list of (alpha, node pruned, R of the pruned tree, error) where
    error is the pruning-set error of the pruned tree when ``err_leaf`` (per node) is given."""
    n = tree.n_nodes
    r_node = _risk(tree, classification)
    par = tree.parents()
    inner = tree.kind != LEAF
    r_branch = np.where(inner, 0.0, r_node)
    n_leaves = np.where(inner, 0, 1).astype(np.int64)
    e_branch = np.zeros(n) if err_leaf is None else np.where(inner, 0.0, err_leaf)
    for i in range(n - 1, 0, -1):
        r_branch[par[i]] += r_branch[i]
        n_leaves[par[i]] += n_leaves[i]
        e_branch[par[i]] += e_branch[i]
    alive = inner.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(alive, (r_node - r_branch) / np.maximum(n_leaves - 1, 1), np.inf)
    steps = [(0.0, -1, float(r_branch[0]), float(e_branch[0]))]
    while alive[0]:
        t = int(np.argmin(g))
        alpha = float(g[t])
        stack = [c for c in _children(tree, t)]
        while stack:  # the subtree below t leaves the tree
            c = stack.pop()
            if alive[c]:
                alive[c] = False
                g[c] = np.inf
                stack.extend(_children(tree, c))
        alive[t] = False
        g[t] = np.inf
        d_r = r_node[t] - r_branch[t]
        d_l = n_leaves[t] - 1
        d_e = (err_leaf[t] - e_branch[t]) if err_leaf is not None else 0.0
        r_branch[t], n_leaves[t], e_branch[t] = r_node[t], 1, e_branch[t] + d_e
        a = par[t]
        while a >= 0:
            r_branch[a] += d_r
            n_leaves[a] -= d_l
            e_branch[a] += d_e
            g[a] = (r_node[a] - r_branch[a]) / (n_leaves[a] - 1) if n_leaves[a] > 1 else np.inf
            a = par[a]
        steps.append((alpha, t, float(r_branch[0]), float(e_branch[0])))
    return steps


def ccp_path(tree: FlatTree, classification: bool) -> tuple[np.ndarray, np.ndarray]:
    """(ccp_alphas, impurities) like scikit-learn's ``cost_complexity_pruning_path``."""
    steps = weakest_links(tree, classification)
    return np.array([s[0] for s in steps]), np.array([s[2] for s in steps])


def prune_at(tree: FlatTree, alpha: float, classification: bool) -> FlatTree:
    """The subtree for complexity ``alpha``: weakest links pruned while their alpha <= ``alpha``."""
    if alpha <= 0:
        return tree
    nodes = []
    for a, t, _, _ in weakest_links(tree, classification)[1:]:
        if alpha < a:
            break
        nodes.append(t)
    return make_leaves(tree, nodes) if nodes else tree


def best_alpha_on(tree: FlatTree, totals: np.ndarray, classification: bool) -> float:
    """The path's alpha with the smallest pruning-set error (the largest alpha among ties)."""
    steps = weakest_links(tree, classification, leaf_errors(tree, totals, classification))
    best_a, best_e = 0.0, math.inf
    for a, _, _, e in steps:
        if e <= best_e + 1e-12 * max(1.0, abs(best_e) if math.isfinite(best_e) else 1.0):
            best_a, best_e = a, min(e, best_e)
    return best_a
