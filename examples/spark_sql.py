"""A LightGBM model scored by Spark SQL (local mode), through rulekit's SQL export.

    python examples/spark_sql.py [OUT_DIR]

Needs pyspark and Java (``pip install pyspark``); without pyspark it says so and exits 0.
Train a small LGBMClassifier on scikit-learn's breast-cancer data, convert it with
``rulekit.from_lightgbm``, write a Spark SQL ``SELECT`` with ``rulekit.export.to_sql(...,
dialect="spark")``, run it on a temporary view in a local Spark session and compare every label and
probability with LightGBM's own ``predict`` / ``predict_proba`` - on the real rows, on rows sitting
exactly on every threshold, and on rows with missing values (NULL in Spark). Exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

try:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DoubleType, IntegerType, StructField, StructType
except ImportError:
    SparkSession = None

TOLERANCE = 1e-12  # Spark computes in float64: probabilities within 1e-12 of LightGBM's


def compare(result: list, labels: np.ndarray, proba: np.ndarray) -> bool:
    """Print one line comparing Spark's rows (row_id, prediction, proba...) with LightGBM; True if equal."""
    result = sorted(result, key=lambda r: r[0])  # Spark gives no row order: sort by the key
    same = bool((np.array([r[1] for r in result], dtype=object) == labels.astype(object)).all())
    diff = float(np.abs(np.array([r[2:] for r in result], dtype=np.float64) - proba).max())
    ok = same and len(result) == len(labels) and diff <= TOLERANCE
    print(f"Spark SQL: {len(result)} rows, labels {'identical' if same else 'DIFFERENT'}, "
          f"max |proba diff| = {diff:.3g} -> {'agrees' if ok else 'DISAGREES'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="directory for the .sql file (default: a temp dir)")
    args = parser.parse_args(argv)
    if SparkSession is None:
        print("skipped: pyspark is not installed (pip install pyspark; it needs Java 17+)")
        return 0

    import lightgbm  # noqa: PLC0415  (imported here so that the skip above stays quick)
    from sklearn.datasets import load_breast_cancer  # noqa: PLC0415

    import rulekit  # noqa: PLC0415
    from rulekit.probe import probe_rows  # noqa: PLC0415

    out = Path(args.out or tempfile.mkdtemp(prefix="rulekit-spark-"))
    out.mkdir(parents=True, exist_ok=True)

    # 1. A LightGBM model. LightGBM turns spaces in column names into "_", so we do that first and
    #    the model, the SQL and the Spark table all use the same names ("mean_radius", ...).
    data = load_breast_cancer(as_frame=True)
    X = data.data.rename(columns=lambda c: c.replace(" ", "_"))
    y = data.target_names[data.target]
    booster = lightgbm.LGBMClassifier(n_estimators=10, num_leaves=8, random_state=0, verbose=-1).fit(X, y)

    # 2. rulekit model -> Spark SQL over a table "patients", with the key column and one column per class.
    model = rulekit.from_lightgbm(booster)
    sql = rulekit.export.to_sql(model, dialect="spark", table="patients", key="row_id", proba=True)
    (out / "lightgbm.spark.sql").write_text(sql, encoding="utf-8")
    print(f"wrote {out / 'lightgbm.spark.sql'} ({len(model.trees)} trees, {len(sql) / 1024:.0f} KiB of SQL)")

    # 3. Rows: the real ones, one per threshold value and its neighbours, and rows with missing cells.
    rows = pd.DataFrame(probe_rows(model, X.to_numpy()), columns=X.columns)
    labels, proba = booster.predict(rows), booster.predict_proba(rows)

    # 4. A local Spark: one core, no web UI; the JVM options and codegen=false only make a small
    #    job start and run sooner (they change no result).
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    start = time.perf_counter()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # Spark's traffic stays on loopback
    spark = (SparkSession.builder.master("local[1]").appName("rulekit-example")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "1").config("spark.sql.codegen.wholeStage", "false")
             .config("spark.driver.extraJavaOptions", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        # NaN must become None: Spark keeps NaN as a number (larger than any other), only NULL is missing
        schema = StructType([StructField("row_id", IntegerType())] +
                            [StructField(name, DoubleType()) for name in X.columns])
        table = [(i, *(None if np.isnan(v) else float(v) for v in row))
                 for i, row in enumerate(rows.to_numpy())]
        spark.createDataFrame(table, schema).createOrReplaceTempView("patients")
        result = spark.sql(sql).collect()
        print(f"Spark {spark.version} scored {len(rows)} rows ({len(X)} real, the rest on thresholds "
              f"or with missing values) in {time.perf_counter() - start:.0f} s, start-up included")
    finally:
        spark.stop()

    ok = compare(result, labels, proba)
    print("Spark SQL agrees with LightGBM" if ok else "DISAGREEMENT: see the line above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
