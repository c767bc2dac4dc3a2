"""`verify` on SQLite for one big tree: the exported query in chunks of at most CHUNK_LEAVES leaves.

SQLite prepares a statement in time quadratic in its comparison constants (it looks for each
constant among those already factored out): 2,800 leaves prepare in 0.12 s, 10,700 in 3.9 s, so a
200k-leaf tree would take ~25 minutes before scoring one row. Above CHUNK_LEAVES leaves a
single tree is cut into subtrees; each chunk is the same tree with the subtrees of the other chunks
replaced by a *sentinel* leaf (a value below every real leaf value), exported by the same SQL
exporter and run on the rows the source routes into that chunk. A row SQLite routes elsewhere in
the shared upper part lands on a sentinel and is reported as a disagreement, so every leaf and
every split is still checked; what is not run is the single whole statement.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from rulekit.ir.model import Model
from rulekit.ir.tree import children_by_branch, root_of
from rulekit.runtimes import Outcome
from rulekit.table import Table

CHUNK_LEAVES = 2_000
CHUNKED_BACKENDS = {"sqlite"}


def plan(obj) -> list[list[int]] | None:
    """Groups of subtree roots (each group at most CHUNK_LEAVES leaves, in pre-order), or None when
    ``obj`` is not one big tree or its upper part is too large for chunks to help."""
    if not isinstance(obj, Model) or len(obj.trees) != 1 or obj.combiner.kind != "single":
        return None
    tree = obj.trees[0]
    root = root_of(tree)
    leaves = _leaf_counts(tree, root)
    if leaves[root] <= CHUNK_LEAVES:
        return None
    top, cuts = 0, []
    stack = [root]
    while stack:  # pre-order, branch 0 first
        node = stack.pop()
        if leaves[node] <= CHUNK_LEAVES:
            cuts.append(node)
            continue
        top += 1
        stack.extend(reversed(children_by_branch(tree, node)))
    if top + len(cuts) > CHUNK_LEAVES:
        return None  # a long spine: every chunk would repeat it
    groups: list[list[int]] = [[]]
    size = 0
    for c in cuts:
        if size + leaves[c] > CHUNK_LEAVES and groups[-1]:
            groups.append([])
            size = 0
        groups[-1].append(c)
        size += leaves[c]
    return groups


def _leaf_counts(tree: nx.DiGraph, root) -> dict:
    counts: dict = {}
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        kids = tree.succ[node]
        if done:
            counts[node] = sum(counts[k] for k in kids) if kids else 1
            continue
        stack.append((node, True))
        stack.extend((k, False) for k in kids)
    return counts


def _below(tree: nx.DiGraph, roots: list) -> list:
    out, stack = [], list(roots)
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(tree.succ[node])
    return out


def chunk_models(obj: Model, groups: list[list[int]]) -> tuple[list[Model], dict]:
    """One model per group (other groups' subtrees as sentinel leaves) and leaf -> group index."""
    tree = obj.trees[0]
    cut_set = {c for g in groups for c in g}
    top = _top(tree, cut_set)
    values = [v for _, a in tree.nodes(data=True) if a["kind"] == "leaf" for v in a["value"]]
    low = min(values)
    sentinel = float(low - 1.0 - abs(low))
    size = len(tree.nodes[next(n for n, a in tree.nodes(data=True) if a["kind"] == "leaf")]["value"])
    models, group_of = [], {}
    for i, g in enumerate(groups):
        mine = _below(tree, g)
        for n in mine:
            if not tree.succ[n]:
                group_of[n] = i
        sub = tree.subgraph(top + list(cut_set) + mine).copy()
        own = set(g)
        for c in cut_set - own:
            attrs = sub.nodes[c]
            attrs.clear()
            attrs.update(kind="leaf", value=(sentinel,) * size)
        models.append(Model([sub], obj.features, task=obj.task, classes=obj.classes, combiner=obj.combiner,
                            target=obj.target, source=obj.source, validate=False))
    return models, group_of


def _top(tree: nx.DiGraph, cut_set: set) -> list:
    out, stack = [], [root_of(tree)]
    while stack:
        node = stack.pop()
        if node in cut_set:
            continue
        out.append(node)
        stack.extend(tree.succ[node])
    return out


def run_chunked(run, obj: Model, table: Table, groups: list[list[int]]) -> Outcome:
    """``run`` (a backend runner) on each chunk's rows; the outcomes put back in row order."""
    models, group_of = chunk_models(obj, groups)
    leaf = obj.apply(table)[:, 0]
    which = np.asarray([group_of[n] for n in leaf.tolist()], dtype=np.int64)
    n = len(which)
    pred = np.empty(n, dtype=object)
    proba = None
    seconds = 0.0
    for i, model in enumerate(models):
        rows = np.flatnonzero(which == i)
        if not len(rows):
            continue
        got = run(model, {k: v[rows] for k, v in table.items()})
        seconds += got.seconds
        pred[rows] = np.asarray(got.prediction, dtype=object)
        if got.proba is not None:
            if proba is None:
                proba = np.full((n, got.proba.shape[1]), np.nan)
            proba[rows] = got.proba
    if obj.task == "regression":
        pred = pred.astype(np.float64)
    return Outcome(pred, proba, seconds, f"{len(models)} queries of at most {CHUNK_LEAVES:,} leaves")
