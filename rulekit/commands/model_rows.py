"""The rows of a pruning or training CSV that ``rules MODEL --prune-data`` learns from.

Only the model's feature columns and the target go on (an extra column is ignored, as ``predict``
ignores it: the pooled steps compare the two tables' columns and would blame the wrong file), and
a row without a target value is left out with one note naming the file and the count, as ``fit``,
``--induce`` and ``--scorecard`` leave such rows out. A label that is not one of the model's
classes is still an error: it would count as every rule's mistake and prune them wrongly.
"""

from __future__ import annotations

import sys
from typing import Any

from rulekit.errors import DataError
from rulekit.table import CsvColumns, check_columns, rows_of


def model_rows(data: CsvColumns, model: Any, quiet: bool = False, target: str | None = None) -> CsvColumns:
    """``data`` cut to the model's features and target, its rows without a target value left out
    (a note unless ``quiet``), every label checked against the model's classes. ``target``: the
    class column when it is known (the one ``fit`` recorded), else the model's or the one other
    column."""
    check_columns(data, model.features)
    target = target if target is not None and target in data else target_column(data, model)
    names = [f.name for f in model.features] + [target]
    out = CsvColumns({k: data[k] for k in dict.fromkeys(names)})
    out.path, out.header, out.lines = data.path, data.header, data.lines
    keep = [i for i, v in enumerate(out[target]) if v not in ("", None)]
    if len(keep) < len(out[target]):
        if not keep:
            raise DataError(f"the target column {target!r} is empty", file=data.path)
        if not quiet:
            print(f"rulekit: note: {len(out[target]) - len(keep):,} row(s) of {data.path} without a "
                  f"{target!r} value left out", file=sys.stderr)
        out = rows_of(out, keep)
    check_labels(out, model, target)
    return out


def target_column(data: CsvColumns, model: Any) -> str:
    """The model's target when ``data`` has it, else the one column that is not a feature."""
    if model.target is not None and model.target in data:
        return model.target
    feats = {f.name for f in model.features}
    rest = [c for c in data if c not in feats]
    if len(rest) != 1:
        others = ", ".join(map(repr, rest)) or "none"
        what = (f"no target column {model.target!r}" if model.target is not None
                else "cannot tell the target column (the model file names none)")
        raise DataError(f"{what}; columns besides the model's features: {others}",
                        file=getattr(data, "path", None), line=1)
    return rest[0]


def check_labels(data: CsvColumns, model: Any, target: str) -> None:
    """At least one row, and every label one of the model's classes (a one-line error at its line)."""
    path = getattr(data, "path", None)
    labels = data[target]
    if not len(labels):
        raise DataError("no data rows to prune with", file=path)
    known = {str(c) for c in model.classes}
    numeric = {float(c) for c in model.classes
               if isinstance(c, (int, float)) and not isinstance(c, bool)}
    lines = getattr(data, "lines", None)
    for i, v in enumerate(labels):
        if str(v) in known or _as_float(v) in numeric:
            continue
        where = {"file": path, "line": lines[i]} if lines else {}
        shown = ", ".join(map(str, model.classes))
        raise DataError(f"target {target!r} is {v!r}, not one of the model's classes ({shown})", **where)


def _as_float(v) -> float | None:
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def unpredicted_absent(rb: Any, data: CsvColumns, model: Any, path: Any) -> str | None:
    """The warning when classes of ``model`` that no row of the pruning ``data`` holds are concluded
    by no rule of the pruned ``rb`` nor its default: pruning had no row to keep their rules for, and
    the rules never predict them (audit 3: prune rows without 'high' dropped a fifth of the test rows'
    class, with a pruning accuracy of 0.99 and no word); None otherwise."""
    if rb.task != "classification" or not model.classes:
        return None
    target = target_column(data, model)
    seen = {str(v) for v in data[target]} | {_as_float(v) for v in data[target]} - {None}
    concluded = {str(c.label) for c in [r.conclusion for r in rb.rules] + [rb.default] if c is not None}
    gone = [c for c in model.classes if str(c) not in seen and _as_float(c) not in seen
            and str(c) not in concluded]
    if not gone:
        return None
    shown = ", ".join(repr(c) if isinstance(c, str) else str(c) for c in gone)
    return (f"the rules never predict {shown}: no row of {path} is of {'that class' if len(gone) == 1 else 'those classes'}, "
            f"so pruning had no row to keep {'its' if len(gone) == 1 else 'their'} rules for; give pruning rows "
            "of every class")

