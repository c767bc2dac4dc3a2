"""Feature kinds read from data for the learners that fit rule bases directly (RuleInducer,
ScorecardLearner): which columns are nominal, and their domains."""

from __future__ import annotations

from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.ir.data import is_missing_value
from rulekit.ir.model import Feature


def infer_features(X: Any, nominal: Any = "auto") -> list[Feature]:
    """Feature kinds from the data: pandas category/object/string/bool columns (or those named in
    ``nominal``) are nominal with their sorted distinct values (category order) as domain."""
    names, cols = _columns(X)
    out = []
    for name, col in zip(names, cols):
        is_nom = (name in nominal) if not isinstance(nominal, str) else _looks_nominal(col)
        if not is_nom:
            out.append(Feature(name=name))
            continue
        dtype = getattr(col, "dtype", None)
        if dtype is not None and str(dtype) == "category":
            domain = tuple(v.item() if isinstance(v, np.generic) else v for v in col.cat.categories)
        else:
            vals = {v.item() if isinstance(v, np.generic) else v for v in np.asarray(col, dtype=object).tolist()
                    if not is_missing_value(v)}
            try:
                domain = tuple(sorted(vals))
            except TypeError:
                domain = tuple(sorted(vals, key=str))
            if any(isinstance(v, bool) for v in domain):
                domain = tuple(str(v) for v in domain)
        out.append(Feature(name=name, kind="nominal", domain=domain))
    return out


def _columns(X: Any) -> tuple[list[str], list[Any]]:
    if hasattr(X, "columns") and not isinstance(X, np.ndarray):
        return [str(c) for c in X.columns], [X[c] for c in X.columns]
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise RulekitError(f"X must be 2-dimensional, got shape {arr.shape}")
    return [f"x{j}" for j in range(arr.shape[1])], [arr[:, j] for j in range(arr.shape[1])]


def _looks_nominal(col: Any) -> bool:
    dtype = getattr(col, "dtype", None)
    if dtype is not None:
        kind = getattr(dtype, "kind", "O")
        if str(dtype) == "category" or kind in "OUSb":
            if kind == "O":
                return any(not is_missing_value(v) and not isinstance(v, (int, float)) or isinstance(v, bool)
                           for v in np.asarray(col, dtype=object).tolist())
            return True
        return False
    return False
