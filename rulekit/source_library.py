"""Score rows with the library a model was imported from (``verify --source-model FILE``).

``rulekit verify`` checks every backend against the rulekit model; with the model's source file it
also runs the source library itself on the same rows (XGBoost JSON/UBJ and LightGBM text files load
as they are, scikit-learn pickles only with ``allow_pickle``), so differences between the library's
arithmetic and the imported model show too. Rows are given as verify holds them (a table of
user-facing values); labels come back in the model's class order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rulekit.commands.import_model import sniff_format
from rulekit.errors import RulekitError
from rulekit.ir.data import to_matrix
from rulekit.table import Table

LIBRARY_MODULES = {"xgboost": "xgboost", "lightgbm": "lightgbm", "sklearn": "sklearn", "catboost": "catboost"}


@dataclass
class LibraryScores:
    prediction: np.ndarray  # labels (object) or values (float64)
    proba: np.ndarray | None
    scored: np.ndarray  # bool per row: rows the library accepted
    note: str = ""


@dataclass
class SourceLibrary:
    """A foreign model file loaded by its own library."""

    path: Path
    format: str
    estimator: Any
    version: str

    @property
    def name(self) -> str:
        return f"{'scikit-learn' if self.format == 'sklearn' else self.format} {self.version}"


def library_installed(fmt: str) -> bool:
    try:
        __import__(LIBRARY_MODULES[fmt])
    except ImportError:
        return False
    return True


def source_format(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError as err:
        raise RulekitError(f"{path}: cannot read ({err.strerror or err})") from None
    return sniff_format(path, head)


def load(path: Path, obj, *, allow_pickle: bool = False) -> SourceLibrary:
    """The model file at ``path`` in its own library; ``obj`` (the rulekit model) gives the task."""
    fmt = source_format(path)
    module = __import__(LIBRARY_MODULES[fmt])
    try:
        if fmt == "xgboost":
            est = (module.XGBClassifier() if obj.task == "classification" else module.XGBRegressor())
            est.load_model(str(path))
        elif fmt == "lightgbm":
            est = module.Booster(model_file=str(path))
        elif fmt == "catboost":
            est = module.CatBoostClassifier() if obj.task == "classification" else module.CatBoostRegressor()
            with path.open("rb") as fh:
                binary = fh.read(4) == b"CBM1"
            est.load_model(str(path), format="cbm" if binary else "json")
        else:
            if not allow_pickle:
                raise RulekitError(f"{path}: a scikit-learn model is a pickle, which runs code when "
                                   f"loaded; pass --allow-pickle if you trust this file")
            import joblib

            est = joblib.load(path)
    except RulekitError:
        raise
    except Exception as err:  # noqa: BLE001 - a library's own load error, one line
        raise RulekitError(f"{path}: {fmt} cannot load it ({type(err).__name__}: {err})") from None
    return SourceLibrary(path, fmt, est, getattr(module, "__version__", "?"))


def _frame(lib: SourceLibrary, obj, table: Table):
    """The rows as the library takes them: numbers as float64, nominal text as codes (LightGBM,
    XGBoost) or a DataFrame of the user's values (scikit-learn, which fitted the encoding)."""
    if lib.format == "catboost":  # the user's values: CatBoost hashes category text itself
        import pandas as pd

        return pd.DataFrame({f.name: [None if v is None else str(v) for v in table[f.name]]
                             if f.kind == "nominal" else to_matrix(table, [f])[:, 0] for f in obj.features})
    M = to_matrix(table, obj.features)
    if lib.format == "sklearn":
        names = getattr(lib.estimator, "feature_names_in_", None)
        if names is None:
            return M
        import pandas as pd

        return pd.DataFrame({f.name: table[f.name] for f in obj.features})[list(names)]
    for j, f in enumerate(obj.features):
        if f.kind == "nominal" and all(isinstance(v, int) for v in f.domain or ()):
            M[:, j] = [np.nan if v is None else float(v) for v in table[f.name]]
    return M


def _score(lib: SourceLibrary, obj, X):
    est = lib.estimator
    if lib.format == "lightgbm":
        raw = np.asarray(est.predict(X), dtype=np.float64)
        if obj.task == "regression":
            return raw, None
        proba = np.column_stack([1.0 - raw, raw]) if raw.ndim == 1 else raw
        return np.asarray(obj.classes, dtype=object)[proba.argmax(axis=1)], proba
    if obj.task == "regression":
        return np.asarray(est.predict(X), dtype=np.float64), None
    proba = np.asarray(est.predict_proba(X), dtype=np.float64)
    pred = np.asarray(est.predict(X))
    if lib.format == "xgboost":  # XGBoost predicts class indices
        pred = np.asarray(obj.classes, dtype=object)[pred.astype(np.int64)]
    if lib.format == "catboost":  # multiclass labels come as a column
        pred = pred.ravel()
    return pred.astype(object), proba


def score(lib: SourceLibrary, obj, table: Table) -> LibraryScores:
    """The library's labels/values (and probabilities) on every row it accepts. scikit-learn's
    GradientBoosting refuses missing values: then only the rows without any are scored."""
    n = len(next(iter(table.values()))) if table else 0
    X = _frame(lib, obj, table)
    ok = None
    if lib.format == "catboost":  # CatBoost refuses a missing category: those rows are left out
        ok = ~X[[f.name for f in obj.features if f.kind == "nominal"]].isna().any(axis=1).to_numpy()
    if ok is None or ok.all():
        try:
            pred, proba = _score(lib, obj, X)
            return LibraryScores(pred, proba, np.ones(n, dtype=bool))
        except ValueError as err:
            M = to_matrix(table, obj.features)
            ok = ~np.isnan(M).any(axis=1)
            if ok.all():
                raise RulekitError(f"{lib.path}: {lib.name} cannot score the rows ({err})") from None
    sub = X[ok] if isinstance(X, np.ndarray) else X.loc[ok]
    pred, proba = _score(lib, obj, sub)
    full_pred = np.empty(n, dtype=pred.dtype)
    full_pred[ok] = pred
    full_proba = None
    if proba is not None:
        full_proba = np.full((n, proba.shape[1]), np.nan)
        full_proba[ok] = proba
    return LibraryScores(full_pred, full_proba, ok,
                         f"{int((~ok).sum()):,} rows with missing values left out: {lib.name} refuses them")
