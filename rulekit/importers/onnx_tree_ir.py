"""Decoded ONNX trees (:class:`~.onnx_trees.Ensemble`) -> IR tree graphs, one comparison at a time.

onnxruntime compares ``x MODE threshold`` in the operator's type (float for float input, double for
double input), and a NaN takes the true branch only where ``missing_value_tracks_true`` says so
(BRANCH_NEQ: ``NaN != t`` is true, so NaN always goes there). Each mode becomes one IR split:

* LEQ / LT: ``numeric`` ``<=`` / ``<``, true = branch 0;
* GTE / GT: ``numeric`` ``<`` / ``<=`` with the branches swapped (``x >= t`` is ``not x < t``);
* EQ / NEQ / MEMBER: a two-way ``nominal`` split on a feature whose tests are all equalities with
  integral values: the feature becomes nominal with ``match="exact"`` and those integers as its
  domain (a number that is no domain value is unseen, as it is unequal to every value in ONNX).

A split whose two branches name the same child is that child. Trees are walked with an explicit
stack; a split reached twice (a cycle or a shared subtree) is refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import networkx as nx
import numpy as np

from rulekit.importers.onnx_trees import MODES, Ensemble, OnnxModelError
from rulekit.ir.tree import graph_from_parts

EQUALITY = (4, 5, 6)  # BRANCH_EQ, BRANCH_NEQ, BRANCH_MEMBER


def nominal_domains(ens: Ensemble, skip: set[int] = frozenset()) -> dict[int, tuple[int, ...]]:
    """Features tested by equality: their sorted integer values. A feature tested both by
    equality and by an order comparison, or against a non-integral value, is refused."""
    values: dict[int, set] = {}
    order: set[int] = set()
    for i, (m, f) in enumerate(zip(ens.mode, ens.feature)):
        if f in skip:
            continue
        if m in EQUALITY:
            vals = ens.members.get(i, ()) if m == 6 else (ens.value[i],)
            for v in vals:
                if not (math.isfinite(v) and v == int(v) and abs(v) < 2**53):
                    raise OnnxModelError(f"{ens.name}: node {i} tests feature {f} for equality with "
                                         f"{v!r}; rulekit reads equality tests on integer values only")
            values.setdefault(f, set()).update(int(v) for v in vals)
        else:
            order.add(f)
    both = sorted(order & set(values))
    if both:
        raise OnnxModelError(f"{ens.name}: feature {both[0]} is tested both for equality and by order; "
                             f"rulekit cannot represent that mix")
    return {f: tuple(sorted(v)) for f, v in values.items()}


class TreeReader:
    """Builds IR graphs from one decoded ensemble; the nominal domains are worked out once.
    ``float32``: the operator compares in float (thresholds rounded to float32 as onnxruntime
    reads them), else in double."""

    def __init__(self, ens: Ensemble, n_features: int, *, float32: bool, max_nodes: int = 4_000_000,
                 code_columns: dict[int, int] | None = None, linear_columns: dict[int, dict] | None = None):
        self.ens = ens
        self.n_features = n_features
        self.precision = "float32" if float32 else "float64"
        # derived input columns that hold a nominal feature's category code (rulekit's exports)
        self.code_columns = dict(code_columns or {})
        # derived 0/1 columns that hold an oblique test (rulekit's exports): column -> linear node
        self.linear_columns = dict(linear_columns or {})
        self.domains = nominal_domains(ens, skip=set(self.code_columns) | set(self.linear_columns))
        self.code = {f: {v: i for i, v in enumerate(d)} for f, d in self.domains.items()}
        self.max_nodes = max_nodes
        self.total = 0

    def leaves(self, root: int) -> list[int]:
        """Leaf numbers reachable from ``root`` (each split visited once: a cycle is refused)."""
        ens, out, stack = self.ens, [], [root]
        seen = set()
        while stack:
            ref = stack.pop()
            if ref < 0:
                out.append(-1 - ref)
                continue
            _visit(ens, seen, ref)
            false = self._chain_end(ref, seen) if ens.mode[ref] == 4 else ens.false_ref[ref]
            stack.append(ens.true_ref[ref])
            if false != ens.true_ref[ref]:
                stack.append(false)
        return out

    def _chain(self, ref: int, seen: set[int]):
        """The links after ``ref`` in a ``BRANCH_EQ`` chain to ``ref``'s true child (same feature),
        each marked visited; a legacy ensemble writes a set test so."""
        ens = self.ens
        f, target = ens.feature[ref], ens.true_ref[ref]
        nxt = ens.false_ref[ref]
        while (nxt >= 0 and ens.mode[nxt] == 4 and ens.feature[nxt] == f and ens.true_ref[nxt] == target
               and nxt not in seen):
            _visit(ens, seen, nxt)
            yield nxt
            nxt = ens.false_ref[nxt]

    def _chain_end(self, ref: int, seen: set[int]) -> int:
        last = ref
        for last in self._chain(ref, seen):
            pass
        return self.ens.false_ref[last]

    def _merge_chain(self, ref: int, node: dict, seen: set[int]) -> int:
        """Fold ``x == c1 -> T, else x == c2 -> T, else ...`` into ``node`` (a set test to T);
        the chain's last false child is returned. NaN goes to T if any link sends it there."""
        ens = self.ens
        codes = set(node["_sets"][0])
        last = ref
        for last in self._chain(ref, seen):
            one, _, _ = _split(self, last)
            codes.update(one["_sets"][0])
            if ens.missing_true[last]:
                node["missing"] = 0
        node["_sets"] = (tuple(sorted(codes)), None)
        return ens.false_ref[last]

    def tree(self, root: int, leaf_value: Callable[[int], Sequence[float]]) -> nx.DiGraph:
        """The IR graph of the tree at ``root``, leaf ``j`` holding ``leaf_value(j)``."""
        ens = self.ens
        seen: set[int] = set()  # per tree: memory follows the tree, not the whole ensemble
        nodes: list[dict] = []
        edges: list[tuple[int, int, dict]] = []
        stack: list[tuple[int, int, int]] = [(root, -1, -1)]  # (ref, parent IR node, branch)
        while stack:
            ref, parent, branch = stack.pop()
            while ref >= 0 and (ens.true_ref[ref] == ens.false_ref[ref] or _always_true(ens, ref)):
                _visit(ens, seen, ref)
                ref = ens.true_ref[ref]
            me = len(nodes)
            if parent >= 0:
                edges.append((parent, me, edges_attr(nodes[parent], branch)))
            if ref < 0:
                nodes.append({"kind": "leaf", "value": tuple(float(v) for v in leaf_value(-1 - ref))})
                continue
            _visit(ens, seen, ref)
            node, first, second = _split(self, ref)
            if ens.mode[ref] == 4:  # BRANCH_EQ chain to one child (a set, as legacy ensembles write it)
                second = self._merge_chain(ref, node, seen)
            nodes.append(node)
            stack.append((second, me, 1))
            stack.append((first, me, 0))
        self.total += len(nodes)
        if self.total > self.max_nodes:
            raise OnnxModelError(f"{ens.name}: more than {self.max_nodes} nodes in the trees")
        for a in nodes:
            a.pop("_sets", None)
        return graph_from_parts(nodes, edges)


