"""One fitted scikit-learn transformer applied to column states (:mod:`pipeline_columns`).

Scalers are mirrored operation by operation as scikit-learn 1.x writes them (dense: ``X -= mean;
X /= scale``; sparse input: ``X *= 1 / scale``; MinMaxScaler ``X *= scale; X += min``, then clip);
the folded model is tested against the pipeline itself on threshold rows, so a drift shows.
Encoders are not mirrored: they are *asked*, one probe row per category, plus a missing and an
unknown value, so handle_unknown, infrequent categories, drop and encoded_missing_value are
whatever the encoder does. Anything else is refused, naming the step.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.importers.pipeline_columns import Arith, Coded, Column, Fn, Num
from rulekit.importers.sklearn_categories import domain_value as _domain_value

UNSEEN_TEXT = "\x00rulekit-unseen"
SCALERS = ("StandardScaler", "MinMaxScaler", "RobustScaler", "MaxAbsScaler")
ENCODERS = ("OneHotEncoder", "OrdinalEncoder")


def refuse(step: str, why: str) -> RulekitError:
    return RulekitError(f"pipeline step {step!r}: {why}; it cannot be folded into the model exactly")


def is_identity(t: Any) -> bool:
    """'passthrough', None or FunctionTransformer() of nothing."""
    if t is None or (isinstance(t, str) and t == "passthrough"):
        return True
    return type(t).__name__ == "FunctionTransformer" and getattr(t, "func", 0) is None


def apply_step(t: Any, step: str, cols: list[Column], sparse: bool,
               names: list[str]) -> tuple[list[Column], bool]:
    """The columns after transformer ``t`` (named ``step``); ``sparse``: its input is a sparse matrix;
    ``names``: the raw input columns' names (for messages)."""
    if is_identity(t):
        return cols, sparse
    if isinstance(t, str) and t == "drop":
        return [], sparse
    name = type(t).__name__
    if not type(t).__module__.startswith("sklearn."):
        raise refuse(step, f"{name} is not a scikit-learn transformer rulekit knows")
    n_in = getattr(t, "n_features_in_", None)
    if n_in is None:
        raise refuse(step, f"{name} is not fitted")
    if n_in != len(cols):
        raise refuse(step, f"{name} reads {n_in} columns, the pipeline gives it {len(cols)}")
    if name == "SimpleImputer":
        return _imputer(t, step, cols), sparse
    if name in SCALERS:
        fns = _scaler_fns(t, name, step, sparse)
        return [_arith(c, Arith(step, fn)) for c, fn in zip(cols, fns)], sparse
    if name in ENCODERS:
        return _encoder(t, name, step, cols, names), bool(name == "OneHotEncoder" and t.sparse_output)
    if name == "FunctionTransformer":
        raise refuse(step, "a FunctionTransformer with a function (only FunctionTransformer() of "
                           "nothing folds)")
    raise refuse(step, f"{name} is not among the foldable transformers (SimpleImputer, "
                       f"{', '.join(SCALERS)}, {', '.join(ENCODERS)}, FunctionTransformer(), "
                       f"passthrough, drop)")


def _arith(c: Column, a: Arith) -> Column:
    if isinstance(c, Coded):
        return c.mapped(a.fn, a.step)
    return Num(c.col, c.fns + (a,))


# --- imputation -----------------------------------------------------------------------------------


def _is_nan(v: Any) -> bool:
    return isinstance(v, (float, np.floating)) and math.isnan(v)


def _imputer(t: Any, step: str, cols: list[Column]) -> list[Column]:
    if not _is_nan(t.missing_values):
        raise refuse(step, f"SimpleImputer(missing_values={t.missing_values!r}) (only NaN, which "
                           f"is what rulekit reads as missing)")
    out: list[Column] = []
    for c, fill in zip(cols, t.statistics_):
        fill = fill.item() if isinstance(fill, np.generic) else fill
        if fill is None or _is_nan(fill):
            raise refuse(step, "a column that was all missing in training (SimpleImputer drops it)")
        number = float(fill) if isinstance(fill, (int, float)) and not isinstance(fill, bool) else None
        if isinstance(c, Coded) and number is None:
            raise refuse(step, f"text fill value {fill!r} after an encoder")

        def fn(x: np.ndarray, number=number) -> np.ndarray:
            return np.where(np.isnan(x), np.nan if number is None else number, x)

        out.append(_arith(c, Arith(step, fn, fill=fill)))
    if t.add_indicator:  # 1.0 where the imputer's input is missing, after the imputed columns
        for j in t.indicator_.features_:
            out.append(_arith(cols[int(j)], Arith(f"{step} (missing indicator)", _is_missing_fn,
                                                  indicator=True)))
    return out


def _is_missing_fn(x: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x), 1.0, 0.0)


# --- scalers --------------------------------------------------------------------------------------


def _positive(values: Any, what: str, step: str) -> np.ndarray:
    v = np.asarray(values, np.float64)
    if not (np.isfinite(v).all() and (v > 0).all()):
        raise refuse(step, f"{what} must be finite and positive, got {v.tolist()!r}")
    return v


def _finite(values: Any, what: str, step: str) -> np.ndarray:
    v = np.asarray(values, np.float64)
    if not np.isfinite(v).all():
        raise refuse(step, f"{what} must be finite, got {v.tolist()!r}")
    return v


