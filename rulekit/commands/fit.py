"""`rulekit fit`: learn a tree or an ensemble from a CSV (or Parquet) file and write the model JSON.

Column kinds: a column is numeric when every non-empty cell parses as a number, otherwise nominal
(its domain: the sorted distinct values). An empty cell is missing. ``--task`` defaults to
classification when the target column is not numeric, or when it holds whole numbers only with at
most 20 distinct values (labels are then those integers); otherwise regression. Rows whose target is
empty are left out (with a note on stderr), and so are columns that look like identifiers or hold
dates (:mod:`rulekit.commands.identifiers`; ``--keep COL`` uses one anyway).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from rulekit import progress
from rulekit.commands.identifiers import leave_out
from rulekit.commands.idle_columns import idle_note
from rulekit.errors import DataError, RulekitError
from rulekit.fileio import check_distinct, check_output_path, report_written, write_atomic
from rulekit.ir.data import is_missing_value
from rulekit.ir import modelfile_training as training
from rulekit.table import CsvColumns, header_hint, read_csv
from rulekit.util import count

MAX_CLASSES_FOR_INTEGER_TARGET = 20


def _is_number(text: str) -> bool:
    """float() syntax in plain ASCII: '1_5' and non-ASCII digits are text, not numbers."""
    if not text.isascii() or "_" in text:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_table(path: Path, na_values: str | None = None) -> dict[str, list[Any]]:
    """Columns of strings with None for missing (CSV), or of Python values (Parquet)."""
    if not path.exists():
        raise RulekitError(f"{path}: no such file")
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            import pandas as pd  # noqa: PLC0415

            frame = pd.read_parquet(path)
        except ImportError as err:
            raise RulekitError(f"{path}: reading Parquet needs pyarrow ({err})") from None
        except Exception as err:  # noqa: BLE001 - any reader failure is the user's file
            raise RulekitError(f"{path}: cannot read Parquet ({err})") from None
        return {str(c): [None if is_missing_value(v) else v for v in frame[c].tolist()] for c in frame.columns}
    cols = read_csv(path, na_values)
    out = CsvColumns((name, [v if v != "" else None for v in values]) for name, values in cols.items())
    out.path, out.header, out.lines = cols.path, cols.header, cols.lines
    return out


def _numeric(values: list[Any]) -> bool:
    present = [v for v in values if v is not None]
    return all((isinstance(v, (int, float)) and not isinstance(v, bool)) or
               (isinstance(v, str) and _is_number(v)) for v in present)


def frame_of(columns: dict[str, list[Any]]):
    """A pandas frame: numeric columns as float64 (NaN missing), the others as text (None missing)."""
    import pandas as pd  # noqa: PLC0415

    data = {}
    for name, values in columns.items():
        if _numeric(values):
            data[name] = np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
        else:
            data[name] = pd.Series([None if v is None else str(v) for v in values], dtype=object)
    return pd.DataFrame(data)


def infer_task(values: list[Any]) -> str:
    """classification for text targets and for whole numbers with few distinct values."""
    present = [v for v in values if v is not None]
    if not _numeric(present):
        return "classification"
    nums = [float(v) for v in present]
    if all(math.isfinite(x) and x == int(x) for x in nums) and len(set(nums)) <= MAX_CLASSES_FOR_INTEGER_TARGET:
        return "classification"
    return "regression"


def _target(values: list[Any], task: str) -> np.ndarray:
    if task == "regression":
        if not _numeric(values):
            raise DataError("regression needs a numeric target column")
        return np.array([float(v) for v in values], dtype=np.float64)
    if _numeric(values):
        nums = [float(v) for v in values]
        if all(math.isfinite(x) and x == int(x) for x in nums):
            return np.array([int(x) for x in nums], dtype=np.int64)
        return np.array(nums, dtype=np.float64)
    return np.array([str(v) for v in values], dtype=object)


def _check_numeric_target(values: list[Any], path: Path, target: str, lines) -> None:
    """A numeric target (and any regression target) must be a finite number on every row."""
    for i, v in enumerate(values):
        try:
            ok = math.isfinite(float(v))
        except (TypeError, ValueError):
            ok = False
        if not ok:
            where = {"file": str(path), "line": lines[i]} if lines else {"file": str(path)}
            raise DataError(f"target {target!r} is {v!r}: a numeric target needs a finite number",
                            **where)


def _split(path: Path, target: str, task: str | None, quiet: bool = False, like=None,
           na_values: str | None = None, keep_columns: tuple[str, ...] = ()):
    """(X, y, task) from a data file; ``like``: the (X, y) of DATA, whose column kinds and classes
    the prune data must follow (a column read as text in one file and numbers in the other would
    be encoded differently and prune wrongly). Without ``like``, identifier columns not in ``keep_columns``
    are left out of X, with a note unless ``quiet``."""
    with progress.phase(f"reading {path}"):
        columns = _read_table(path, na_values)
    if target not in columns:
        raise DataError(f"{path}: no column {target!r}{header_hint(list(columns), target)}")
    y_raw = columns.pop(target)
    if not columns:
        raise DataError(f"{path}: no feature columns besides the target {target!r}")
    lines = getattr(columns, "lines", None)
    keep = [i for i, v in enumerate(y_raw) if v is not None]
    if not keep:
        raise DataError(f"{path}: the target column {target!r} is empty")
    dropped = len(y_raw) - len(keep)
    if dropped:
        if not quiet:
            print(f"rulekit: note: {dropped} row(s) without a {target!r} value left out", file=sys.stderr)
        columns = {k: [v[i] for i in keep] for k, v in columns.items()}
        y_raw = [y_raw[i] for i in keep]
        lines = [lines[i] for i in keep] if lines else None
    task = task or infer_task(y_raw)
    if task == "regression" or _numeric(y_raw):
        _check_numeric_target(y_raw, path, target, lines)
    import pandas as pd  # noqa: PLC0415

    if like is not None:
        return _like(columns, y_raw, like, path, target, lines) + (task,)
    X, said = leave_out(frame_of(columns), keep_columns, path)
    idle = idle_note(X)
    for line in [] if quiet else said + ([idle] if idle else []):
        print(f"rulekit: note: {line}", file=sys.stderr)
    return X, pd.Series(_target(y_raw, task), name=target), task


def _like(columns, y_raw, like, path: Path, target: str, lines):
    """Prune data read with DATA's column kinds and checked against DATA's classes."""
    import pandas as pd  # noqa: PLC0415

    X, y = like
    where = (lambda i: {"file": str(path), "line": lines[i]}) if lines else (lambda i: {"file": str(path)})
    data = {}
    for name in X.columns:
        if name not in columns:
            raise DataError(f"no column {name!r}, which DATA has", file=str(path), line=1 if lines else None)
        values = columns[name]
        if X[name].dtype.kind == "f":
            out = np.empty(len(values))
            for i, v in enumerate(values):
                try:
                    if isinstance(v, str) and not _is_number(v):
                        raise ValueError(v)
                    out[i] = np.nan if v is None else float(v)
                except (TypeError, ValueError):
                    raise DataError(f"column {name!r} holds numbers in DATA; {v!r} is not a number",
                                    **where(i)) from None
            data[name] = out
        else:
            data[name] = pd.Series([None if v is None else str(v) for v in values], dtype=object)
    if y.dtype.kind == "f":
        _check_numeric_target(y_raw, path, target, lines)
        yp = np.array([float(v) for v in y_raw], dtype=np.float64)
    elif y.dtype.kind in "iu":
        yp = np.array([_as_int(v) for v in y_raw], dtype=object)
    else:
        yp = np.array([str(v) for v in y_raw], dtype=object)
    if y.dtype.kind != "f":  # classification: every prune label must be one of DATA's classes
        classes = set(y.tolist())
        for i, v in enumerate(yp.tolist()):
            if v not in classes:
                shown = ", ".join(map(str, sorted(classes, key=str)))
                raise DataError(f"target {target!r} is {y_raw[i]!r}, not a class of DATA ({shown})",
                                **where(i))
        if y.dtype.kind in "iu":
            yp = yp.astype(np.int64)
    return pd.DataFrame(data), pd.Series(yp, name=target)


def _as_int(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    return int(f) if math.isfinite(f) and f == int(f) else v


def _stamp(path: Path) -> tuple[int, str] | None:
    """(byte size, sha256) of the data file, taken before it is read; None when it is not a file
    (the reader then says what is wrong)."""
    if not path.is_file():
        return None
    with progress.phase(f"hashing {path}"):
        return path.stat().st_size, training.file_sha256(path)


def make_estimator(*, algorithm: str, task: str, criterion: str | None, max_depth: int | None,
                   min_samples_leaf: int, prune: str, ensemble: str | None, n_trees: int, seed: int,
                   unseen: str | None = None):
    """The learner for the command-line options (raises RulekitError for impossible combinations).
    ``unseen`` (id3/c45 single trees only): where a value never seen in training goes, ``parent``
    (its own branch with the parent's distribution, the default) or ``missing`` (the missing values'
    branch, which a rules file declares once); None: the learner's default."""
    from rulekit import learners as L  # noqa: PLC0415

    crit = None if criterion is None else criterion.replace("-", "_")
    if crit == "squared_error":
        crit = "mse"
    classification = task == "classification"
    if algorithm in ("id3", "c45") and not classification:
        raise RulekitError(f"{algorithm} learns classification trees; use --algorithm cart for regression")
    if crit is not None:
        allowed = ("gini", "entropy", "gain_ratio") if classification else ("mse", "sdr")
        if crit not in allowed:
            raise RulekitError(f"--criterion {criterion} does not fit a {task} task "
                               f"(use {', '.join(a.replace('_', '-') for a in allowed)})")
    if unseen is not None:
        if unseen not in ("parent", "missing"):
            raise RulekitError(f"--unseen {unseen}: use parent or missing")
        if algorithm not in ("id3", "c45") or ensemble is not None:
            raise RulekitError(f"--unseen is an option of single id3 and c45 trees, not of "
                               f"{algorithm if ensemble is None else ensemble + ' ensembles'}")
    if min_samples_leaf < 1:
        raise RulekitError("--min-samples-leaf must be at least 1")
    if max_depth is not None and max_depth < 0:
        raise RulekitError("--max-depth must be at least 0")
    if ensemble is not None:
        if prune != "none":
            raise RulekitError("ensembles are not pruned: drop --prune")
        if n_trees < 1:
            raise RulekitError("--n-trees must be at least 1")
        kind = {"bagging": "Bagging", "random-forest": "RandomForest", "extra-trees": "ExtraTrees"}[ensemble]
        cls = getattr(L, kind + ("Classifier" if classification else "Regressor"))
        return cls(n_estimators=n_trees, algorithm=algorithm, criterion=crit, max_depth=max_depth,
                   min_samples_leaf=min_samples_leaf, random_state=seed)
    if prune == "pessimistic" and not classification:
        raise RulekitError("--prune pessimistic needs a classification task")
    params: dict[str, Any] = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                                  prune=None if prune == "none" else prune, random_state=seed)
    if crit is not None:
        params["criterion"] = crit
    if unseen is not None:
        params["unseen"] = unseen
    if algorithm == "id3":
        return L.ID3Classifier(**params)
    if algorithm == "c45":
        return L.C45Classifier(**params)
    return (L.CARTClassifier if classification else L.CARTRegressor)(**params)


