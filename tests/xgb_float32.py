"""XGBoost boosters of each objective, imported with float32 arithmetic, with probe rows and
XGBoost's own predictions on them: the shared cases of the float32-sum tests."""

from __future__ import annotations

import numpy as np

from rulekit.importers.xgboost import from_xgboost
from rulekit.probe import probe_rows

OBJECTIVES = {"binary": ("binary:logistic", {}), "multi": ("multi:softprob", {"num_class": 3}),
              "reg": ("reg:squarederror", {})}
SCALES = [1.0, 3.0, 0.01, 100.0, 1.0]


def data(seed: int, n_rows: int, n_features: int = 4):
    """(X with 8% NaN, {objective kind: labels}) on features of very different scales."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features)) * SCALES[:n_features]
    X[rng.random(X.shape) < 0.08] = np.nan
    a, b = np.nan_to_num(X[:, 0]), np.nan_to_num(X[:, 1])
    return X, {"binary": (a + b * b / 9 > 0.7).astype(int), "multi": np.abs(a * 2).astype(int) % 3,
               "reg": a * 300.0 + 1000.0 * b ** 2 + 1e4}


def cases(*, seed: int, n_rows: int, rounds: int, depth: int = 4, probe: int, n_missing: int,
          n_features: int = 4, reg_parallel_trees: int = 1) -> dict:
    """{kind: (booster, model, probe rows, XGBoost's predictions (n, k) as float64)}."""
    import xgboost as xgb  # noqa: PLC0415 - only where the tests already imported it or skipped

    X, ys = data(seed, n_rows, n_features)
    out = {}
    for kind, (objective, extra) in OBJECTIVES.items():
        if kind == "reg" and reg_parallel_trees > 1:
            extra = {"num_parallel_tree": reg_parallel_trees}
        booster = xgb.train({"objective": objective, "max_depth": depth, "eta": 0.3, "nthread": 1, **extra},
                            xgb.DMatrix(X, label=ys[kind]), rounds)
        model = from_xgboost(booster, arithmetic="float32")
        rows = probe_rows(model, X[:probe], n_missing=n_missing)
        want = booster.predict(xgb.DMatrix(rows)).reshape(len(rows), -1).astype(np.float64)
        out[kind] = (booster, model, rows, want)
    return out
