"""IR prediction vs the source library: a 100-tree random forest scored on 1M rows (issue #2).

Goal: rulekit's vectorized IR evaluator predicts at least half as fast as scikit-learn's own
``predict_proba`` (n_jobs=1), with identical output.
"""

from __future__ import annotations

import time

import numpy as np

from _timing import best_time


def run(quick: bool = False) -> list[dict]:
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    import rulekit

    n_rows = 100_000 if quick else 1_000_000
    X, y = make_classification(20_000, 10, n_informative=6, random_state=0)
    rf = RandomForestClassifier(100, max_depth=10, random_state=0, n_jobs=1).fit(X, y)
    Z = np.random.default_rng(0).normal(size=(n_rows, 10)) * 2
    Z[::50, 3] = np.nan

    t_import, model = best_time(lambda: rulekit.from_sklearn(rf), repeat=1)
    t0 = time.perf_counter()
    model._compiled_trees()
    t_compile = time.perf_counter() - t0
    t_sk, p_sk = best_time(lambda: rf.predict_proba(Z), repeat=2)
    t_rk, p_rk = best_time(lambda: model.predict_proba(Z), repeat=2)
    exact = bool(np.array_equal(p_sk, p_rk))
    name = f"RF 100 trees depth 10, {n_rows:,} rows"
    return [
        {"benchmark": name, "metric": "import + compile", "unit": "s", "rulekit": t_import + t_compile,
         "peer": None, "peer_value": None, "goal": "-"},
        {"benchmark": name, "metric": "predict_proba time", "unit": "s", "rulekit": t_rk,
         "peer": "sklearn predict_proba n_jobs=1", "peer_value": t_sk,
         "goal": "ratio <= 2 (at least half as fast)", "ok": t_rk <= 2 * t_sk},
        {"benchmark": name, "metric": "rows/s", "unit": "rows/s", "rulekit": n_rows / t_rk,
         "peer": "sklearn", "peer_value": n_rows / t_sk, "goal": "-"},
        {"benchmark": name, "metric": "bit-identical probabilities", "unit": "", "rulekit": str(exact),
         "peer": None, "peer_value": None, "goal": "True", "ok": exact},
    ]
