"""`rulekit diff` of two 100-tree forests on 100,000 rows (issue 18).

Goal: under 2 s, for the models and for their rule bases. The reference is the time to score both
sides separately (``predict_proba`` of each side); the regions part is skipped for forests (their
overlay has astronomically many cells: up to 10^432 here) and the report says so.

Measured 2026-11-24 (2 cores shared, load average 7.6, not idle): models 1.68 s against 1.52 s to score
both (1.10x, goal met); rule bases (14,306 rules each) 2.78 s against 1.76 s (1.58x, goal not met
under that load: ~0.35 s of it matches and compares the 14,000 rules one by one).

Re-measured later the same day at load average 12-17 (8 engineers on 2 cores): the wall times say
more about the queue than the work (the reference alone took 2.5-4.6 s), so the rule-base case also
reports CPU seconds: diff 1.17 s against 1.00 s to score both sides (1.17x). Profile of that CPU time:
scoring both sides (the same engine calls predict_proba makes) ~0.95 s, matching and comparing the
14,306 rules by id 0.10 s (wall 0.3 s under load), rows/confusion/probability deltas 0.04 s, the
regions' size check 0.06 s. Scoring both sides in two threads (the C walkers release the GIL) was
tried: +0.05 s CPU and no wall gain at this load (no free core), so it stays for models only.
"""

from __future__ import annotations

import time

import numpy as np

from _timing import best_time


def run(quick: bool = False) -> list[dict]:
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    import rulekit

    n_rows = 20_000 if quick else 100_000
    X, y = make_classification(20_000, 10, n_informative=6, random_state=0)
    forests = [rulekit.from_sklearn(RandomForestClassifier(100, max_depth=8, random_state=s, n_jobs=1)
                                    .fit(X[s::2], y[s::2])) for s in (0, 1)]
    a, b = forests
    Z = np.random.default_rng(0).normal(size=(n_rows, 10)) * 2
    Z[::50, 3] = np.nan
    target = (Z[:, 0] > 0).astype(int)
    a.predict_proba(Z[:10]), b.predict_proba(Z[:10])  # compile both once
    t_ref, _ = best_time(lambda: (a.predict_proba(Z), b.predict_proba(Z)), repeat=2)
    t_diff, d = best_time(lambda: rulekit.diff(a, b, Z, target), repeat=2)
    t0 = time.perf_counter()
    changed = int(np.sum(a.predict(Z) != b.predict(Z)))
    _ = time.perf_counter() - t0
    name = f"diff, two RF 100 trees depth 8, {n_rows:,} rows"
    ra, rb = rulekit.to_rules(a), rulekit.to_rules(b)
    ra.predict_proba(Z[:10]), rb.predict_proba(Z[:10])  # compile both once
    t_ref_rules, _ = best_time(lambda: (ra.predict_proba(Z), rb.predict_proba(Z)), repeat=2)
    t_rules, dr = best_time(lambda: rulekit.diff(ra, rb, Z, target), repeat=2)
    # CPU seconds (all threads) as well: on a loaded machine the wall time mostly measures the queue
    c_ref_rules = _best_cpu(lambda: (ra.predict_proba(Z), rb.predict_proba(Z)))
    c_rules = _best_cpu(lambda: rulekit.diff(ra, rb, Z, target))
    return [
        {"benchmark": name + f" (rule bases, {len(ra.rules):,} rules each)", "metric": "diff CPU time",
         "unit": "s", "rulekit": c_rules, "peer": "CPU time of predict_proba of both rule bases",
         "peer_value": c_ref_rules, "goal": "< 2 s"},
        {"benchmark": name + f" (rule bases, {len(ra.rules):,} rules each)", "metric": "diff time", "unit": "s",
         "rulekit": t_rules, "peer": "predict_proba of both rule bases", "peer_value": t_ref_rules,
         "goal": "< 2 s", "ok": t_rules < 2.0 and dr.rows.changed == changed},
        {"benchmark": name, "metric": "diff time", "unit": "s", "rulekit": t_diff,
         "peer": "predict_proba of both sides", "peer_value": t_ref, "goal": "< 2 s",
         "ok": t_diff < 2.0},
        {"benchmark": name, "metric": "changed rows (= a direct count)", "unit": "rows",
         "rulekit": d.rows.changed, "peer": "direct count", "peer_value": changed, "goal": "equal",
         "ok": d.rows.changed == changed},
        {"benchmark": name, "metric": "regions", "unit": "", "rulekit": d.regions_note or "computed",
         "peer": None, "peer_value": None, "goal": "skipped with a reason"},
    ]


def _best_cpu(fn, repeat: int = 2) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best
