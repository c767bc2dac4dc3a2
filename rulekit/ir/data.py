"""Turn user data (numpy, pandas, mappings, CSV) into the float64 matrix every evaluator reads.

Numeric features arrive as float64 with NaN for missing. Nominal features are encoded as the index
of the value in the feature's ``domain`` (as a float), ``-1`` for a value outside the domain and NaN
for missing. A nominal feature whose domain is all integers also accepts numbers, truncated toward
zero like a C cast (LightGBM's rule); anything that is not a whole number in range counts as unseen.
With ``Feature.match == "exact"`` a number must equal a domain value (no truncation).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rulekit.errors import DataError

UNSEEN = -1.0


def is_missing_value(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    if isinstance(v, str) and v == "":
        return True
    try:
        import pandas as pd  # noqa: PLC0415

        return v is pd.NA or v is pd.NaT
    except ImportError:
        return False


def _int_domain(domain: Sequence[Any]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in domain)


def encode_nominal(values: Any, domain: Sequence[Any], *, exact: bool = False) -> np.ndarray:
    """Codes (as float64) of ``values`` in ``domain``: index, -1 for unseen, NaN for missing.

    ``exact``: numbers are not truncated for an integer domain (1.5 is unseen, not 1)."""
    arr = np.asarray(values)
    n = arr.shape[0]
    out = np.full(n, UNSEEN)
    if _int_domain(domain) and arr.dtype.kind in "fiub":
        x = arr.astype(np.float64)
        miss = np.isnan(x)
        with np.errstate(invalid="ignore"):
            t = np.trunc(x)
        ok = ~miss & np.isfinite(t) & (np.abs(t) < 2**62)
        if exact:
            ok &= t == x
        if len(domain):
            dom = np.asarray(domain, dtype=np.int64)
            order = np.argsort(dom)
            sorted_dom = dom[order]
            ti = t[ok].astype(np.int64)
            pos = np.searchsorted(sorted_dom, ti).clip(0, len(dom) - 1)
            hit = sorted_dom[pos] == ti
            codes = np.where(hit, order[pos], -1).astype(np.float64)
            out[ok] = codes
        out[miss] = np.nan
        return out
    lookup_s: dict[Any, int] = {}
    for i, v in enumerate(domain):
        lookup_s.setdefault(v, i)
        lookup_s.setdefault(str(v), i)
    int_dom = _int_domain(domain)
    for i, v in enumerate(arr.tolist()):
        if is_missing_value(v):
            out[i] = np.nan
            continue
        code = lookup_s.get(v)
        if code is None and not isinstance(v, str):
            code = lookup_s.get(str(v))
        if code is None and int_dom:
            try:
                fv = float(v)
                if math.isfinite(fv) and (not exact or fv.is_integer()):
                    code = lookup_s.get(int(math.trunc(fv)))
            except (TypeError, ValueError):
                code = None
        out[i] = UNSEEN if code is None else code
    return out


def _numeric_column(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind in "fiub":
        return arr.astype(np.float64)
    out = np.empty(arr.shape[0])
    for i, v in enumerate(arr.tolist()):
        if is_missing_value(v):
            out[i] = np.nan
            continue
        try:
            if type(v) is str and (not v.isascii() or "_" in v):
                raise ValueError  # float() reads '1_5' as 15 and non-ASCII digits: never silently
            out[i] = float(v)
        except (TypeError, ValueError):
            raise DataError(f"feature {name!r}: row {i + 1}: {v!r} is not a number") from None
    return out


def to_matrix(X: Any, features: Sequence[Any]) -> np.ndarray:
    """The (n_rows, n_features) float64 matrix for ``features`` (a model's ``Feature`` list)."""
    names = [f.name for f in features]
    columns = _columns(X, names)
    n_rows = len(columns[0]) if columns else 0
    M = np.empty((n_rows, len(features)), dtype=np.float64)
    for j, (feat, col) in enumerate(zip(features, columns)):
        if feat.kind == "nominal":
            M[:, j] = encode_nominal(col, feat.domain or (),
                                     exact=getattr(feat, "match", None) == "exact")
        else:
            M[:, j] = _numeric_column(col, feat.name)
    return M


def _columns(X: Any, names: Sequence[str]) -> list[Any]:
    """Columns of ``X`` in ``names`` order: by name for frames and mappings, by position for arrays."""
    if hasattr(X, "columns") and hasattr(X, "__getitem__") and not isinstance(X, np.ndarray):
        cols = [str(c) for c in X.columns]
        missing = [n for n in names if n not in cols]
        if missing:
            if len(cols) == len(names) and all(isinstance(c, int) for c in X.columns):
                return [X.iloc[:, j].to_numpy() for j in range(len(names))]
            raise DataError(f"data has no column {missing[0]!r} (model features: {', '.join(names)})")
        lookup = {str(c): c for c in X.columns}
        return [X[lookup[n]].to_numpy() for n in names]
    if isinstance(X, Mapping):
        missing = [n for n in names if n not in X]
        if missing:
            raise DataError(f"data has no column {missing[0]!r}")
        return [np.asarray(X[n]) for n in names]
    arr = np.asarray(X)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise DataError(f"data must be 2-dimensional, got shape {arr.shape}")
    if arr.shape[1] != len(names):
        raise DataError(f"data has {arr.shape[1]} columns, the model has {len(names)} features")
    return [arr[:, j] for j in range(arr.shape[1])]


def read_csv(path: str | Path) -> dict[str, list[str]]:
    """Read a CSV with a header row into columns of strings (empty cell = missing)."""
    p = Path(path)
    try:
        with p.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            try:
                header = next(reader)
            except StopIteration:
                raise DataError("empty CSV file (no header row)", file=str(p)) from None
            cols: list[list[str]] = [[] for _ in header]
            for lineno, row in enumerate(reader, start=2):
                if not row:
                    continue
                if len(row) != len(header):
                    raise DataError(f"{len(row)} fields, the header has {len(header)}",
                                    file=str(p), line=lineno)
                for c, v in zip(cols, row):
                    c.append(v)
    except OSError as err:
        raise DataError(f"cannot read {p}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise DataError(f"not UTF-8 text ({err.reason})", file=str(p)) from None
    except csv.Error as err:
        raise DataError(f"malformed CSV ({err})", file=str(p)) from None
    return dict(zip(header, cols))
