"""SQL deployment forms (issue #24): a 1,000-tree random forest as a scalar SQL function in
PostgreSQL and DuckDB, scored on 100,000 rows, next to the SELECT form of the same model on the same
rows in the same run (the ratio is function time / SELECT time).

Both forms are checked against scikit-learn's ``predict`` on every row (labels identical), so a
fast but wrong form cannot look good. PostgreSQL is skipped with a note when the server is absent.
``--quick``: 100 trees on 10,000 rows.
"""

from __future__ import annotations

import re
import time

import numpy as np

PG_DSN = "host=127.0.0.1 port=5432 dbname=test user=postgres connect_timeout=5"


def _forest(n_trees: int, n_rows: int):
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    import rulekit

    X, y = make_classification(n_samples=4000, n_features=8, n_informative=5, random_state=0)
    rf = RandomForestClassifier(n_estimators=n_trees, max_depth=6, random_state=0, n_jobs=1).fit(X, y)
    rng = np.random.default_rng(1)
    Z = X[rng.integers(0, len(X), n_rows)] + rng.normal(0, 0.05, (n_rows, X.shape[1]))
    return rulekit.from_sklearn(rf), rf, Z


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _duckdb(model, names, Z, want):
    import duckdb
    import pandas as pd

    from rulekit.export import to_sql

    con = duckdb.connect()
    frame = pd.DataFrame(Z, columns=names)
    frame.insert(0, "id", np.arange(len(Z)))
    con.register("frame", frame)
    con.execute("CREATE TABLE data AS SELECT * FROM frame")
    select = to_sql(model, dialect="duckdb", table="data", key="id")
    con.execute(to_sql(model, dialect="duckdb", form="function", name="score"))
    args = ", ".join(f'"{n}"' for n in names)
    t_select, a = _timed(lambda: con.execute(f"SELECT * FROM ({select}) ORDER BY 1").fetchall())
    t_fn, b = _timed(lambda: con.execute(f"SELECT id, score({args}) FROM data ORDER BY id").fetchall())
    return t_select, t_fn, _agree(a, want), _agree(b, want)


def _postgres(model, names, Z, want):
    import psycopg

    from rulekit.export import to_sql

    conn = psycopg.connect(PG_DSN, autocommit=True, options="-c statement_timeout=900000")  # 15 min: none outlives the bench
    conn.execute("SET jit = off")  # LLVM spent minutes compiling the 1,000-tree expression (postgres.py)
    cols = ", ".join(f'"{n}" double precision' for n in names)
    conn.execute("DROP TABLE IF EXISTS bench_forms_data")
    conn.execute(f'CREATE TABLE bench_forms_data (id bigint, {cols})')
    with conn.cursor() as cur:
        with cur.copy("COPY bench_forms_data FROM STDIN") as copy:
            for i, row in enumerate(Z):
                copy.write_row((i, *map(float, row)))
    conn.execute("ANALYZE bench_forms_data")
    select = to_sql(model, dialect="postgres", table="bench_forms_data", key="id")
    fn_sql = to_sql(model, dialect="postgres", form="function", name="bench_forms_score", replace=True)
    conn.execute(fn_sql)
    args = ", ".join(f'"{n}"' for n in names)
    t_select, a = _timed(lambda: conn.execute(f"SELECT * FROM ({select}) AS q ORDER BY 1").fetchall())
    t_fn, b = _timed(lambda: conn.execute(
        f"SELECT id, bench_forms_score({args}) FROM bench_forms_data ORDER BY id").fetchall())
    conn.execute("DROP FUNCTION bench_forms_score")
    for helper in re.findall(r'^CREATE OR REPLACE FUNCTION ("bench_forms_score_rk\d+")\(', fn_sql, flags=re.M)[::-1]:
        conn.execute(f"DROP FUNCTION {helper}")
    conn.execute("DROP TABLE bench_forms_data")
    conn.close()
    return t_select, t_fn, _agree(a, want), _agree(b, want)


def _agree(rows, want) -> int:
    """How many rows' labels differ from scikit-learn's."""
    got = np.asarray([int(r[1]) for r in rows])
    return int((got != want).sum())


def run(quick: bool = False) -> list[dict]:
    n_trees, n_rows = (100, 10_000) if quick else (1000, 100_000)
    model, rf, Z = _forest(n_trees, n_rows)
    names = list(model.feature_names)
    want = rf.predict(Z)
    rows = []
    for engine, fn in (("DuckDB", _duckdb), ("PostgreSQL", _postgres)):
        name = f"SQL function: RF {n_trees} trees depth 6, {n_rows:,} rows, {engine}"
        try:
            t_select, t_fn, bad_select, bad_fn = fn(model, names, Z, want)
        except Exception as err:  # noqa: BLE001 - a missing server is a row, not a crash
            rows.append({"benchmark": name, "metric": "skipped", "goal": f"{type(err).__name__}: {err}"[:120]})
            continue
        rows.append({"benchmark": name, "metric": "scoring time, function / SELECT form", "unit": "s",
                     "rulekit": round(t_fn, 3), "peer": f"{engine} SELECT form", "peer_value": round(t_select, 3),
                     "goal": f"exact (labels differing: function {bad_fn}, SELECT {bad_select})",
                     "ok": bad_fn == 0 and bad_select == 0})
    return rows


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(r)
