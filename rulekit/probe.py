"""Rows that find disagreements random data never finds: values exactly at every threshold, at
their float32 and float64 neighbours, and missing values. Used by the tests and by ``rulekit verify``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rulekit.ir.model import Model


def threshold_values(t: float) -> list[float]:
    """``t``, its float64 neighbours, the float32 nearest ``t`` and that float32's neighbours."""
    out = [t]
    if np.isfinite(t):
        out += [float(np.nextafter(t, np.inf)), float(np.nextafter(t, -np.inf))]
        with np.errstate(over="ignore"):  # float32 overflow: the largest floats step to inf
            f = np.float32(t)
            if np.isfinite(f):
                out += [float(f), float(np.nextafter(f, np.float32(np.inf))),
                        float(np.nextafter(f, np.float32(-np.inf)))]
    return [v for v in dict.fromkeys(out) if np.isfinite(v)]


def model_thresholds(model: Model) -> list[tuple[int, float]]:
    """(feature index, threshold) of every numeric split in the model, deduplicated."""
    seen: dict[tuple[int, float], None] = {}
    for tree in model.trees:
        for _, a in tree.nodes(data=True):
            if a["kind"] == "numeric":
                seen[(a["feature"], a["threshold"])] = None
    return list(seen)


def boundary_values(thresholds: Iterable[tuple[int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """(feature index, value) arrays: :func:`threshold_values` of every threshold, in order,
    computed for all thresholds at once (a big forest has tens of thousands)."""
    pairs = list(thresholds)
    feats = np.asarray([f for f, _ in pairs], dtype=np.int64)
    ts = np.asarray([t for _, t in pairs], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f32 = ts.astype(np.float32)
        up32 = np.nextafter(f32, np.float32(np.inf))
        down32 = np.nextafter(f32, np.float32(-np.inf))
    cand = np.column_stack([ts, np.nextafter(ts, np.inf), np.nextafter(ts, -np.inf),
                            f32.astype(np.float64), up32.astype(np.float64), down32.astype(np.float64)])
    added = np.ones(cand.shape, dtype=bool)
    added[~np.isfinite(ts), 1:] = False  # as in threshold_values: neighbours of finite values only
    added[~np.isfinite(f32), 3:] = False
    keep = added & np.isfinite(cand)
    for j in range(1, cand.shape[1]):  # drop repeats of an earlier value of the same threshold
        for i in range(j):
            keep[:, j] &= ~(added[:, i] & (cand[:, j] == cand[:, i]))
    return np.repeat(feats, keep.sum(axis=1)), cand[keep]


def probe_matrix(base: np.ndarray, thresholds: Iterable[tuple[int, float]], *, n_missing: int = 200,
                 max_rows: int = 50_000, seed: int = 0) -> np.ndarray:
    """Rows derived from ``base`` (a float64 matrix of real rows): for each threshold one row per
    boundary value with that feature set to it, plus rows with random cells set to NaN."""
    rng = np.random.default_rng(seed)
    base = np.asarray(base, dtype=np.float64)
    feats, vals = boundary_values(thresholds)
    n = len(vals)
    rows = base[rng.integers(len(base), size=n)] if n else np.empty((0, base.shape[1]))
    rows[np.arange(n), feats] = vals
    if n > max_rows:
        rows = rows[np.sort(rng.choice(n, size=max_rows, replace=False))]
    missing = []
    for _ in range(n_missing):
        r = base[rng.integers(len(base))].copy()
        k = rng.integers(1, max(2, base.shape[1] // 2) + 1)
        r[rng.choice(base.shape[1], size=min(k, base.shape[1]), replace=False)] = np.nan
        missing.append(r)
    missing.append(np.full(base.shape[1], np.nan))
    return np.vstack([base, rows, np.asarray(missing)])


def probe_rows(model: Model, base: np.ndarray, **kwargs) -> np.ndarray:
    """``base`` plus threshold and missing-value rows for every numeric split of ``model``."""
    return probe_matrix(base, model_thresholds(model), **kwargs)


def rule_thresholds(rb) -> list[tuple[int, float]]:
    """(feature index, value) of every numeric comparison in a rule base's conditions."""
    index = {f.name: j for j, f in enumerate(rb.features)}
    numeric = {f.name for f in rb.features if f.kind == "numeric"}
    seen: dict[tuple[int, float], None] = {}
    for rule in rb.rules:
        stack = [rule.condition]
        while stack:
            c = stack.pop()
            kind = c.kind
            if kind in ("and", "or"):
                stack.extend(c.items)
            elif kind == "not":
                stack.append(c.item)
            elif kind == "compare" and c.feature in numeric and isinstance(c.value, (int, float)) \
                    and not isinstance(c.value, bool):
                seen[(index[c.feature], float(c.value))] = None
    return list(seen)


def source_thresholds(obj) -> list[tuple[int, float]]:
    """Thresholds of a Model or a RuleBase."""
    return model_thresholds(obj) if isinstance(obj, Model) else rule_thresholds(obj)
