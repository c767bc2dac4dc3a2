"""A scikit-learn random forest, turned into one SQL query, scored inside DuckDB and PostgreSQL.

    python examples/sklearn_to_sql.py [OUT_DIR] [--postgres auto|require|skip]

Steps: train a RandomForestClassifier on scikit-learn's breast-cancer data, convert it with
``rulekit.from_sklearn``, write a ``SELECT`` per SQL dialect with ``rulekit.export.to_sql``, run it
in DuckDB (embedded) and in PostgreSQL (127.0.0.1:5432, user postgres, db test, when reachable; set
RULEKIT_PG_DSN to point elsewhere), and compare every label and probability with scikit-learn's own
``predict`` / ``predict_proba``. Besides the real rows we score rows sitting exactly on every
threshold of the forest (and on their float neighbours) and rows with missing values, where
converters usually go wrong. Exits 1 if any database disagrees with scikit-learn.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier

import rulekit
from rulekit.probe import probe_rows

TOLERANCE = 1e-12  # float64 engines: rulekit promises probabilities within 1e-12 (here they are equal)
PG_DSN = os.environ.get("RULEKIT_PG_DSN", "host=127.0.0.1 port=5432 dbname=test user=postgres")


def compare(engine: str, result: pd.DataFrame, labels: np.ndarray, proba: np.ndarray) -> bool:
    """Print one line comparing an engine's output with scikit-learn's; True when they agree."""
    same_labels = (result["prediction"].to_numpy() == labels).all()
    engine_proba = result.iloc[:, 1:].to_numpy(dtype=np.float64)  # columns "proba:<class>", class order
    diff = float(np.abs(engine_proba - proba).max())
    ok = bool(same_labels) and diff <= TOLERANCE
    print(f"{engine + ':':<12}{len(result)} rows, labels {'identical' if same_labels else 'DIFFERENT'}, "
          f"max |proba diff| = {diff:g}  -> {'agrees' if ok else 'DISAGREES'}")
    return ok


def score_in_postgres(sql: str, data: pd.DataFrame) -> pd.DataFrame:
    """Load ``data`` into a temporary table "patients" (NaN -> NULL) and run the query there."""
    import psycopg  # noqa: PLC0415  (only needed for this part)

    with psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5) as conn:
        columns = ", ".join(f'"{c}" double precision' for c in data.columns)
        conn.execute(f"CREATE TEMPORARY TABLE patients (row_id integer, {columns})")  # this session only
        with conn.cursor().copy("COPY patients FROM STDIN") as copy:
            for i, row in enumerate(data.itertuples(index=False)):
                copy.write_row([i] + [None if np.isnan(v) else float(v) for v in row])
        # the exported SELECT keeps the table's row order only by luck: number the rows and sort
        ordered = f"SELECT * FROM ({sql.rstrip().rstrip(';')}) AS scored ORDER BY row_id"
        rows = conn.execute(ordered).fetchall()
    result = pd.DataFrame(rows, columns=["row_id", "prediction", *[f"p{k}" for k in range(len(rows[0]) - 2)]])
    return result.drop(columns="row_id")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="directory for the .sql files (default: a temp dir)")
    parser.add_argument("--postgres", choices=["auto", "require", "skip"], default="auto",
                        help="auto: use PostgreSQL when reachable; require: fail when it is not")
    args = parser.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="rulekit-sklearn-sql-"))
    out.mkdir(parents=True, exist_ok=True)

    # 1. An ordinary scikit-learn model. Labels are the class names, so SQL returns text labels.
    data = load_breast_cancer(as_frame=True)
    X = data.data                                   # 30 numeric columns with names like "mean radius"
    y = data.target_names[data.target]              # "malignant" / "benign"
    forest = RandomForestClassifier(n_estimators=25, max_depth=6, random_state=0).fit(X, y)
    print(f"trained a {len(forest.estimators_)}-tree random forest on breast_cancer "
          f"({X.shape[0]} rows, {X.shape[1]} features), classes {forest.classes_.tolist()}")

    # 2. Convert it to rulekit's model, then to SQL. table= names what the SELECT reads from, key= a
    #    column copied through so we can line the results up; proba=True adds one column per class.
    model = rulekit.from_sklearn(forest)
    for dialect in ("duckdb", "postgres"):
        sql = rulekit.export.to_sql(model, dialect=dialect, table="patients", key="row_id", proba=True)
        (out / f"forest.{dialect}.sql").write_text(sql, encoding="utf-8")
        print(f"wrote {out / f'forest.{dialect}.sql'} ({len(sql) / 1024:.0f} KiB of SQL)")

    # 3. Rows to score: the real ones, plus rows exactly at each threshold and with missing cells.
    rows = pd.DataFrame(probe_rows(model, X.to_numpy()), columns=X.columns)
    labels, proba = forest.predict(rows), forest.predict_proba(rows)   # the truth we compare with
    n_missing = int(rows.isna().any(axis=1).sum())
    print(f"scoring {len(X)} real rows + {len(rows) - len(X) - n_missing} threshold rows "
          f"+ {n_missing} rows with missing values")

    ok = True
    # 4. DuckDB (embedded) reads the pandas DataFrame as the table "patients"; NaN becomes NULL.
    con = duckdb.connect()
    con.register("patients", rows.assign(row_id=np.arange(len(rows))))
    duck_sql = (out / "forest.duckdb.sql").read_text(encoding="utf-8")
    result = con.execute(f"SELECT * FROM ({duck_sql}) ORDER BY row_id").df().drop(columns="row_id")
    ok &= compare("DuckDB", result, labels, proba)

    # 5. PostgreSQL, when there is one.
    if args.postgres != "skip":
        try:
            result = score_in_postgres((out / "forest.postgres.sql").read_text(encoding="utf-8"), rows)
        except Exception as err:  # noqa: BLE001  (no server, no driver, refused connection ...)
            if args.postgres == "require":
                print(f"PostgreSQL: not reachable ({type(err).__name__}: {err})")
                return 1
            print(f"PostgreSQL: skipped, not reachable at {PG_DSN!r} ({type(err).__name__})")
        else:
            ok &= compare("PostgreSQL", result, labels, proba)

    print("all engines agree with scikit-learn" if ok else "DISAGREEMENT: see the lines above")
    print(f"the queries are in {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