def run(*, data: Path, target: str, algorithm: str, task: str | None, criterion: str | None,
        max_depth: int | None, min_samples_leaf: int, prune: str, prune_data: Path | None,
        ensemble: str | None, n_trees: int, seed: int, output: Path, quiet: bool,
        na_values: str | None = None, unseen: str | None = None, keep: tuple[str, ...] = ()) -> int:
    from rulekit.ir.modelfile import dumps_model  # noqa: PLC0415

    check_output_path(output)
    check_distinct(output, data=data, prune_data=prune_data)
    stamp = _stamp(data)
    X, y, task = _split(data, target, task, quiet, na_values=na_values, keep_columns=keep)
    est = make_estimator(algorithm=algorithm, task=task, criterion=criterion, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf, prune=prune, ensemble=ensemble,
                         n_trees=n_trees, seed=seed, unseen=unseen)
    fit_kw: dict[str, Any] = {}
    if prune_data is not None:
        if prune not in ("reduced-error", "cost-complexity"):
            raise RulekitError("--prune-data needs --prune reduced-error or cost-complexity")
        Xp, yp, _ = _split(prune_data, target, task, quiet, like=(X, y), na_values=na_values)
        fit_kw = {"X_prune": Xp, "y_prune": yp}
    try:
        if ensemble is not None:
            n = est.n_estimators
            with progress.bar(f"growing {n:,} {algorithm} trees", total=n) as bar:
                est.fit(X, y, progress=lambda done, total: bar.update(done), **fit_kw)
        else:
            with progress.phase(f"learning a {algorithm} tree on {len(X):,} rows"):
                est.fit(X, y, **fit_kw)
    except RulekitError as err:
        if err.file is None and str(data) not in str(err):
            raise type(err)(err.message, file=str(data)) from None
        raise
    except (ValueError, TypeError) as err:
        raise RulekitError(f"{data}: {err}") from None
    with progress.phase(f"writing {output}"):
        model = est.model_
        if stamp is not None:  # where the rows came from, for `rules --prune-data` (docs/rules.md)
            model.source[training.KEY] = training.training_record(
                data, model_path=output, target=target, rows=len(X), na_values=na_values,
                sha256=stamp[1], size=stamp[0])
        write_atomic(output, dumps_model(model))
    if not quiet:
        with progress.phase("scoring the training data"):
            score = est.score(X, y)
        what = "accuracy" if task == "classification" else "R^2"
        shape = count(len(model.trees), "tree") if len(model.trees) > 1 else \
            f"depth {est.get_depth()}, {count(est.get_n_leaves(), 'leaf', 'leaves')}"
        report_written(output, f"{type(est).__name__}: {task}, {shape}, training {what} {score:.4f}")
    return 0

