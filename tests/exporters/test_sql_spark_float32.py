"""Spark SQL of XGBoost models with ``arithmetic="float32"`` against XGBoost itself (threshold,
float32-neighbour and NaN rows): partial sums and link steps rounded with ``CAST(... AS FLOAT)``,
also inside the ``aggregate`` folds of long sums and the bare expression."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.exporters.sql import to_sql
from rulekit.importers.xgboost import from_xgboost
from tests.exporters.test_sql_engines import KEY
from tests import xgb_float32
from tests.exporters.test_sql_float32 import cases  # noqa: F401
from tests.exporters.test_sql_spark import _view

xgb = pytest.importorskip("xgboost")

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.mark.parametrize("bare", [False, True], ids=["select", "bare"])
@pytest.mark.parametrize("kind", list(xgb_float32.OBJECTIVES))
def test_spark_equals_xgboost(spark, cases, kind, bare):  # noqa: F811
    _, model, data, want = cases[kind]
    _view(spark, model, data, "rk_f32")
    proba = model.task == "classification" and not bare
    sql = (f"SELECT `{KEY}`, {to_sql(model, dialect='spark')} AS p FROM rk_f32" if bare
           else to_sql(model, dialect="spark", table="rk_f32", key=KEY, proba=proba))
    rows = sorted((tuple(r) for r in spark.sql(sql).collect()), key=lambda r: r[0])
    if kind == "reg":
        assert np.array_equal(np.array([float(r[1]) for r in rows]), want[:, 0])
        return
    assert [str(r[1]) for r in rows] == [str(x) for x in model.predict(data)]
    if proba:
        assert np.array_equal(np.array([[float(v) for v in r[2:]] for r in rows]), model.predict_proba(data))


def test_spark_long_sum_folds_in_float32(spark, cases):  # noqa: F811
    """120 trees: more than Spark's plain-sum limit, so the sums are ``aggregate`` folds."""
    booster, model, data, _ = cases["reg"]
    X = data.to_numpy(dtype=np.float64)
    long = xgb.train({"objective": "reg:squarederror", "max_depth": 3, "eta": 0.1, "nthread": 1},
                     xgb.DMatrix(X, label=model.predict(data)), 120)
    m = from_xgboost(long, arithmetic="float32")
    want = long.predict(xgb.DMatrix(X)).astype(np.float64)
    _view(spark, m, data, "rk_f32_long")
    for sql in (to_sql(m, dialect="spark", table="rk_f32_long", key=KEY),
                f"SELECT `{KEY}`, {to_sql(m, dialect='spark')} AS p FROM rk_f32_long"):
        assert "aggregate(" in sql
        rows = sorted((tuple(r) for r in spark.sql(sql).collect()), key=lambda r: r[0])
        assert np.array_equal(np.array([float(r[1]) for r in rows]), want)
