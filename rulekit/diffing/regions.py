"""Exactly where two models or rule bases disagree, as boxes (:mod:`rulekit.rules.boxes`).

Each side splits the input space into *layers*: one first-hit list per group (a tree of a model, a
group of an ensemble rule base, the whole list of a plain first-hit base) or, for ``vote`` and
``weighted-sum`` bases, one layer per rule (it fires or it does not). A layer becomes a partition
of boxes -- rule *i*'s condition minus every earlier rule's, plus what no rule takes -- and
overlaying every layer of both sides gives *cells* on which each side's output is constant. One
witness point per cell is scored with the real engines (``predict`` / ``predict_proba``), so a
cell's outcome is the engine's own, not a re-implementation of the combiner; cells whose outcomes
differ are the disagreement regions, merged per (before, after) change for reading.

Forests overlay into astronomically many cells: above :data:`MAX_PAIRS` box meets (or when a side
has an oblique test, whose boxes are not independent per feature) :class:`RegionsSkipped` says why
and the caller reports rows only. This is not a missing optimisation: whether some input makes two
tree ensembles disagree is NP-complete in general (a SAT formula's clauses become depth-limited trees
of a sum, Kantchelian et al. 2016 show the same for evasion of a single ensemble), so an exact region
list cannot be had for 100-tree forests in general; small ensembles (the product of their layers'
sizes under the bound) do get exact regions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rulekit.errors import RulekitError
from rulekit.ir.model import Feature, Model
from rulekit.rules.base import Linear, RuleBase
from rulekit.rules.boxes import (Box, LiteralSchema, NomSet, NumSet, TooComplex, complement, condition_boxes,
                                 iter_literals, merge_boxes, no_gc)
from rulekit.rules.extract import extract

MAX_PAIRS = 2_000_000  # box meets spent overlaying layers (~2-4 s of Python at most)
MAX_CELLS = 200_000
MAX_BOXES_PER_RULE = 256
UNSEEN_VALUE = "\x00rulekit: a value outside every domain"


class RegionsSkipped(Exception):
    """The regions cannot be computed exactly within the bounds; the message says why."""


@dataclass
class Region:
    """Where the two sides disagree: ``kind`` ('label', 'proba' or 'value'), the outcomes before and
    after, and the boxes (in the merged feature schema)."""

    kind: str
    before: Any
    after: Any
    boxes: list[Box]


def merged_features(a: Sequence[Feature], b: Sequence[Feature]) -> tuple[Feature, ...]:
    """A's features then B's new ones; nominal domains joined (A's values first)."""
    out: dict[str, Feature] = {f.name: f for f in a}
    for f in b:
        g = out.get(f.name)
        if g is None:
            out[f.name] = f
            continue
        if g.kind != f.kind:
            raise RulekitError(f"feature {f.name!r} is {g.kind} in A and {f.kind} in B: nothing to compare")
        if f.kind == "nominal":
            if (g.match or "truncate") != (f.match or "truncate"):  # only integer domains differ
                raise RulekitError(f"nominal feature {f.name!r} matches numbers differently in A and B")
            seen = {(type(v), v) for v in g.domain}
            extra = tuple(v for v in f.domain if (type(v), v) not in seen)
            if extra:
                out[f.name] = g.model_copy(update={"domain": g.domain + extra})
    return tuple(out.values())


def as_rule_base(side: Model | RuleBase) -> RuleBase:
    """A model's path rules (first-hit per tree, exactly the model) or the rule base itself."""
    return extract(side) if isinstance(side, Model) else side


def layer_sizes(side: Model | RuleBase) -> list[int]:
    """Rules per layer, without building anything (a model: leaves per tree)."""
    if isinstance(side, Model):
        return [sum(1 for n in t if t.out_degree(n) == 0) + 1 for t in side.trees]
    if side.semantics in ("vote", "weighted-sum") and side.combiner is None:
        return [2] * len(side.rules)
    sizes: dict[int, int] = {}
    for r in side.rules:
        sizes[r.group] = sizes.get(r.group, 1) + 1
    return list(sizes.values()) or [1]


def _layers(rb: RuleBase, schema: LiteralSchema) -> list[list[list[Box]]]:
    """Per layer, the condition of each of its first-hit rules as boxes."""
    rule_boxes = []
    for i, r in enumerate(rb.rules):
        schema.where = f"rule {r.id or i + 1}: "
        try:
            rule_boxes.append(condition_boxes(r.condition, schema, limit=MAX_BOXES_PER_RULE))
        except TooComplex:
            raise RegionsSkipped(f"rule {r.id or i + 1}'s condition has more than {MAX_BOXES_PER_RULE} "
                                 f"boxes") from None
    schema.where = ""
    if rb.semantics in ("vote", "weighted-sum") and rb.combiner is None:
        return [[bx] for bx in rule_boxes]
    by: dict[int, list[list[Box]]] = {}
    for r, bx in zip(rb.rules, rule_boxes):
        by.setdefault(r.group, []).append(bx)
    return [by[g] for g in sorted(by)] or [[]]


def subtract(pieces: list[Box], box: Box) -> list[Box]:
    """Disjoint boxes covering ``pieces`` minus ``box``."""
    out: list[Box] = []
    for p in pieces:
        cur: Box | None = p
        for k, c in box.items.items():
            rest = cur.restrict(k, complement(c))
            if rest is not None:
                out.append(rest)
            cur = cur.restrict(k, c)
            if cur is None:
                break
    return out


def partition(layer: list[list[Box]], budget: list[int]) -> list[Box]:
    """Boxes on each of which the layer's first hit is one rule (or none); ``budget`` [meets left]."""
    remaining = [Box()]
    cells: list[Box] = []
    for boxes in layer:
        if not remaining:
            break
        budget[0] -= len(remaining) * max(1, len(boxes))
        if budget[0] < 0:
            raise RegionsSkipped("more box intersections than the bound")
        for r in remaining:
            for b in boxes:
                m = r.meet(b)
                if m is not None:
                    cells.append(m)
        for b in boxes:
            remaining = subtract(remaining, b)
    cells.extend(remaining)
    return cells


def overlay(a: list[Box], b: list[Box], budget: list[int]) -> list[Box]:
    budget[0] -= len(a) * len(b)
    if budget[0] < 0:
        raise RegionsSkipped("more box intersections than the bound")
    out = []
    for x in a:
        for y in b:
            m = x.meet(y)
            if m is not None:
                out.append(m)
    if len(out) > MAX_CELLS:
        raise RegionsSkipped(f"more than {MAX_CELLS:,} cells")
    return out


def witness(cells: list[Box], features: Sequence[Feature]) -> tuple[pd.DataFrame, np.ndarray]:
    """One point inside each cell, as a table of the merged features (nominal values as labels), and
    whether the cell holds any input at all (a domain value ``""`` reads as missing: a cell holding
    only it, and no missing value, is reached by no row)."""
    cols: dict[str, list] = {}
    reachable = np.ones(len(cells), bool)
    for j, f in enumerate(features):
        dom = f.domain or ()
        col = []
        for i, cell in enumerate(cells):
            c = cell.items.get(j)
            if c is None:
                c = NomSet(frozenset(range(-1, len(dom))), len(dom), True) if f.kind == "nominal" else None
            if c is None:
                col.append(0.0)
            elif isinstance(c, NomSet):
                codes = sorted(k for k in c.codes if k < 0 or dom[k] != "")
                if codes:
                    code = codes[-1] if codes[0] < 0 and len(codes) > 1 else codes[0]
                    col.append(dom[code] if code >= 0 else UNSEEN_VALUE)
                else:
                    col.append(None)
                    reachable[i] &= c.missing
            else:
                col.append(_num_witness(c))
        cols[f.name] = col if f.kind == "nominal" else np.asarray(col, np.float64)
    X = pd.DataFrame({i: (pd.Series(v, dtype=object) if not isinstance(v, np.ndarray) else v)
                      for i, v in enumerate(cols.values())})
    X.columns = pd.Index(list(cols), dtype=object)  # pandas 3 + pyarrow cannot hold a lone surrogate
    return X, reachable


def _num_witness(c: NumSet) -> float:
    if not c.intervals:
        return math.nan
    lo, hi = c.intervals[0]
    if lo.at > -math.inf:
        return lo.at
    if hi.at < math.inf:
        return hi.at
    return 0.0


def _has_linear(rb: RuleBase) -> bool:
    return any(isinstance(lit, Linear) for r in rb.rules for lit in iter_literals(r.condition))


def cells_of(a: Model | RuleBase, b: Model | RuleBase, features: tuple[Feature, ...]) -> list[Box]:
    """Boxes on which both sides' outputs are constant (raises RegionsSkipped)."""
    sizes = layer_sizes(a) + layer_sizes(b)
    digits = sum(math.log10(s) for s in sizes)
    if digits > math.log10(MAX_PAIRS) * 2:
        raise RegionsSkipped(f"{len(sizes)} layers (trees or groups) with up to {max(sizes) - 1:,} rules each "
                             f"overlay into up to 10^{digits:.0f} cells, more than the bound of "
                             f"{MAX_PAIRS:,} box meets (where two forests disagree is in general as hard "
                             "to find as a satisfying assignment: no exact method scales with the number "
                             "of trees); compare rows with --data")
    budget = [MAX_PAIRS]
    layers = []
    for side in (a, b):
        rb = as_rule_base(side)
        if _has_linear(rb):
            raise RegionsSkipped("oblique (linear) tests: their boxes are not exact per feature")
        shell = rb.model_copy(update={"features": features, "rules": ()})
        schema = LiteralSchema(shell)
        layers.append([partition(layer, budget) for layer in _layers(rb, schema)])
    # interleave A's and B's layers: tree t of one side overlays tree t of the other first
    order = [p for pair in zip(layers[0], layers[1]) for p in pair]
    n = min(len(layers[0]), len(layers[1]))
    order += layers[0][n:] + layers[1][n:]
    cells = [Box()]
    for p in order:
        cells = overlay(cells, p, budget)
    return cells


def disagreements(a: Model | RuleBase, b: Model | RuleBase) -> tuple[list[Region], tuple[Feature, ...]]:
    """The regions where ``a`` and ``b`` give different outputs, and the merged features they name."""
    features = merged_features(a.features, b.features)
    with no_gc():
        cells = cells_of(a, b, features)
        if not cells:
            return [], features
        X, reachable = witness(cells, features)
        changes = _compare(a, b, X)
        groups: dict[tuple, list[Box]] = {}
        for cell, ch, ok in zip(cells, changes, reachable.tolist()):
            if ch is not None and ok:
                groups.setdefault(ch, []).append(cell)
        order = sorted(groups, key=lambda ch: ch[0] == "proba")  # label changes first
        regions = [Region(ch[0], ch[1], ch[2], merge_boxes(groups[ch])) for ch in order]
    return regions, features


def _compare(a: Model | RuleBase, b: Model | RuleBase, X: pd.DataFrame) -> list[tuple | None]:
    """Per witness row: None when both sides agree, else (kind, before, after)."""
    if a.task != b.task:
        raise RulekitError(f"A is a {a.task} and B a {b.task}: nothing to compare")
    pa, pb = a.predict(X), b.predict(X)
    out: list[tuple | None] = []
    if a.task == "regression":
        for x, y in zip(pa.tolist(), pb.tolist()):
            same = x == y or (x != x and y != y)
            out.append(None if same else ("value", x, y))
        return out
    qa, qb = aligned_proba(a, b, X)
    for i, (x, y) in enumerate(zip(pa.tolist(), pb.tolist())):
        if not same_label(x, y):
            out.append(("label", x, y))
        elif not np.array_equal(qa[i], qb[i], equal_nan=True):
            out.append(("proba", x, y))
        else:
            out.append(None)
    return out


def same_label(x: Any, y: Any) -> bool:
    return x == y or str(x) == str(y) or (x != x and y != y)


def aligned_proba(a, b, X, Pa=None, Pb=None) -> tuple[np.ndarray, np.ndarray]:
    """Both sides' probabilities (``Pa``/``Pb`` when already scored) over the union of their
    classes (A's order, then B's new ones)."""
    ca, cb = list(a.classes or ()), list(b.classes or ())
    union = ca + [c for c in cb if not any(same_label(c, d) for d in ca)]
    out = []
    for side, cs, P in ((a, ca, Pa), (b, cb, Pb)):
        P = np.asarray(side.predict_proba(X) if P is None else P, np.float64)
        Q = np.zeros((P.shape[0], len(union)))
        for j, c in enumerate(cs):
            k = next(i for i, d in enumerate(union) if same_label(c, d))
            Q[:, k] = P[:, j]
        out.append(Q)
    return out[0], out[1]