def edges_attr(parent: dict, branch: int) -> dict:
    if parent["kind"] != "nominal":
        return {"branch": branch}
    return {"branch": branch, "values": parent["_sets"][branch]}


def _visit(ens: Ensemble, seen: set[int], ref: int) -> None:
    if ref in seen:
        raise OnnxModelError(f"{ens.name}: node {ref} is reached twice (a cycle in the node ids, or a "
                             f"subtree shared by two branches)")
    seen.add(ref)


def _always_true(ens: Ensemble, i: int) -> bool:
    """``x <= +inf`` with NaN sent to true (rulekit writes a one-leaf tree so)."""
    return ens.mode[i] == 0 and ens.value[i] == math.inf and ens.missing_true[i]


def _split(reader: TreeReader, i: int) -> tuple[dict, int, int]:
    """The IR node for split ``i`` and the refs of its branch 0 and branch 1 children."""
    ens = reader.ens
    m, f, t = ens.mode[i], ens.feature[i], ens.value[i]
    yes, no, nan_yes = ens.true_ref[i], ens.false_ref[i], ens.missing_true[i]
    if f in reader.code_columns:
        return _code_split(reader, i)
    if f in reader.linear_columns:
        if m != 0 or t != 0.5:
            raise OnnxModelError(f"{ens.name}: node {i}: an oblique-test column tested otherwise than <= 0.5")
        return dict(reader.linear_columns[f]), yes, no  # z = 0 (the sum is <= its bound): true
    if not 0 <= f < reader.n_features:
        raise OnnxModelError(f"{ens.name}: node {i} reads column {f}, outside the input's "
                             f"{reader.n_features} columns")
    if m in EQUALITY:
        vals = ens.members.get(i, ()) if m == 6 else (t,)
        codes = tuple(sorted({reader.code[f][int(v)] for v in vals}))
        if m == 5:  # x != t: the value goes to false, everything else (NaN too) to true
            return ({"kind": "nominal", "feature": f, "missing": 1, "_sets": (codes, None)}, no, yes)
        return ({"kind": "nominal", "feature": f, "missing": 0 if nan_yes else 1, "_sets": (codes, None)},
                yes, no)
    if math.isnan(t):
        raise OnnxModelError(f"{ens.name}: node {i} has a NaN threshold")
    if reader.precision == "float32":
        with np.errstate(over="ignore"):
            t = float(np.float32(t))
    op = "<=" if m in (0, 3) else "<"
    node = {"kind": "numeric", "feature": f, "threshold": float(t), "op": op, "precision": reader.precision}
    if m in (0, 1):  # x <= t / x < t: true is branch 0
        node["missing"] = 0 if nan_yes else 1
        return node, yes, no
    node["missing"] = 1 if nan_yes else 0  # x > t / x >= t: true is branch 1
    return node, no, yes


def _code_split(reader: TreeReader, i: int) -> tuple[dict, int, int]:
    """A test on a category-code column: set membership, or ``code <= +inf`` (not missing)."""
    ens = reader.ens
    m, t = ens.mode[i], ens.value[i]
    yes, no, nan_yes = ens.true_ref[i], ens.false_ref[i], ens.missing_true[i]
    f = reader.code_columns[ens.feature[i]]
    if m in (4, 6):
        vals = ens.members.get(i, ()) if m == 6 else (t,)
        codes = tuple(sorted({int(v) for v in vals if v == int(v) and v >= 0}))
        return ({"kind": "nominal", "feature": f, "missing": 0 if nan_yes else 1, "_sets": (codes, None)},
                yes, no)
    if m == 0 and t == math.inf:
        return ({"kind": "nominal", "feature": f, "missing": 0 if nan_yes else 1, "_sets": (None, ())},
                yes, no)
    raise OnnxModelError(f"{ens.name}: node {i}: a {MODES[m]} test on a category-code column")


__all__ = ["MODES", "TreeReader", "nominal_domains"]
