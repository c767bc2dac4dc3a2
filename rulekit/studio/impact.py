"""What an edit does to the rows of a data file: predictions before and after, changed rows, accuracy,
confusion table, and which rows each rule decides.

Fast enough to follow typing: each rule's TRUE rows come from the engine
(:func:`rulekit.rules.engine.match_matrix`) and are kept per (feature declarations, precision,
condition), so an edit re-evaluates only the rules it touched. A first-hit rule base is then scored
from those masks with the engine's own outcome arrays; any other semantics (vote, weighted sum, a
model's combiner) is scored by the engine itself. Changed rows, probabilities and the confusion table
use :mod:`rulekit.diffing.rows`, as ``rulekit diff --data`` does, so the counts are the same.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel

from rulekit.diffing.regions import aligned_proba
from rulekit.diffing.rows import Confusion, confusion_of, codes, union_classes
from rulekit.rules import engine
from rulekit.rules.base import RuleBase
from rulekit.table import CsvColumns, check_columns, located

MASK_BUDGET_BYTES = 512 << 20  # cached rule masks (bool, one byte a row): ~5,000 rules of 100k rows


class RuleRow(BaseModel):
    """One rule's line in the per-rule table: the rows it decides and how many of them it gets right."""

    index: int  # into rb.rules; -1 for the default
    name: str
    line: int | None = None
    conclusion: str
    decides: int
    correct: int | None = None  # rows decided whose target is the rule's label (classification)


class Impact(BaseModel):
    """The edit's effect on the data (``rows``, ``changed`` and ``confusion`` as ``rulekit diff``)."""

    rows: int
    changed: int
    proba_changed: int = 0
    changed_rows: list[int] = []
    confusion: Confusion | None = None
    mse_before: float | None = None
    mse_after: float | None = None
    rules: list[RuleRow] = []


@dataclass
class Scored:
    """One rule base's outputs on the data: labels or values, probabilities (classification), and per
    row which rule decided it (``decider``: -1 the default; None for vote / weighted-sum bases)."""

    rb: RuleBase
    predictions: np.ndarray
    proba: np.ndarray | None
    decider: np.ndarray | None
    masks: list[np.ndarray]
    cls: np.ndarray | None = None  # per row the index into the engine's classes (-1: none), when known


class Data:
    """A data file's columns and target, with the encoded matrix kept per feature declarations."""

    def __init__(self, columns: CsvColumns, target: str | None):
        self.columns = columns
        self.target = target
        self.n = len(columns.lines) if getattr(columns, "lines", None) is not None else \
            len(next(iter(columns.values()), []))
        self._matrices: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._masks: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._heads: dict[tuple, int] = {}
        self._codes: dict[tuple, np.ndarray] = {}
        self._mask_bytes = 0

    def y(self) -> Any:
        return None if self.target is None else self.columns[self.target]

    def y_codes(self, classes: list) -> np.ndarray | None:
        """The target's :func:`codes` in ``classes`` (kept: the same classes come back every edit)."""
        if self.target is None:
            return None
        key = (self.target, tuple((type(c), c) for c in classes))
        if key not in self._codes:
            if len(self._codes) > 8:
                self._codes.clear()
            self._codes[key] = codes(self.columns[self.target], classes)
        return self._codes[key]

    def matrix(self, rb: RuleBase) -> np.ndarray:
        """The data encoded for ``rb``'s features (a DataError naming FILE:LINE:COL when it does not fit)."""
        key = rb.features
        M = self._matrices.get(key)
        if M is None:
            check_columns(self.columns, rb.features)
            with located(self.columns, rb.features):
                M = engine.matrix(rb, self.columns)
            self._matrices[key] = M
            while len(self._matrices) > 4:
                self._matrices.popitem(last=False)
        return M

    def masks(self, rb: RuleBase, keys: list | None = None) -> list[np.ndarray]:
        """Per rule, the rows where its condition is TRUE (computed for the rules not seen before).

        ``keys``: per rule something that determines its condition under these feature declarations
        (the studio passes each rule's source text: hashing text is ~10x cheaper than hashing and
        comparing condition objects); default: the condition itself."""
        M = self.matrix(rb)
        head = self._heads.setdefault((rb.features, rb.precision), len(self._heads))  # hashed once
        keys = [(head, k) for k in keys] if keys is not None else [(head, r.condition) for r in rb.rules]
        todo = [i for i, k in enumerate(keys) if k not in self._masks]
        if todo:
            # only the new rules are compiled (the engine compiles every rule of the base it is given)
            part = rb if len(todo) == len(rb.rules) else \
                rb.model_copy(update={"rules": tuple(rb.rules[i] for i in todo)})
            fresh = engine.match_matrix(part, M)
            for j, i in enumerate(todo):
                self._store(keys[i], np.ascontiguousarray(fresh[:, j]))
        out = []
        for k in keys:
            self._masks.move_to_end(k)
            out.append(self._masks[k])
        return out

    def _store(self, key: tuple, mask: np.ndarray) -> None:
        if key in self._masks:
            return
        self._masks[key] = mask
        self._mask_bytes += mask.nbytes
        while self._mask_bytes > MASK_BUDGET_BYTES and len(self._masks) > 1:
            _, old = self._masks.popitem(last=False)
            self._mask_bytes -= old.nbytes


