"""Pipeline to SQL (issue #21): scaler + one-hot + random forest, rulekit's fold vs orbital, in DuckDB.

The pipeline is ``ColumnTransformer(StandardScaler on 4 numeric columns, OneHotEncoder on 2 text
columns) -> RandomForestClassifier``, scored on random rows plus probe rows (every folded
threshold of the raw numeric columns and its float64 neighbours, the naive ``t * s + m`` boundary
and its neighbours, every category and an unknown one). Both SQL queries run in the same DuckDB
on the same table; exactness is rows whose label differs from ``pipeline.predict`` and the largest
probability difference from ``pipeline.predict_proba``; times are wall seconds, best of 3 for
export. orbital pins onnx below 1.23, so run this file with a venv that has it (created with
``--system-site-packages`` so rulekit and scikit-learn are shared):

    python -m venv --system-site-packages /tmp/orbital_venv && /tmp/orbital_venv/bin/pip install orbital
    /tmp/orbital_venv/bin/python bench/bench_pipeline_sql.py [--quick]

Without orbital its rows say so (peer value None). Measured numbers go to docs/pipelines.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_time

NUM = ["age", "income", "score", "tenure"]
CAT = ["plan", "region"]


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _frame(n: int, seed: int):
    import pandas as pd

    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": np.round(rng.normal(40, 12, n), 1),
        "income": np.round(rng.lognormal(10, 0.6, n), 2),
        "score": np.round(rng.uniform(-3, 3, n), 3),
        "tenure": rng.integers(0, 240, n).astype(np.float64),
        "plan": rng.choice(["basic", "plus", "pro", "team"], n, p=[0.4, 0.3, 0.2, 0.1]).astype(object),
        "region": rng.choice(["north", "south", "east", "west", "centre"], n).astype(object),
    })


def _target(df) -> np.ndarray:
    z = ((df["age"] - 40) / 12 + np.log(df["income"]) - 10 + df["score"] + df["tenure"] / 120
         + df["plan"].isin(["pro", "team"]) * 1.0 - (df["region"] == "south") * 0.5)
    return (z > 1.0).astype(np.int64).to_numpy()


def _probe_rows(df, model, pipe):
    """Rows at every folded threshold and at the naive ``t * s + m`` ones, with neighbours."""
    import pandas as pd

    scaler = pipe.named_steps["prep"].named_transformers_["num"]
    forest = pipe.named_steps["rf"]
    blocks, k = [], 0
    values: list[tuple[str, float]] = []
    for j, f in enumerate(model.features):
        if f.kind == "numeric":
            for t in model.trees:
                for _, a in t.nodes(data=True):
                    if a["kind"] == "numeric" and a["feature"] == j and abs(a["threshold"]) < 1e30:
                        values.append((f.name, a["threshold"]))
    for est in forest.estimators_:
        tr = est.tree_
        for i in np.flatnonzero(tr.children_left >= 0):
            j = int(tr.feature[i])
            if j < len(NUM) and np.isfinite(tr.threshold[i]):
                values.append((NUM[j], float(tr.threshold[i]) * scaler.scale_[j] + scaler.mean_[j]))
    for name, v in dict.fromkeys(values):
        for w in (v, np.nextafter(v, np.inf), np.nextafter(v, -np.inf)):
            row = df.iloc[k % len(df)].copy()
            k += 1
            row[name] = w
            blocks.append(row)
    for name in CAT:
        for v in list(df[name].unique()) + ["unknown"]:
            row = df.iloc[k % len(df)].copy()
            k += 1
            row[name] = v
            blocks.append(row)
    return pd.DataFrame(blocks).reset_index(drop=True)


def _orbital(pipe, con):
    """(export seconds, SQL, scoring seconds, P1, labels by id) with orbital, or None if absent."""
    try:
        import orbital
        import orbital.types
    except Exception:  # noqa: BLE001 - not installed or not importable here
        return None
    feats = {n: orbital.types.DoubleColumnType() for n in NUM}
    feats.update({n: orbital.types.StringColumnType() for n in CAT})
    feats["id"] = orbital.types.Int64ColumnType(passthrough=True)

    def export():
        return orbital.export_sql("data", orbital.parse_pipeline(pipe, features=feats), dialect="duckdb",
                                  projection=orbital.ResultsProjection(select=["id"]))

    t_export, sql = best_time(export)
    t_score, res = _timed(lambda: con.execute(sql).fetchnumpy())
    order = np.argsort(res["id"])
    p1 = np.asarray(res["output_probability.1"], dtype=np.float64)[order]
    labels = np.asarray(res["output_label"])[order].astype(np.int64)
    return t_export, sql, t_score, p1, labels


def run(quick: bool = False) -> list[dict]:
    import duckdb
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    import rulekit
    from rulekit.export import to_sql

    n_rows = 20_000 if quick else 200_000
    n_trees, depth = (10, 6) if quick else (50, 8)
    train = _frame(5_000, 0)
    prep = ColumnTransformer([("num", StandardScaler(), NUM),
                              ("cat", OneHotEncoder(handle_unknown="ignore"), CAT)])
    pipe = Pipeline([("prep", prep), ("rf", RandomForestClassifier(n_trees, max_depth=depth, random_state=0,
                                                                   n_jobs=2))]).fit(train, _target(train))
    t_fold, model = best_time(lambda: rulekit.from_sklearn(pipe))
    probes = _probe_rows(train, model, pipe)
    frame = pd.concat([probes, _frame(n_rows - len(probes), 1)], ignore_index=True)
    frame.insert(0, "id", np.arange(len(frame), dtype=np.int64))

    t_sk, p_sk = _timed(lambda: pipe.predict_proba(frame))
    label_sk = pipe.classes_[np.argmax(p_sk, axis=1)]
    t_export, sql = best_time(lambda: to_sql(model, dialect="duckdb", table="data", key="id", proba=True))
    con = duckdb.connect()
    con.execute("CREATE TABLE data AS SELECT * FROM frame")
    t_db, res = _timed(lambda: con.execute(sql).fetchnumpy())
    order = np.argsort(res["id"])
    p_db = np.asarray(res["proba:1"], dtype=np.float64)[order]
    label_db = np.asarray(res["prediction"])[order].astype(np.int64)
    err = float(np.max(np.abs(p_db - p_sk[:, 1])))
    wrong = int(np.sum(label_db != label_sk))
    wrong_probe = int(np.sum(label_db[: len(probes)] != label_sk[: len(probes)]))

    orb = _orbital(pipe, con)
    o_export = o_size = o_score = o_err = o_wrong = o_wrong_probe = None
    if orb is not None:
        o_export, o_sql, o_score, o_p1, o_labels = orb
        o_size = len(o_sql) / 1e6
        o_err = float(np.max(np.abs(o_p1 - p_sk[:, 1])))
        o_wrong = int(np.sum(o_labels != label_sk))
        o_wrong_probe = int(np.sum(o_labels[: len(probes)] != label_sk[: len(probes)]))
    name = (f"pipeline SQL: scaler + one-hot + RF {n_trees} trees depth {depth}, "
            f"{len(frame):,} rows ({len(probes):,} probe rows), DuckDB")
    peer = "orbital 0.6" if orb is not None else "orbital (not installed)"
    return [
        {"benchmark": name, "metric": "fold pipeline into IR", "unit": "s", "rulekit": t_fold, "peer": "-",
         "peer_value": None, "goal": "-"},
        {"benchmark": name, "metric": "export time (parse + SQL)", "unit": "s", "rulekit": t_export,
         "peer": peer, "peer_value": o_export, "goal": "-"},
        {"benchmark": name, "metric": "SQL size", "unit": "MB", "rulekit": len(sql) / 1e6, "peer": peer,
         "peer_value": o_size, "goal": "-"},
        {"benchmark": name, "metric": "scoring time (incl. planning)", "unit": "s", "rulekit": t_db,
         "peer": peer, "peer_value": o_score, "goal": "faster than the peer",
         "ok": None if o_score is None else t_db < o_score},
        {"benchmark": name, "metric": "scoring time (incl. planning)", "unit": "s", "rulekit": t_db,
         "peer": "sklearn pipeline predict_proba", "peer_value": t_sk, "goal": "-"},
        {"benchmark": name, "metric": "labels differing from the pipeline", "unit": "rows", "rulekit": wrong,
         "peer": peer, "peer_value": o_wrong, "goal": "0", "ok": wrong == 0},
        {"benchmark": name, "metric": "... of them probe rows", "unit": "rows", "rulekit": wrong_probe,
         "peer": peer, "peer_value": o_wrong_probe, "goal": "0", "ok": wrong_probe == 0},
        {"benchmark": name, "metric": "max |P(1) - pipeline|", "unit": "", "rulekit": err, "peer": peer,
         "peer_value": o_err, "goal": "<= 1e-12", "ok": err <= 1e-12},
    ]


if __name__ == "__main__":
    rows = run(quick="--quick" in sys.argv)
    print(rows[0]["benchmark"])
    for r in rows:
        ratio = (r["rulekit"] / r["peer_value"]
                 if isinstance(r.get("peer_value"), (int, float)) and r["peer_value"] else None)
        print(f"{r['metric']:<36} rulekit {r['rulekit']!s:<24} {r['peer']:<30} {r['peer_value']!s:<24} "
              f"ratio {'-' if ratio is None else f'{ratio:.3g}'}  goal {r['goal']}"
              + ("" if r.get("ok") is None else f"  ok={r['ok']}"))
