"""Import time of big foreign models (goal: a 1,000-tree model of each family in under 5 s).

    python bench/run.py --only import [--quick]

Each family has a function of its own returning its rows; ``run`` collects them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from _timing import best_time


def catboost_rows(quick: bool) -> list[dict]:
    """CatBoost: ``rulekit.importers.catboost.load_file`` on a saved JSON model (1,000 symmetric
    depth-6 trees, 10 features), against CatBoost's own ``load_model`` of the same file."""
    try:
        import catboost
    except ImportError:
        return [{"benchmark": "import catboost", "metric": "not run", "goal": "catboost not installed"}]
    from rulekit.importers.catboost import load_file

    n_trees = 100 if quick else 1000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 10))
    X[::11, 3] = np.nan
    y = X[:, 0] + np.sin(X[:, 1]) + np.nan_to_num(X[:, 3]) * X[:, 2] + rng.normal(size=5000) * 0.1
    est = catboost.CatBoostRegressor(iterations=n_trees, depth=6, verbose=0, allow_writing_files=False,
                                     thread_count=1, random_seed=0).fit(X, y)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        est.save_model(str(path), format="json")
        ours, model = best_time(lambda: load_file(path), repeat=3)

        def theirs_load():
            m = catboost.CatBoostRegressor()
            m.load_model(str(path), format="json")
            return m

        theirs, _ = best_time(theirs_load, repeat=3)
    exact = bool(np.array_equal(model.predict(X), est.predict(X)))
    nodes = sum(t.number_of_nodes() for t in model.trees)
    return [{"benchmark": f"import catboost ({n_trees} trees, depth 6, {nodes:,} IR nodes)",
             "metric": "seconds", "unit": "s", "rulekit": ours,
             "peer": "catboost load_model(json)", "peer_value": theirs,
             "goal": "< 5 s for 1,000 trees; predictions bit-identical", "ok": ours < 5.0 and exact}]


def spark_rows(quick: bool) -> list[dict]:
    """Spark ML: ``rulekit.importers.spark.load_dir`` on a saved RandomForestClassificationModel
    (1,000 trees of depth <= 5, 10 features, trained in local mode), against Spark's own
    ``RandomForestClassificationModel.load`` of the same directory in a warm JVM."""
    import os

    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # Spark's traffic stays on loopback
    try:
        from pyspark.ml.classification import RandomForestClassificationModel, RandomForestClassifier
        from pyspark.ml.linalg import Vectors
        from pyspark.sql import SparkSession
    except ImportError:
        return [{"benchmark": "import spark", "metric": "not run", "goal": "pyspark not installed"}]
    from rulekit.importers.spark import load_dir

    n_trees = 100 if quick else 1000
    spark = (SparkSession.builder.master("local[2]").appName("rulekit-bench-import")
             .config("spark.ui.enabled", "false").config("spark.driver.memory", "1g").getOrCreate())
    try:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(2000, 10))
        y = ((X[:, 0] + np.sin(X[:, 1]) + X[:, 2] * X[:, 3]) > 0.3).astype(float)
        df = spark.createDataFrame([(float(t), Vectors.dense(r.tolist())) for r, t in zip(X, y)],
                                   ["label", "features"])
        est = RandomForestClassifier(numTrees=n_trees, maxDepth=5, seed=0).fit(df)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "rf"
            est.write().overwrite().save(str(path))
            ours, model = best_time(lambda: load_dir(path), repeat=3)
            theirs, _ = best_time(lambda: RandomForestClassificationModel.load(str(path)), repeat=3)
        rows = df.limit(500).collect()
        want = np.array([r.probability.toArray() for r in est.transform(spark.createDataFrame(rows)).collect()])
        got = model.predict_proba(np.array([r.features.toArray() for r in rows]))
        err = float(np.max(np.abs(got - want)))
    finally:
        spark.stop()
    nodes = sum(t.number_of_nodes() for t in model.trees)
    return [{"benchmark": f"import spark ({n_trees} RF trees, depth 5, {nodes:,} IR nodes)",
             "metric": "seconds", "unit": "s", "rulekit": ours,
             "peer": "Spark RandomForestClassificationModel.load (warm JVM)", "peer_value": theirs,
             "goal": f"< 5 s for 1,000 trees; probabilities within 1e-12 (max diff {err:.1e})",
             "ok": ours < 5.0 and err <= 1e-12}]


def run(quick: bool = False) -> list[dict]:
    return catboost_rows(quick) + spark_rows(quick)


if __name__ == "__main__":
    for row in run():
        print(row)
