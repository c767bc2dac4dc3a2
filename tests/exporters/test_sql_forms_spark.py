"""SQL deployment forms in Spark SQL (local mode): the temporary SQL function (Spark 3.4+ SQL UDF,
``CREATE TEMPORARY FUNCTION f(p1 DOUBLE) RETURNS ... RETURN expr``) called on every row, the
temporary table function for probabilities (Spark 4 ``RETURNS TABLE``, through LATERAL), and the
view (over a table in a temporary warehouse), exact against the source on hostile-name, NaN ->
NULL and threshold rows."""

from __future__ import annotations

import pytest

from rulekit.exporters.sql import dialect as sql_dialect
from rulekit.exporters.sql import to_sql
from tests import zoo
from tests.exporters.test_sql_engines import KEY, compare, rules_of, table_columns
from tests.exporters.test_sql_spark import _view

pytestmark = [pytest.mark.spark, pytest.mark.slow]

MODELS = ["sklearn_tree_multiclass_hostile", "xgboost_binary_nan_hostile", "handmade_nominal",
          "learned_regressor_oblique", "sklearn_gb_multiclass_hostile"]


@pytest.mark.parametrize("rules", [False, True], ids=["model", "rules"])
@pytest.mark.parametrize("name", MODELS)
def test_spark_function(spark, name, rules):  # noqa: F811
    model, data = zoo.get(name)
    obj = rules_of(model) if rules else model
    d = sql_dialect.get("spark")
    _view(spark, obj, data, "rk_forms_in")
    spark.sql(to_sql(obj, dialect="spark", form="function", name="rk_forms_f", replace=True).rstrip().rstrip(";"))
    args = ", ".join(d.ident(n) for n, _ in table_columns(obj))
    rows = [tuple(r) for r in spark.sql(f"SELECT {d.ident(KEY)}, rk_forms_f({args}) FROM rk_forms_in").collect()]
    compare(obj, data, rows, proba=False, where="spark function")


@pytest.mark.parametrize("rules", [False, True], ids=["model", "rules"])
@pytest.mark.parametrize("name", [m for m in MODELS if zoo.get(m)[0].task == "classification"])
def test_spark_table_function(spark, name, rules):  # noqa: F811
    """``proba``: a temporary SQL table function (Spark 4 SQL UDF ``RETURNS TABLE``) called through
    LATERAL on every row: prediction and probabilities equal to the source."""
    model, data = zoo.get(name)
    obj = rules_of(model) if rules else model
    d = sql_dialect.get("spark")
    _view(spark, obj, data, "rk_forms_in")
    sql = to_sql(obj, dialect="spark", form="function", name="rk_forms_p", proba=True, replace=True)
    spark.sql(sql.rstrip().rstrip(";"))
    args = ", ".join("t." + d.ident(n) for n, _ in table_columns(obj))
    rows = [tuple(r) for r in spark.sql(f"SELECT t.{d.ident(KEY)}, r.* FROM rk_forms_in AS t, "
                                        f"LATERAL rk_forms_p({args}) AS r").collect()]
    compare(obj, data, rows, proba=True, where="spark table function")