def first_true(masks: list[np.ndarray], n: int) -> np.ndarray:
    """Per row the index of the first mask that is True there, -1 where none is."""
    hit = np.full(n, -1, np.int64)
    open_ = np.ones(n, bool)
    for i, m in enumerate(masks):
        h = m & open_
        if h.any():
            hit[h] = i
            open_ &= ~h
            if not open_.any():
                break
    return hit


def score(rb: RuleBase, data: Data, keys: list | None = None) -> Scored:
    """``rb`` on every row of ``data``; exactly :func:`rulekit.rules.engine.predict_with_proba`
    (``keys``: see :meth:`Data.masks`)."""
    masks = data.masks(rb, keys)
    n = data.n
    if rb.combiner is None and rb.semantics == "first-hit":
        out = engine.outcomes(rb)
        hit = first_true(masks, n)  # -1 indexes the default, stored last
        vec = out.vec[hit]
        if rb.task == "regression":
            return Scored(rb, vec[:, 0].copy(), None, hit, masks)
        cls = out.cls[hit]
        labels = _labels(cls, out.labels)
        if (cls < 0).any():
            vec = vec.copy()
            vec[cls < 0] = np.nan
        return Scored(rb, labels, vec, hit, masks, cls)
    with located(data.columns, rb.features):
        if rb.task == "regression":
            preds, proba = np.asarray(engine.predict(rb, data.columns)), None
        else:
            preds, proba = engine.predict_with_proba(rb, data.columns)
    decider = _group_first_hits(rb, masks, n) if rb.combiner is not None else None
    return Scored(rb, np.asarray(preds), proba, decider, masks)


