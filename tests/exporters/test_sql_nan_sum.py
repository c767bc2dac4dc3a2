"""An oblique split whose sum is NaN (+inf and -inf inputs, or 0 * inf) takes the missing branch.

The IR (``rulekit.ir.compiled``) routes a NaN sum like a missing value. SQLite already returns NULL
for ``inf - inf``; DuckDB, PostgreSQL and Spark return NaN, which ``IS NULL`` misses and ``NaN <= b``
sends to ELSE, so the export turns a NaN sum into NULL there (:data:`rulekit.exporters.sql.expr.
NAN_SUM`). MariaDB cannot store an infinity at all: its rows with one are skipped (docs/engines.md).
Each engine runs the model's SQL (nested and flat CASE) against ``Model.predict`` and the rule base's
SQL against the rule engine; the Python and ONNX exports are checked on the same rows. The rule base
says "the sum is NaN" with infinite partial sums on the missing side (rulekit.rules.extract,
``routing.nan_sum_tests``), so it equals the model in every rule backend too: rule engine (raw and
simplified paths), DSL round trip, Python, ONNX and SQL rules. ``WIDE`` adds a three-term sum whose
first two terms overflow to +inf before a -inf (PostgreSQL and MariaDB refuse such overflow) and a
zero weight (``0 * inf``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.ir.model import Feature, Model
from rulekit.ir.tree import TreeBuilder
from rulekit.exporters.sql import to_sql
from tests.exporters.test_sql_engines import (  # noqa: F401 (fixtures)
    KEY, _drop, compare, duck_conn, load, query, sqlite_conn, table_columns, table_rows)

INF = math.inf
NAN = math.nan
# (a, b, c): the sum is 0.3 a + 1.2 b; c feeds a numeric split under the oblique one
ROWS = [
    (INF, -INF, 0.0), (-INF, INF, 1.0), (INF, -INF, NAN), (-INF, INF, 9.0),  # inf - inf: NaN sum
    (INF, 0.0, 0.0), (-INF, 0.0, 1.0), (0.0, INF, 0.0), (0.0, -INF, 1.0),  # one infinity: +-inf sum
    (INF, INF, 0.0), (-INF, -INF, 1.0),  # same-sign infinities
    (NAN, 0.0, 0.0), (0.0, NAN, 1.0), (NAN, INF, 0.0), (-INF, NAN, 1.0),  # a missing input
    (0.0, 4.0 / 1.2, 0.0), (0.0, 4.0 / 1.2, 1.0), (1.0, 1.0, 0.0), (10.0, 10.0, 1.0), (-3.0, 2.0, 0.5),
]


def _model(missing: int, *, deep: bool) -> Model:
    """``0.3 a + 1.2 b <= 4`` with the NaN/missing branch ``missing``; ``deep`` puts a numeric
    split on ``c`` under each side (so the flat form writes the oblique test inside a path)."""
    feats = [Feature(name="a"), Feature(name="b"), Feature(name="c")]
    b = TreeBuilder()
    root = b.linear((0, 1), (0.3, 1.2), 4.0, missing=missing)
    value = 1.0
    for branch in (0, 1):
        if deep:
            node = b.numeric(2, 0.5, missing=branch)
            b.connect(root, node, branch)
            for k in (0, 1):
                b.connect(node, b.leaf((value,)), k)
                value += 1.0
        else:
            b.connect(root, b.leaf((value,)), branch)
            value += 1.0
    return Model([b.graph], feats, task="regression")


def _wide(missing: int) -> Model:
    """``a + b - 2 c + 0 z <= 1``: the partial sum ``a + b`` overflows on (1e308, 1e308), and
    ``0 * z`` is NaN when z is infinite."""
    feats = [Feature(name=n) for n in ("a", "b", "c", "z")]
    b = TreeBuilder()
    root = b.linear((0, 1, 2, 3), (1.0, 1.0, -2.0, 0.0), 1.0, missing=missing)
    b.connect(root, b.leaf((1.0,)), 0)
    b.connect(root, b.leaf((2.0,)), 1)
    return Model([b.graph], feats, task="regression")


BIG = 1e308
WIDE_ROWS = [
    (BIG, BIG, INF, 0.0), (BIG, BIG, -INF, 0.0), (BIG, BIG, 0.0, 0.0), (-BIG, -BIG, -INF, 0.0),  # overflow
    (-BIG, -BIG, 1.0, 0.0), (BIG, -BIG, INF, 0.0),
    (0.0, 0.0, 0.0, INF), (0.0, 0.0, 0.0, -INF), (1.0, 2.0, 3.0, INF), (INF, 0.0, 0.0, -INF),  # 0 * inf
    (INF, -INF, 0.0, 0.0), (INF, 0.0, INF, 0.0), (-INF, 0.0, -INF, 0.0), (0.0, INF, -INF, 0.0),
    (INF, INF, -INF, 0.0), (NAN, 0.0, INF, 0.0), (0.0, 0.0, NAN, INF), (0.5, 0.5, 0.0, 0.0),
    (1.0, 0.5, 0.25, 7.0), (3.0, 1.0, 1.0, 0.0), (0.0, 0.0, 0.0, 0.0),
]


def _has_inf(data: pd.DataFrame) -> np.ndarray:
    return np.isinf(data.to_numpy(np.float64)).any(axis=1)


def _overflows(data: pd.DataFrame) -> np.ndarray:
    """Rows whose finite partial sums leave the double range (an error in PostgreSQL and MariaDB)."""
    X = data.to_numpy(np.float64)
    return (np.abs(X) == BIG).sum(axis=1) >= 2


DATA = pd.DataFrame(ROWS, columns=["a", "b", "c"])
WIDE = pd.DataFrame(WIDE_ROWS, columns=["a", "b", "c", "z"])
MODELS = [(m, deep) for m in (0, 1) for deep in (False, True)]
IDS = [f"missing{m}-{'deep' if deep else 'stump'}" for m, deep in MODELS]
ALL = [(_model(m, deep=deep), DATA) for m, deep in MODELS] + [(_wide(m), WIDE) for m in (0, 1)]
ALL_IDS = IDS + ["missing0-wide", "missing1-wide"]
ENGINES = ["sqlite", "duckdb", "postgres", "mysql"]
NO_INF = {"mysql": "MariaDB's DOUBLE cannot hold an infinity (the driver and the server refuse it)"}


@pytest.fixture(params=ENGINES)
def engine(request):
    name = request.param
    fixture = {"sqlite": "sqlite_conn", "duckdb": "duck_conn", "postgres": "pg_conn", "mysql": "mysql_conn"}[name]
    return name, request.getfixturevalue(fixture)


def _rows_for(eng: str, data: pd.DataFrame = DATA) -> pd.DataFrame:
    if eng in NO_INF:
        data = data[~_has_inf(data)].reset_index(drop=True)
    if eng in ("postgres", "mysql"):
        data = data[~_overflows(data)].reset_index(drop=True)
    return data


def _run(conn, eng: str, obj, data: pd.DataFrame, table: str, **options) -> None:
    sql = to_sql(obj, dialect=eng, table=table, key=KEY, **options)
    load(conn, eng, obj, data, table)
    try:
        compare(obj, data, query(conn, eng, sql), proba=False, where=f"{eng} {options}")
    finally:
        _drop(conn, eng, table)


def test_rows_cover_the_nan_sum():
    """The probe rows do produce a NaN sum in float64 (and the IR sends them to the missing side)."""
    X = DATA.to_numpy(np.float64)
    with np.errstate(invalid="ignore"):
        s = 0.3 * X[:, 0] + 1.2 * X[:, 1]
    nan_sum = np.isnan(s) & ~np.isnan(X[:, :2]).any(axis=1)
    assert nan_sum.sum() == 4
    for missing in (0, 1):
        pred = _model(missing, deep=False).predict(DATA)
        assert (pred[nan_sum] == 1.0 + missing).all()
    W = WIDE.to_numpy(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        s = ((W[:, 0] + W[:, 1]) + -2.0 * W[:, 2]) + 0.0 * W[:, 3]
    nan_sum = np.isnan(s) & ~np.isnan(W).any(axis=1)
    assert nan_sum.sum() == 9
    assert nan_sum[:2].tolist() == [True, False]  # overflow to +inf, then -inf; then +inf again


@pytest.mark.parametrize("missing,deep", MODELS, ids=IDS)
def test_model_sql_nan_sum(engine, missing, deep, unique_name):
    """Nested and flat CASE (``case_depth=1``) equal ``Model.predict`` on every row the engine holds."""
    eng, conn = engine
    model = _model(missing, deep=deep)
    data = _rows_for(eng)
    _run(conn, eng, model, data, unique_name)
    _run(conn, eng, model, data, unique_name, case_depth=1)


@pytest.mark.parametrize("k", range(len(ALL)), ids=ALL_IDS)
def test_rules_sql_nan_sum(engine, k, unique_name):
    """The rule base's SQL equals the rule engine, which equals the model, on the same rows (the sum
    is spelled by the same ``expr.linear_sum``)."""
    eng, conn = engine
    model, data = ALL[k]
    rb = rulekit.to_rules(model)
    data = _rows_for(eng, data)
    assert rb.predict(data).tolist() == model.predict(data).tolist()
    _run(conn, eng, rb, data, unique_name)


@pytest.mark.parametrize("missing,deep", MODELS, ids=IDS)
def test_python_and_onnx_nan_sum(missing, deep):
    """The Python export (scalar and table walker) and the ONNX export (double) agree with the IR."""
    model = _model(missing, deep=deep)
    want = model.predict(DATA)
    ns: dict = {}
    exec(rulekit.export.to_python(model), ns)  # noqa: S102
    got = [ns["predict"](dict(zip("abc", r))) for r in ROWS]
    assert got == want.tolist()
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(rulekit.export.to_onnx(model, dtype="double").SerializeToString())
    out = sess.run(None, {"X": DATA.to_numpy(np.float64)})[0].ravel()
    assert out.tolist() == want.tolist()


@pytest.mark.parametrize("k", range(len(ALL)), ids=ALL_IDS)
def test_rule_bases_are_the_model_on_nan_sums(k):
    """Raw and simplified path rules, the pipeline's rules and their DSL text, in the rule engine,
    the Python export and ONNX (double), all equal ``Model.predict``."""
    from rulekit.rules.extract import extract

    model, data = ALL[k]
    want = model.predict(data).tolist()
    X = data.to_numpy(np.float64)
    ort = pytest.importorskip("onnxruntime")
    for rb in (extract(model), extract(model, simplify=True), rulekit.to_rules(model)):
        text = rulekit.dsl.dumps(rb)
        back = rulekit.dsl.loads(text)
        assert rulekit.dsl.dumps(back) == text
        for obj in (rb, back):
            assert obj.predict(data).tolist() == want
        ns: dict = {}
        exec(rulekit.export.to_python(rb), ns)  # noqa: S102
        assert [ns["predict"](dict(zip(data.columns, r))) for r in X.tolist()] == want
        sess = ort.InferenceSession(rulekit.export.to_onnx(rb, dtype="double").SerializeToString())
        assert sess.run(None, {"X": X})[0].ravel().tolist() == want


def test_rules_without_nan_sums_keep_their_text():
    """A one-term oblique test cannot be NaN without a missing input: no NaN clause is added; the
    missing side of a two-term test reads as the sum's test, its missing inputs, then inf - inf."""
    b = TreeBuilder()
    root = b.linear((0,), (2.0,), 1.0, missing=0)
    b.connect(root, b.leaf((1.0,)), 0)
    b.connect(root, b.leaf((2.0,)), 1)
    one = Model([b.graph], [Feature(name="a")], task="regression")
    assert "inf" not in rulekit.dsl.dumps(rulekit.to_rules(one))
    text = rulekit.dsl.dumps(rulekit.to_rules(_model(0, deep=False)))
    assert text.endswith("r1: if 0.3*a + 1.2*b <= 4\n    or a is missing\n    or b is missing\n"
                         "    or (0.3*a >= inf and 1.2*b <= -inf)\n    or (0.3*a <= -inf and 1.2*b >= inf)\n"
                         "    then 1\nr2: if 0.3*a + 1.2*b > 4 then 2\n")


@pytest.mark.spark
@pytest.mark.slow  # a JVM: the fast lane's one Spark test is test_sql_spark's test_spark_zoo
@pytest.mark.parametrize("missing", [0, 1])
def test_spark_nan_sum(spark, missing):
    """Spark computes ``inf - inf`` as NaN (like DuckDB): the exported SQL still takes the missing side."""
    from pyspark.sql.types import DoubleType, IntegerType, StructField, StructType

    model = _model(missing, deep=True)
    fields = [StructField(KEY, IntegerType(), False)] + [
        StructField(n, DoubleType(), True) for n, _ in table_columns(model)]
    spark.createDataFrame(table_rows(model, DATA), StructType(fields)).createOrReplaceTempView("rk_nan_sum")
    for options in ({}, {"case_depth": 1}):
        sql = to_sql(model, dialect="spark", table="rk_nan_sum", key=KEY, **options)
        compare(model, DATA, [tuple(r) for r in spark.sql(sql).collect()], proba=False, where=f"spark {options}")
