"""The scale-out path: exported Spark SQL run by Spark SQL in local mode, against the source model.

One session for the module (it is slow to start). Doubles are loaded as DoubleType from Python
floats (exact), labels as strings, missing values as NULL.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rulekit.exporters.sql import to_sql
from tests import zoo
from tests.marks import fast_cases
from tests.exporters.test_sql_engines import KEY, compare, rules_of, table_columns, table_rows

pytestmark = pytest.mark.spark

MODELS = ["sklearn_tree_multiclass_hostile", "sklearn_forest_classifier", "handmade_nominal", "handmade_linear",
          "chain_deep", "sklearn_gb_multiclass_hostile", "sklearn_hgb_categorical_nan", "xgboost_binary_nan_hostile",
          "sklearn_extratrees_regressor", "xgboost_multiclass", "lightgbm_categorical_nan", "lightgbm_multiclass_zero",
          "rulekit_forest_hard_vote", "learned_forest_average", "catboost_onehot_nan", "onnx_skl2onnx_gb",
          "sklearn_pipeline_columns", "spark_dir_categorical", "pmml_defaultchild_hostile"]
WALKED = {"sklearn_forest_classifier", "sklearn_gb_multiclass_hostile", "xgboost_binary_nan_hostile",
          "sklearn_extratrees_regressor", "xgboost_multiclass", "lightgbm_multiclass_zero", "catboost_onehot_nan",
          "onnx_skl2onnx_gb"}




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


@pytest.mark.parametrize("name", fast_cases([m for m in MODELS if m in zoo.zoo_names()],
                                             ["xgboost_binary_nan_hostile"]))
def test_spark_zoo(spark, name):
    model, data = zoo.get(name)
    sql = _run(spark, model, data, "rk_zoo")
    assert ("aggregate(sequence(" in sql) == (name in WALKED), \
        "ensembles of numeric trees are walked; single trees and nominal/oblique trees stay CASE"


def _forest(n_trees: int, depth: int, names: list[str]):
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    import rulekit
    from rulekit.probe import probe_rows

    X, y = make_classification(600, len(names), n_informative=4, n_redundant=0, random_state=1)
    X[::9, 2] = np.nan
    rf = RandomForestClassifier(n_trees, max_depth=depth, random_state=0).fit(pd.DataFrame(X, columns=names), y)
    model = rulekit.from_sklearn(rf)
    M = probe_rows(model, X[:200], n_missing=80, max_rows=1500, seed=2)
    frame = pd.DataFrame(M, columns=names)
    return rf, model, frame


@pytest.mark.slow
def test_spark_forest_walked_exact_and_bounded(spark):
    """A 40-tree depth-8 forest (hostile names, threshold and NULL rows) plans and runs quickly in
    Spark and matches scikit-learn exactly; before the walker this shape took minutes to plan."""
    names = ["a b", "it's", "x`y", "n", "i"]  # n, i: the lambda must not hide these columns
    rf, model, frame = _forest(40, 8, names)
    sql = _run(spark, model, frame, "rk_walk")
    bare = to_sql(model, dialect="spark")
    assert bare.count("array(coalesce(") == 1  # the row array is bound once, not built in every walk
    assert bare.count("aggregate(sequence(") == 40  # each walk bound once, read by both classes' sums
    rows = [tuple(r) for r in spark.sql(f"SELECT `{KEY}`, {bare} AS p FROM rk_walk").collect()]
    compare(model, frame, rows, proba=False, where="spark bare forest")
    assert sql.count("aggregate(sequence(") == 40  # one walk per tree, a column feeding both classes
    assert len(sql) < 1_000_000
    rows = sorted((tuple(r) for r in spark.sql(sql).collect()), key=lambda r: r[0])
    P = rf.predict_proba(frame)
    got = np.asarray([[r[2], r[3]] for r in rows])
    assert np.abs(got - P).max() <= 1e-12
    assert [r[1] for r in rows] == list(rf.classes_[np.argmax(P, axis=1)])


@pytest.mark.slow
def test_spark_walk_infinite_boundaries(spark):
    """Boundaries of +-inf travel as 'Infinity' strings; NULL follows each split's missing side."""
    from rulekit.ir.model import Combiner, Feature, Model
    from rulekit.ir.tree import TreeBuilder

    trees = []
    for t, (thr, miss) in enumerate([(math.inf, 0), (-math.inf, 1), (0.5, 0), (0.5, 1)]):
        b = TreeBuilder()
        root = b.numeric(0, 1.5, missing=1 - miss)
        inner = b.numeric(1, thr, missing=miss)
        for parent, child, branch in [(root, inner, 0)]:
            b.connect(parent, child, branch)
        b.connect(root, b.leaf((0.25 * t / 4, 1 - 0.25 * t / 4)), 1)
        b.connect(inner, b.leaf((1.0, 0.0)), 0)
        b.connect(inner, b.leaf((0.0, 1.0)), 1)
        trees.append(b.graph)
    model = Model(features=[Feature(name="p"), Feature(name="q")], trees=trees, classes=[0, 1],
                  task="classification", combiner=Combiner(kind="average"))
    xs = [None, -math.inf, -1.0, 0.5, 1.5, 2.0, math.inf]
    frame = pd.DataFrame([(a, b) for a in xs for b in xs], columns=["p", "q"], dtype=float)
    sql = _run(spark, model, frame, "rk_inf")
    assert "Infinity" in sql