def _labels(cls: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Class indexes as labels; -1 (no rule, no default) is a missing prediction (None)."""
    if (cls < 0).any():
        res = np.empty(len(cls), object)
        ok = cls >= 0
        res[ok] = labels[cls[ok]]
        res[~ok] = None
        return res
    return labels[cls]


def _group_first_hits(rb: RuleBase, masks: list[np.ndarray], n: int) -> np.ndarray:
    """For ensembles (one group a tree): per row the deciding rule of the first group, as a
    representative (the per-rule table counts each rule's own group, see :func:`decided_by`)."""
    grs = engine.groups(rb)
    if not grs:
        return np.full(n, -1, np.int64)
    idx = grs[0][1]
    hit = first_true([masks[i] for i in idx], n)
    return np.where(hit < 0, -1, np.asarray(idx + [-1])[hit])


def decided_by(s: Scored, i: int) -> np.ndarray:
    """The rows rule ``i`` decides (-1: the default): the first that holds in its group (first-hit
    and ensembles' trees), or every row it matches (vote, weighted sum)."""
    rb = s.rb
    n = len(s.predictions)
    if rb.combiner is None and rb.semantics == "first-hit":
        return np.flatnonzero(s.decider == i)
    if rb.combiner is not None:
        group = rb.rules[i].group if i >= 0 else 0
        idx = dict(engine.groups(rb)).get(group, [])
        hit = first_true([s.masks[j] for j in idx], n)
        if i < 0:
            return np.flatnonzero(hit < 0)
        return np.flatnonzero(hit == idx.index(i))
    if i < 0:
        none = np.ones(n, bool)
        for m in s.masks:
            none &= ~m
        return np.flatnonzero(none)
    return np.flatnonzero(s.masks[i])


def impact(before: Scored, after: Scored, y: Any = None, *, y_codes: Any = None,
           names: list[str] | None = None, lines: list[int | None] | None = None,
           conclusions: list[str] | None = None) -> Impact:
    """Compare two scorings of the same rows (as :func:`rulekit.diffing.rows.row_diff`), and count
    per rule of ``after`` the rows it decides and gets right."""
    a, b = before.rb, after.rb
    pa, pb = before.predictions, after.predictions
    n = len(pb)
    if b.task == "regression":
        va, vb = pa.astype(np.float64), pb.astype(np.float64)
        changed = ~((va == vb) | (np.isnan(va) & np.isnan(vb)))
        out = Impact(rows=n, changed=int(changed.sum()))
        if y is not None and n:
            yv = np.asarray(y, np.float64)
            out.mse_before = float(np.mean((yv - va) ** 2))
            out.mse_after = float(np.mean((yv - vb) ** 2))
        ky = classes = None
    else:
        classes = union_classes(a, b)
        ka, kb = _codes(before, classes), _codes(after, classes)
        changed = ka != kb
        qa, qb = aligned_proba(a, b, None, before.proba, after.proba)
        same_p = np.all((qa == qb) | (np.isnan(qa) & np.isnan(qb)), axis=1)
        out = Impact(rows=n, changed=int(changed.sum()), proba_changed=int((~changed & ~same_p).sum()))
        ky = None
        if y is not None:
            ky = codes(y, classes) if y_codes is None else y_codes(classes)
            out.confusion = confusion_of(classes, ky, ka, kb)
    out.changed_rows = np.flatnonzero(changed).tolist()
    out.rules = _rule_rows(after, ky, classes, names, lines, conclusions)
    return out


def _codes(s: Scored, classes: list) -> np.ndarray:
    """``codes(s.predictions, classes)``, from the class indexes when known (one lookup per class)."""
    if s.cls is None:
        return codes(s.predictions, classes)
    table = np.append(codes(engine.outcomes(s.rb).labels, classes), -1)  # -1: no prediction
    return table[s.cls]


def _rule_rows(s: Scored, ky, classes, names, lines, conclusions) -> list[RuleRow]:
    """Per rule (the default first) the rows it decides and, with a target, how many of them carry
    its own label (classification without a combiner; a tree's leaf in an ensemble does not decide)."""
    rb = s.rb
    R = len(rb.rules)
    names = names or [engine.rule_name(rb, i) for i in range(R)]
    conclusions = conclusions or ["" for _ in range(R + 1)]
    own = None  # per rule, then the default (last): its label's code in ``classes`` (-2: none)
    if ky is not None and rb.task == "classification" and rb.combiner is None:
        out = engine.outcomes(rb)
        table = np.append(codes(out.labels, classes), -2)  # class index -> code; -1 (none) -> -2
        own = table[out.cls]
    if rb.combiner is None and rb.semantics == "first-hit":
        counts = np.bincount(s.decider + 1, minlength=R + 1)
        good = None
        if own is not None:
            right = own[s.decider] == ky  # decider -1 indexes the default, stored last
            good = np.bincount(s.decider + 1, weights=right, minlength=R + 1)
        per = [(int(counts[i + 1]), None if good is None else int(good[i + 1])) for i in range(-1, R)]
    else:
        per = []
        for i in range(-1, R):
            rows = decided_by(s, i)
            per.append((len(rows), None if own is None else int((ky[rows] == own[i]).sum())))
    out_rows = [RuleRow(index=-1, name="default", conclusion=conclusions[R], decides=per[0][0],
                        correct=per[0][1])]
    for i in range(R):
        out_rows.append(RuleRow(index=i, name=names[i], line=None if lines is None else lines[i],
                                conclusion=conclusions[i], decides=per[i + 1][0], correct=per[i + 1][1]))
    return out_rows