def _scaler_fns(t: Any, name: str, step: str, sparse: bool) -> list[Fn]:
    """One function per column, the arithmetic scikit-learn's transform performs on it."""
    n = t.n_features_in_
    if name in ("StandardScaler", "RobustScaler"):
        centre_on = t.with_mean if name == "StandardScaler" else t.with_centering
        scale_on = t.with_std if name == "StandardScaler" else t.with_scaling
        centre = (_finite(t.mean_ if name == "StandardScaler" else t.center_, "the centre", step)
                  if centre_on else None)
        scale = _positive(t.scale_, "scale_", step) if scale_on and t.scale_ is not None else None
        if sparse and centre is not None:
            raise refuse(step, f"{name} centring a sparse matrix (scikit-learn refuses it too)")
        if sparse:
            inv = None if scale is None else 1 / scale

            def make(j: int) -> Fn:
                return lambda x: x if inv is None else x * inv[j]
        else:
            def make(j: int) -> Fn:
                def fn(x: np.ndarray) -> np.ndarray:
                    if centre is not None:
                        x = x - centre[j]
                    if scale is not None:
                        x = x / scale[j]
                    return x
                return fn
        return [make(j) for j in range(n)]
    if name == "MinMaxScaler":
        if sparse:
            raise refuse(step, "MinMaxScaler on a sparse matrix")
        scale = _positive(t.scale_, "scale_", step)
        low = _finite(t.min_, "min_", step)
        lo, hi = (float(v) for v in t.feature_range)
        clip = bool(t.clip)

        def make(j: int) -> Fn:
            def fn(x: np.ndarray) -> np.ndarray:
                x = x * scale[j]
                x = x + low[j]
                return np.clip(x, lo, hi) if clip else x
            return fn
        return [make(j) for j in range(n)]
    # MaxAbsScaler
    scale = _positive(t.scale_, "scale_", step)
    clip = bool(getattr(t, "clip", False))
    inv = 1.0 / scale

    def make(j: int) -> Fn:
        def fn(x: np.ndarray) -> np.ndarray:
            x = x * inv[j] if sparse else x / scale[j]
            return np.clip(x, -1.0, 1.0) if clip else x
        return fn
    return [make(j) for j in range(n)]


# --- encoders -------------------------------------------------------------------------------------


def _categories(t: Any, i: int, step: str, feature: str) -> tuple[list, tuple]:
    """(non-missing categories in the encoder's order, their rulekit domain values)."""
    cats = [c.item() if isinstance(c, np.generic) else c for c in t.categories_[i]]
    if any(c is None for c in cats):
        raise refuse(step, f"column {feature!r} has None as a category (rulekit reads None as "
                           f"missing; use NaN)")
    cats = [c for c in cats if not _is_nan(c)]
    if any(isinstance(c, str) and c == "" for c in cats):
        raise refuse(step, f"column {feature!r} has the empty text as a category (rulekit reads an "
                           f"empty cell as missing)")
    try:
        dom = tuple(_domain_value(c, feature) for c in cats)
    except RulekitError as err:
        raise refuse(step, err.message) from None
    if len(set(map(repr, dom))) != len(dom):
        raise refuse(step, f"column {feature!r}: categories {cats!r} collide as rulekit values")
    return cats, dom


def _numeric_cats(t: Any, k: int) -> bool:
    return np.asarray(t.categories_[k]).dtype.kind in "biuf"


def _probe(t: Any, i: int, values: list, lo: int, hi: int) -> np.ndarray | None:
    """Output columns ``lo:hi`` of encoder ``t`` on rows whose input column ``i`` holds ``values``
    (the other columns a known category); None where the encoder refuses them."""
    n = len(values)
    columns = []
    for k in range(t.n_features_in_):
        vals = values if k == i else [t.categories_[k][0]] * n
        columns.append(np.asarray(vals, np.float64 if _numeric_cats(t, k) else object))
    names = getattr(t, "feature_names_in_", None)
    if names is not None:
        import pandas as pd

        X: Any = pd.DataFrame({str(nm): col for nm, col in zip(names, columns)})
    elif all(col.dtype == np.float64 for col in columns):
        X = np.column_stack(columns)
    else:
        X = np.empty((n, len(columns)), object)
        for k, col in enumerate(columns):
            X[:, k] = col
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = t.transform(X)
    except ValueError:
        return None
    out = out.toarray() if hasattr(out, "toarray") else np.asarray(out)
    return np.asarray(out[:, lo:hi], np.float64)


def _encoder(t: Any, name: str, step: str, cols: list[Column], names: list[str]) -> list[Column]:
    if name == "OneHotEncoder":
        widths = list(getattr(t, "_n_features_outs", []))
        if len(widths) != t.n_features_in_:
            raise refuse(step, "cannot tell which output columns come from which input column "
                               "(this scikit-learn version is not supported)")
    else:
        widths = [1] * t.n_features_in_
    out: list[Column] = []
    offset = 0
    for i, (c, width) in enumerate(zip(cols, widths)):
        lo, hi = offset, offset + width
        offset = hi
        if not isinstance(c, Num) or not c.only_imputed:
            raise refuse(step, f"{name} of an already transformed column ({names[c.col]!r})")
        feature = names[c.col]
        cats, dom = _categories(t, i, step, feature)
        known = _probe(t, i, cats, lo, hi) if cats else np.zeros((0, width))
        if known is None:
            raise refuse(step, f"{name} refuses its own categories (input {i})")
        fill = c.raw_fill
        missing = _probe(t, i, [np.nan if fill is None else fill], lo, hi)
        numeric = _numeric_cats(t, i)
        sentinel = (max((float(v) for v in cats), default=0.0) + 0.5) if numeric else UNSEEN_TEXT
        unknown = _probe(t, i, [sentinel], lo, hi)
        for j in range(width):
            out.append(Coded(col=c.col, domain=dom, known=tuple(known[:, j].tolist()),
                             unknown=None if unknown is None else float(unknown[0, j]),
                             missing=None if missing is None else float(missing[0, j]),
                             encoder=step, steps=tuple(a.step for a in c.fns) + (step,)))
    return out
