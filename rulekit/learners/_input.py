"""Training data in, float64 code matrix and feature schema out (the same encoding ``Model`` reads).

Column kinds when ``nominal_features`` is ``"auto"``: pandas ``category``/``object``/``string``/``bool``
columns are nominal, numeric ones numeric; in a numpy object/str array a column is numeric when every
non-missing cell is a real number and nominal otherwise. A nominal column's domain is its category
order (pandas ``category``) or its sorted distinct values; codes index that domain, NaN is missing.
Training codes come from :func:`rulekit.ir.data.encode_nominal`, so prediction encodes identically.
An *ordered* pandas ``category`` is an ordinal feature: still nominal in the IR (codes in category
order), but CART splits it at a point of that order (``x in {a_1..a_k}``).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.ir.data import is_missing_value, encode_nominal
from rulekit.ir.model import Feature


class LearnerInputError(RulekitError, ValueError):
    """Bad training or prediction data (a ``ValueError`` too, as scikit-learn expects)."""


def is_frame(X: Any) -> bool:
    return hasattr(X, "columns") and hasattr(X, "iloc") and not isinstance(X, np.ndarray)


def columns_of(X: Any) -> tuple[list[Any], list[str] | None, list[Any] | None]:
    """(columns by position, column names if a frame with string names, pandas dtypes if a frame)."""
    if is_frame(X):
        cols = [X.iloc[:, j] for j in range(X.shape[1])]
        names = [str(c) for c in X.columns]
        return cols, names, [c.dtype for c in cols]
    arr = np.asarray(X)
    return [arr[:, j] for j in range(arr.shape[1])], None, None


def _pandas_kind(dtype: Any) -> str:
    import pandas as pd  # noqa: PLC0415

    if isinstance(dtype, pd.CategoricalDtype):
        return "category"
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_string_dtype(dtype) or dtype == object:
        return "object"
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    return "object"


def _scalar(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _object_kind(values: Sequence[Any]) -> str:
    """``numeric`` when every present value is a real number, else ``nominal``; odd objects raise."""
    numeric = True
    for v in values:
        if is_missing_value(v):
            continue
        if isinstance(v, (bool, np.bool_)) or isinstance(v, str):
            numeric = False
        elif isinstance(v, numbers.Real):
            continue
        else:
            raise TypeError(f"argument must be a string or a real number, not {type(v).__name__!r}")
    return "numeric" if numeric else "nominal"


def domain_of(values: Sequence[Any], categories: Sequence[Any] | None = None) -> tuple[str | int, ...]:
    """The domain of a nominal column: its categories, or its sorted distinct present values.

    Integers stay integers; everything else (bools, floats, mixed) is spelled as text.
    """
    if categories is not None:
        raw = [_scalar(c) for c in categories]
    else:
        raw = list(dict.fromkeys(_scalar(v) for v in values if not is_missing_value(v)))
    if raw and all(isinstance(v, int) and not isinstance(v, bool) for v in raw):
        return tuple(sorted(raw)) if categories is None else tuple(raw)
    text = [v if isinstance(v, str) else str(v) for v in raw]
    dom = list(dict.fromkeys(text))
    return tuple(sorted(dom)) if categories is None else tuple(dom)


def _to_float(col: Any, name: str) -> np.ndarray:
    arr = np.asarray(col)
    if arr.dtype.kind in "fiub":
        return arr.astype(np.float64)
    out = np.empty(arr.shape[0])
    for i, v in enumerate(arr.tolist()):
        if is_missing_value(v):
            out[i] = np.nan
            continue
        if isinstance(v, str):
            raise LearnerInputError(f"feature {name!r}: row {i + 1}: {v!r} is not a number")
        try:
            out[i] = float(v)
        except (TypeError, ValueError):
            raise TypeError(f"argument must be a string or a real number, not {type(v).__name__!r}") \
                from None
    return out


def _wanted_nominal(spec: Any, names: list[str], n: int) -> list[bool] | None:
    """Columns the user declares nominal (indices, names or a boolean mask), or None: numeric columns
    listed there become nominal; text and categorical columns are nominal anyway."""
    if spec is None or (isinstance(spec, str) and spec == "auto"):
        return None
    if isinstance(spec, str):
        spec = [spec]
    items = list(spec)
    if len(items) == n and all(isinstance(v, (bool, np.bool_)) for v in items):
        return [bool(v) for v in items]
    mask = [False] * n
    for v in items:
        if isinstance(v, str):
            if v not in names:
                raise LearnerInputError(f"nominal_features names {v!r}, which is not a column")
            mask[names.index(v)] = True
        else:
            j = int(v)
            if not -n <= j < n:
                raise LearnerInputError(f"nominal_features index {j} out of range for {n} columns")
            mask[j] = True
    return mask


def build_schema(X: Any, nominal_features: Any = "auto") -> tuple[np.ndarray, list[Feature]]:
    """Training matrix (float64, nominal as codes, NaN missing) and the ``Feature`` list for ``X``."""
    cols, names, dtypes = columns_of(X)
    n_cols = len(cols)
    names = names or [f"x{j}" for j in range(n_cols)]
    wanted = _wanted_nominal(nominal_features, names, n_cols)
    n_rows = len(cols[0]) if cols else 0
    M = np.empty((n_rows, n_cols))
    feats: list[Feature] = []
    for j, col in enumerate(cols):
        cats = None
        if dtypes is not None:
            pk = _pandas_kind(dtypes[j])
            if pk == "category":
                cats = list(dtypes[j].categories)
                kind = "nominal"
            else:
                kind = "numeric" if pk == "numeric" else "nominal"
            values = col.to_numpy()
        else:
            values = col
            kind = "numeric" if values.dtype.kind in "fiu" else (
                "nominal" if values.dtype.kind in "bUS" else _object_kind(values.tolist()))
        if wanted is not None and wanted[j]:
            kind = "nominal"
        if kind == "nominal":
            dom = domain_of(values.tolist() if hasattr(values, "tolist") else list(values), cats)
            if not dom:
                dom = ("",)
            feats.append(Feature(name=names[j], kind="nominal", domain=dom))
            M[:, j] = encode_nominal(np.asarray(values, dtype=object) if cats is not None else values, dom)
        else:
            feats.append(Feature(name=names[j]))
            M[:, j] = _to_float(values, names[j])
    return M, feats


def ordinal_columns(X: Any) -> list[bool]:
    """Which columns are ordered pandas categoricals (ordinal features: CART splits them by a
    threshold in category order instead of by an arbitrary subset)."""
    if not is_frame(X):
        return [False] * np.asarray(X).shape[1]
    import pandas as pd  # noqa: PLC0415

    return [isinstance(X.iloc[:, j].dtype, pd.CategoricalDtype) and bool(X.iloc[:, j].dtype.ordered)
            for j in range(X.shape[1])]


def encode(X: Any, features: Sequence[Feature]) -> np.ndarray:
    """``X`` (by position) as the float64 matrix for a fitted schema: unseen categories code -1."""
    cols, _, _ = columns_of(X)
    if len(cols) != len(features):
        raise LearnerInputError(f"X has {len(cols)} features, expected {len(features)}")
    n_rows = len(cols[0]) if cols else 0
    M = np.empty((n_rows, len(features)))
    for j, (f, col) in enumerate(zip(features, cols)):
        values = col.to_numpy() if hasattr(col, "to_numpy") else col
        if f.kind == "nominal":
            M[:, j] = encode_nominal(values, f.domain or ())
        else:
            M[:, j] = _to_float(values, f.name)
    return M
