"""An imported CatBoost model through every artefact: Python (per row and batch), SQLite, DuckDB
and ONNX in onnxruntime, each compared with CatBoost's own predictions on border, NaN and category
rows (hostile feature names and category values included). ONNX of a model with one-hot
categorical features is the case CatBoost's own ONNX export refuses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

catboost = pytest.importorskip("catboost")

from rulekit import runtimes  # noqa: E402
from rulekit.importers.catboost import from_catboost  # noqa: E402
from rulekit.table import from_data  # noqa: E402
from tests.importers.test_catboost import KW, frame, probe, target  # noqa: E402
from tests.marks import fast_cases  # noqa: E402

BACKENDS = ["python", "python-batch", "sqlite", "duckdb", "onnx", "onnx-double"]
CASES = [(policy, kind, backend) for policy in ("SymmetricTree", "Depthwise")
         for kind in ("reg", "bin", "multi") for backend in BACKENDS]

def hostile(df: pd.DataFrame) -> pd.DataFrame:
    """Column names that need quoting everywhere."""
    return df.rename(columns={"x0": 'x0 "quoted"', "x 1": "it's x1", "c": "c; drop table t", "x2": "X2"})


_MODELS: dict = {}


def _fit_hostile(policy: str, kind: str):
    """A model trained on the hostile column names (fitted once per kind, shared by the backends)."""
    key = (policy, kind)
    if key not in _MODELS:
        df = frame(n=300, seed=4)
        hdf = hostile(df)
        est_cls = catboost.CatBoostRegressor if kind == "reg" else catboost.CatBoostClassifier
        est = est_cls(iterations=12, depth=3, grow_policy=policy, one_hot_max_size=8,
                      cat_features=["c; drop table t"], **KW).fit(hdf, target(df, kind))
        _MODELS[key] = (est, hdf)
    return _MODELS[key]


# the fast lane: every backend on one fitted model, and the other policy once
@pytest.mark.parametrize("case", fast_cases(CASES, [c for c in CASES if c[:2] == ("SymmetricTree", "bin")]
                                            + [("Depthwise", "multi", "python")]), ids=lambda c: "-".join(c))
def test_backend_equals_catboost(case):
    policy, kind, backend = case
    est, hdf = _fit_hostile(policy, kind)
    model = from_catboost(est, pool=hdf)
    assert model.features[2].kind == "nominal" and len(model.features[2].domain) > 0
    P = probe(model, hdf, cat="c; drop table t")
    try:
        out = runtimes.runner(backend)(model, from_data(P, model.features))
    except runtimes.Unavailable as err:
        pytest.skip(str(err))
    # ONNX with float input sums float32 outputs (stated tolerance 1e-6); every other backend
    # computes in float64 (1e-12)
    tol = 1e-6 if backend == "onnx" else 1e-12
    if kind == "reg":
        np.testing.assert_allclose(out.prediction.astype(np.float64), est.predict(P), rtol=0, atol=tol)
        return
    want = est.predict(P, prediction_type="Class").ravel()
    assert [str(v) for v in out.prediction] == [str(v) for v in want]
    np.testing.assert_allclose(out.proba, est.predict(P, prediction_type="Probability"), rtol=0, atol=tol)


def test_catboost_own_onnx_export_refuses_categorical_features(tmp_path):
    """The reason the ONNX rows above matter: CatBoost cannot write this model as ONNX itself."""
    est, _ = _fit_hostile("SymmetricTree", "bin")
    with pytest.raises(Exception, match="categorical"):
        est.save_model(str(tmp_path / "m.onnx"), format="onnx")




@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.parametrize("kind", ["reg", "bin", "multi"])
def test_spark_sql_equals_catboost(spark, kind):
    import math

    from pyspark.sql.types import (
        DoubleType,
        IntegerType,
        StringType,
        StructField,
        StructType,
    )
    from rulekit.exporters.sql import to_sql

    est, hdf = _fit_hostile("Depthwise", kind)
    model = from_catboost(est, pool=hdf)
    P = probe(model, hdf, cat="c; drop table t")
    names = model.feature_names
    fields = [StructField("row_id", IntegerType(), False)] + [
        StructField(f.name, StringType() if f.kind == "nominal" else DoubleType(), True) for f in model.features]
    rows = []
    for i, rec in enumerate(P[names].itertuples(index=False)):
        rows.append((i, *[None if isinstance(v, float) and math.isnan(v) else v for v in rec]))
    spark.createDataFrame(rows, StructType(fields)).createOrReplaceTempView("cb_rows")
    proba = model.task == "classification"
    sql = to_sql(model, dialect="spark", table="cb_rows", key="row_id", proba=proba)
    got = sorted((tuple(r) for r in spark.sql(sql).collect()), key=lambda r: r[0])
    assert [r[0] for r in got] == list(range(len(P)))
    if kind == "reg":
        np.testing.assert_allclose([r[1] for r in got], est.predict(P), rtol=0, atol=1e-12)
        return
    assert [str(r[1]) for r in got] == [str(v) for v in est.predict(P).ravel()]
    np.testing.assert_allclose([r[2:] for r in got], est.predict_proba(P), rtol=0, atol=1e-12)
