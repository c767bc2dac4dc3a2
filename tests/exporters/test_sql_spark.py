"""The scale-out path: exported Spark SQL run by Spark SQL in local mode, against the source model.

One session for the module (it is slow to start). Doubles are loaded as DoubleType from Python
floats (exact), labels as strings, missing values as NULL.
"""

from __future__ import annotations

import math

import pytest

from rulekit.exporters.sql import to_sql
from tests import zoo
from tests.exporters.test_sql_engines import KEY, compare, rules_of, table_columns, table_rows

pytestmark = pytest.mark.spark

MODELS = ["sklearn_tree_multiclass_hostile", "sklearn_forest_classifier", "handmade_nominal", "handmade_linear",
          "chain_deep", "sklearn_gb_multiclass_hostile", "sklearn_hgb_categorical_nan", "xgboost_binary_nan_hostile"]


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'rulekit[spark]')")
    from pyspark.sql import SparkSession

    try:
        session = (SparkSession.builder.master("local[2]").appName("rulekit-sql-tests")
                   .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
                   .config("spark.driver.memory", "1g").getOrCreate())
    except Exception as err:  # noqa: BLE001 - no Java, no Spark: skip with the reason
        pytest.skip(f"Spark could not start: {type(err).__name__}: {err}")
    yield session
    session.stop()


def _view(spark, obj, data, name: str) -> None:
    from pyspark.sql.types import DoubleType, IntegerType, StringType, StructField, StructType

    fields = [StructField(KEY, IntegerType(), False)] + [
        StructField(n, StringType() if text else DoubleType(), True) for n, text in table_columns(obj)]
    rows = table_rows(obj, data)
    spark.createDataFrame(rows, StructType(fields)).createOrReplaceTempView(name)


def _run(spark, obj, data, name: str) -> str:
    proba = obj.task == "classification"
    _view(spark, obj, data, name)
    sql = to_sql(obj, dialect="spark", table=name, key=KEY, proba=proba)
    rows = [tuple(r) for r in spark.sql(sql).collect()]
    compare(obj, data, rows, proba=proba, where="spark")
    return sql


@pytest.mark.parametrize("name", [m for m in MODELS if m in zoo.zoo_names()])
def test_spark_zoo(spark, name):
    model, data = zoo.get(name)
    _run(spark, model, data, "rk_zoo")


@pytest.mark.parametrize("name", ["handmade_nominal", "sklearn_gb_binary"])
def test_spark_rules(spark, name):
    model, data = zoo.get(name)
    _run(spark, rules_of(model), data, "rk_rules")


def test_spark_bare_regression(spark):
    model, data = zoo.get("sklearn_extratrees_regressor")
    _view(spark, model, data, "rk_bare")
    expr_sql = to_sql(model, dialect="spark")
    rows = [tuple(r) for r in spark.sql(f"SELECT `{KEY}`, {expr_sql} AS p FROM rk_bare").collect()]
    compare(model, data, rows, proba=False, where="spark bare")
    assert not any(isinstance(v, float) and math.isnan(v) for _, v in rows)
