"""The rows of a data set whose prediction changes between two sides, scored by their real engines.

Labels are compared after mapping both sides onto one class list (A's classes, then B's new ones;
``1`` and ``"1"`` are the same class, as in a CSV). Probability deltas are per row the largest
absolute difference over the classes; their max and mean are reported. With the target column, a
before/after confusion table (rows: true class, columns: predicted class) and both accuracies.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from rulekit.diffing.regions import aligned_proba, same_label
from rulekit.ir.model import Model
from rulekit.rules import engine
from rulekit.rules.base import RuleBase
from rulekit.semantics import combiners


class RowChange(BaseModel):
    row: int  # 0-based index of the data row
    line: int | None = None  # its line in the CSV file, when read from one
    before: Any
    after: Any
    target: Any = None
    max_abs_dproba: float | None = None


class Confusion(BaseModel):
    classes: list[Any]
    before: list[list[int]]  # [true class][predicted class]
    after: list[list[int]]
    accuracy_before: float
    accuracy_after: float
    unknown_targets: int = 0  # rows whose target is none of the classes (not counted above)


class RowDiff(BaseModel):
    rows: int
    changed: int  # rows whose label (or value) changes
    proba_changed: int = 0  # rows whose label stays but whose probabilities change
    changed_rows: list[int] = []  # every changed row (0-based)
    examples: list[RowChange] = []  # the first few, with their outcomes
    # every changed row's outcomes, line and target for the CSV form (not in the JSON: ``examples``)
    changed_outcomes: list[tuple[Any, Any, int | None, Any]] = Field(default=[], exclude=True)
    max_abs_dproba: float | None = None
    mean_abs_dproba: float | None = None
    max_abs_dvalue: float | None = None
    confusion: Confusion | None = None
    mse_before: float | None = None
    mse_after: float | None = None


def union_classes(a, b) -> list:
    ca, cb = list(a.classes or ()), list(b.classes or ())
    return ca + [c for c in cb if not any(same_label(c, d) for d in ca)]


def codes(values: Any, classes: list) -> np.ndarray:
    """Index of each value in ``classes`` (-1: none of them), one lookup per distinct value."""
    arr = np.asarray(values)
    try:
        uniq, inv = np.unique(arr, return_inverse=True)
    except TypeError:  # mixed types: map through text
        uniq, inv = np.unique(arr.astype(str), return_inverse=True)
    table = np.array([class_index(u.item() if hasattr(u, "item") else u, classes)
                      for u in uniq.tolist()] or [-1], np.int64)
    return table[inv.reshape(-1)] if len(arr) else np.zeros(0, np.int64)


def class_index(value: Any, classes: list) -> int:
    """The index of ``value`` in ``classes`` (-1: none): the label itself, or a CSV cell's text of a
    numeric class ('1.0' is class 1, as ``stats`` and ``rules`` read a target; diff called every
    row of a 0/1 target written 0.0/1.0 an unknown target: audit 3)."""
    k = next((k for k, c in enumerate(classes) if same_label(value, c)), -1)
    if k >= 0 or not isinstance(value, str):
        return k
    try:
        f = float(value)
    except ValueError:
        return -1
    number = int(f) if f.is_integer() else f
    return next((k for k, c in enumerate(classes)
                 if type(c) in (int, float) and c == number), -1)


def scores(side: Any, X: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """(predictions, probabilities or None) of one side, from one scoring pass instead of two: a
    rule base through ``engine.predict_with_proba``; a model's raw scores once, then probabilities
    and labels by the combiner reference (:mod:`rulekit.semantics.combiners`), as ``Model.predict``
    and ``Model.predict_proba`` compute them (a raw-score decision included)."""
    if side.task != "classification":
        return np.asarray(side.predict(X)), None
    if isinstance(side, RuleBase):
        labels, P = engine.predict_with_proba(side, X)
        return np.asarray(labels), P
    if isinstance(side, Model):
        red, raw = side.reduction(), side.raw_output(X)
        P = combiners.probabilities(red, raw)
        return side.label_array()[combiners.label_index(red, raw, P)], P
    P = np.asarray(side.predict_proba(X), np.float64)
    return np.asarray(side.predict(X)), P


def row_diff(a, b, X: Any, y: Any = None, *, lines: list[int] | None = None, examples: int = 20,
             outcomes: bool = False) -> RowDiff:
    """How ``b``'s outputs on the rows ``X`` differ from ``a``'s: counts, every changed row's index,
    the first ``examples`` with their outcomes, the confusion or errors against ``y``; ``outcomes``:
    every changed row's outcomes too (the CSV form's lines; one Python tuple a row, so only on request)."""
    if isinstance(a, Model) and isinstance(b, Model):  # the C tree walker releases the GIL
        with ThreadPoolExecutor(2) as pool:
            fa, fb = pool.submit(scores, a, X), pool.submit(scores, b, X)
            (pa, Pa), (pb, Pb) = fa.result(), fb.result()
    else:
        (pa, Pa), (pb, Pb) = scores(a, X), scores(b, X)
    n = len(pa)
    if a.task == "regression":
        va, vb = pa.astype(np.float64), pb.astype(np.float64)
        changed = ~((va == vb) | (np.isnan(va) & np.isnan(vb)))
        d = np.abs(va - vb)
        out = RowDiff(rows=n, changed=int(changed.sum()),
                      max_abs_dvalue=float(np.nanmax(d)) if n and not np.isnan(d).all() else (0.0 if n else None))
        proba_rows = np.zeros(n, bool)
        dmax = None
        if y is not None:
            yv = np.asarray(y, np.float64)
            out.mse_before = float(np.mean((yv - va) ** 2)) if n else None
            out.mse_after = float(np.mean((yv - vb) ** 2)) if n else None
    else:
        classes = union_classes(a, b)
        ka, kb = codes(pa, classes), codes(pb, classes)
        changed = ka != kb
        qa, qb = aligned_proba(a, b, X, Pa, Pb)
        dmax = np.abs(qa - qb).max(axis=1) if qa.shape[1] else np.zeros(n)
        same_p = np.all((qa == qb) | (np.isnan(qa) & np.isnan(qb)), axis=1)
        proba_rows = ~changed & ~same_p
        out = RowDiff(rows=n, changed=int(changed.sum()), proba_changed=int(proba_rows.sum()),
                      max_abs_dproba=float(np.nanmax(dmax)) if n else None,
                      mean_abs_dproba=float(np.nanmean(dmax)) if n else None)
        if y is not None:
            out.confusion = confusion_of(classes, codes(y, classes), ka, kb)
    idx = np.flatnonzero(changed)
    out.changed_rows = idx.tolist()
    ys = None if y is None else np.asarray(y, dtype=object)
    if outcomes:
        out.changed_outcomes = [(_plain(pa[i]), _plain(pb[i]), lines[i] if lines else None,
                                 None if ys is None else _plain(ys[i])) for i in idx.tolist()]
    for i in idx[:examples].tolist():
        out.examples.append(RowChange(row=i, line=lines[i] if lines else None, before=_plain(pa[i]),
                                      after=_plain(pb[i]), target=None if ys is None else _plain(ys[i]),
                                      max_abs_dproba=None if dmax is None else float(dmax[i])))
    return out


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def confusion_of(classes: list, ky: np.ndarray, ka: np.ndarray, kb: np.ndarray) -> Confusion:
    K = len(classes)
    known = ky >= 0
    tables = []
    for k in (ka, kb):
        ok = known & (k >= 0)
        t = np.zeros((K, K), np.int64)
        np.add.at(t, (ky[ok], k[ok]), 1)
        tables.append(t.tolist())
    n = int(known.sum())
    return Confusion(classes=[_plain(c) for c in classes], before=tables[0], after=tables[1],
                     accuracy_before=float((ka[known] == ky[known]).mean()) if n else 0.0,
                     accuracy_after=float((kb[known] == ky[known]).mean()) if n else 0.0,
                     unknown_targets=int((~known).sum()))
