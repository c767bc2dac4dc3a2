"""PostgreSQL scalar functions of ensembles are inlined into the calling query and stay exact.

PostgreSQL runs a SQL function that it cannot inline through the executor once per row (12x
slower than the SELECT form for a 100-tree forest), so the function body must be one expression
without sub-selects: ``EXPLAIN VERBOSE`` of a call must not name the function. Helpers
(``<name>_rk<i>``, what reads the class sums twice) may remain as calls. Every ensemble kind of
the zoo (average, vote, sigmoid, softmax, regression sums) and rule bases with a combiner run on
their threshold and NULL rows, labels and values equal to the source.
"""

from __future__ import annotations

import re

import pytest

from rulekit.exporters.sql import dialect as sql_dialect
from rulekit.exporters.sql import to_sql
from tests import zoo
from tests.exporters.test_sql_engines import KEY, _drop, compare, load, query, rules_of, table_columns

ENSEMBLES = ["sklearn_forest_classifier", "sklearn_extratrees_regressor", "handmade_softmax_near_tie",
             "sklearn_gb_binary", "sklearn_gb_multiclass_hostile", "sklearn_hgb_categorical_nan",
             "xgboost_binary_nan_hostile", "xgboost_multiclass", "lightgbm_multiclass_zero",
             "learned_forest_average", "rulekit_forest_hard_vote", "handmade_tiny_magnitudes"]
RULES = ["sklearn_forest_classifier", "xgboost_multiclass", "rulekit_forest_hard_vote"]


def _helpers(sql: str) -> list[str]:
    return re.findall(r'^CREATE FUNCTION ("[^"]*_rk\d+")\(', sql, flags=re.M)


@pytest.mark.parametrize(("name", "rules"), [(n, False) for n in ENSEMBLES] + [(n, True) for n in RULES])
def test_function_inlined_and_exact(pg_conn, unique_name, name, rules):
    model, data = zoo.get(name)
    obj = rules_of(model) if rules else model
    d = sql_dialect.get("postgres")
    fn = unique_name + "_f"
    sql = to_sql(obj, dialect="postgres", form="function", name=fn)
    helpers = _helpers(sql)
    load(pg_conn, "postgres", obj, data, unique_name)
    args = ", ".join(d.ident(n) for n, _ in table_columns(obj))
    call = f"SELECT {d.ident(KEY)}, {d.ident(fn)}({args}) FROM {d.ident(unique_name)}"
    try:
        pg_conn.execute(sql)
        compare(obj, data, query(pg_conn, "postgres", call), proba=False, where="postgres function")
        plan = "\n".join(r[0] for r in query(pg_conn, "postgres", "EXPLAIN VERBOSE " + call))
        assert not re.search(rf"(?<![\w\"]){re.escape(fn)}\(", plan), f"{fn} not inlined:\n{plan[:300]}"
        assert "SubPlan" not in plan and "InitPlan" not in plan
    finally:
        for f in [d.ident(fn)] + helpers[::-1]:
            pg_conn.execute(f"DROP FUNCTION IF EXISTS {f}")
        _drop(pg_conn, "postgres", unique_name)


def test_class_sums_written_once():
    """A 3-class forest's body holds each tree once per class sum (the argmax reads the sums
    through a helper), not once per comparison."""
    model, _ = zoo.get("sklearn_forest_classifier")
    sql = to_sql(model, dialect="postgres", form="function", name="f")
    main = sql[sql.index('CREATE FUNCTION "f"('):]
    assert len(_helpers(sql)) == 1
    # every tree's root test appears once per class (3), in the main body only
    first = main.split("CASE WHEN", 2)[1].split(" THEN", 1)[0]
    assert main.count("CASE WHEN" + first + " THEN") == 3