@pytest.mark.slow
def test_spark_forest_1000_trees(spark):
    """1,000 trees as a SELECT and as the bare expression. Spark's analyzer spends iterations on
    each stage (100 stages of 10 trees hit its limit of 100), so stages grow to keep at most 20;
    its parser recurses once per ``+`` (a 1,000-term sum failed as too complex), so long sums are
    folds over a flat array. Whole-stage code generation ran out of a 1 GB heap from ~600 trees
    up: off here, as the docs advise."""
    from rulekit.probe import probe_rows
    from tests.exporters.test_sql_big import _forest

    model = _forest(1000)
    rng = np.random.default_rng(2)
    M = rng.normal(size=(100, 8))
    M[rng.random(M.shape) < 0.1] = np.nan
    frame = zoo._frame(model, probe_rows(model, M, n_missing=20, max_rows=120))
    spark.conf.set("spark.sql.codegen.wholeStage", "false")
    try:
        _run(spark, model, frame, "rk_forest1000")
        bare = to_sql(model, dialect="spark")
        assert bare.count("aggregate(array(") == 2  # each class's 1,000 terms folded, not nested
        rows = [tuple(r) for r in spark.sql(f"SELECT `{KEY}`, {bare} AS p FROM rk_forest1000").collect()]
        compare(model, frame, rows, proba=False, where="spark bare forest 1000")
    finally:
        spark.conf.unset("spark.sql.codegen.wholeStage")


@pytest.mark.slow
def test_spark_long_rule_base(spark):
    """1,050 weighted-sum rules, both forms. Spark merges the stages into one expression: with plain
    running sums its 1,050-deep sum overflowed the stack serializing the task (the session died),
    so each stage's sum is a fold (one level per stage); stages also stay at most 20, since each
    takes the analyzer a few of its 100 iterations."""
    from tests.exporters.test_sql_rules import _data, _long_rb

    rb, data = _long_rb("regression", "weighted-sum", 150), _data(60)
    sql = _run(spark, rb, data, "rk_long_rules")
    assert sql.count(" AS (SELECT ") <= 20
    _view(spark, rb, data, "rk_long_rules")
    bare = to_sql(rb, dialect="spark")
    rows = [tuple(r) for r in spark.sql(f"SELECT `{KEY}`, {bare} AS p FROM rk_long_rules").collect()]
    compare(rb, data, rows, proba=False, where="spark bare long rules")


@pytest.mark.parametrize("case", fast_cases(["vote", "vote-no-default", "vote-regression", "weighted-sum",
                                               "groups-softmax"], []))
def test_spark_rules_bare(spark, case):
    """Voting and weighted-sum rule bases as one expression (accumulators bound by transform)."""
    from tests.exporters.test_sql_rules import BARE, _data

    rb, data = BARE[case](), _data()
    _view(spark, rb, data, "rk_rules_bare")
    expr_sql = to_sql(rb, dialect="spark")
    assert "SELECT" not in expr_sql
    rows = [tuple(r) for r in spark.sql(f"SELECT `{KEY}`, {expr_sql} AS p FROM rk_rules_bare").collect()]
    compare(rb, data, rows, proba=False, where="spark bare rules")


@pytest.mark.parametrize("name", ["handmade_nominal", "sklearn_gb_binary"])
@pytest.mark.slow
def test_spark_rules(spark, name):
    model, data = zoo.get(name)
    _run(spark, rules_of(model), data, "rk_rules")


@pytest.mark.parametrize("name", ["sklearn_extratrees_regressor", "sklearn_forest_classifier", "xgboost_binary_nan_hostile",
                                  "rulekit_forest_hard_vote", "sklearn_gb_multiclass_hostile", "xgboost_multiclass",
                                  "handmade_softmax_near_tie"])
@pytest.mark.slow
def test_spark_bare(spark, name):
    """The bare expression: no subquery, trees walked inline (one common subexpression per tree);
    softmax's class sums, exps and probabilities bound once each by ``transform`` over a struct."""
    model, data = zoo.get(name)
    _view(spark, model, data, "rk_bare")
    expr_sql = to_sql(model, dialect="spark")
    assert "SELECT" not in expr_sql
    rows = [tuple(r) for r in spark.sql(f"SELECT `{KEY}`, {expr_sql} AS p FROM rk_bare").collect()]
    compare(model, data, rows, proba=False, where="spark bare")
    assert not any(isinstance(v, float) and math.isnan(v) for _, v in rows)
