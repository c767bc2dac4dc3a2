"""Folded pipelines run in every backend, compared with the scikit-learn pipeline itself.

Every case of ``test_pipeline.py`` (its probe rows: folded thresholds and neighbours, NaN,
categories, unknown ones) exported to Python (run with ``exec``), SQL (SQLite, DuckDB in the fast
lane; PostgreSQL, MariaDB in the slow lane, skipped with a reason when the server is absent) and
ONNX (onnxruntime): labels identical, probabilities and values within 1e-12 (1e-6 where the model
sums in float32, as XGBoost does).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rulekit.export import to_onnx, to_python, to_sql
from tests.exporters import test_sql_engines as sqlt
from tests.exporters.test_sql_engines import duck_conn, sqlite_conn  # noqa: F401 - fixtures
from tests.importers.test_pipeline import CASES, assert_same, folded
from tests.marks import fast_cases

NAMES = list(CASES)
FAST = ["standard_tree", "impute_mean_then_scale", "onehot_ignore_forest", "ordinal_unknown_and_missing",
        "nested_pipelines_drop_hgb", "scaler_over_encoded_columns", "sparse_maxabs", "onehot_infrequent"]


def _tol(c, model) -> float:
    if model.combiner.arithmetic == "float32":
        return 1e-6
    return c.tol


def _row(rec: dict) -> dict:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in rec.items()}


@pytest.mark.parametrize("name", fast_cases(NAMES, FAST))
def test_python_export(name):
    c, model, frame, (label, proba) = folded(name)
    ns: dict = {"__name__": "exported"}
    exec(compile(to_python(model), "<exported>", "exec"), ns)  # noqa: S102 - running the export is the test
    rows = [_row(r) for r in frame[model.feature_names].to_dict("records")]
    got = [ns["predict"](r) for r in rows]
    got_p = [ns["predict_proba"](r) for r in rows] if proba is not None else None
    assert_same(f"{name} python", label, proba, got, got_p, _tol(c, model))


@pytest.mark.parametrize("name", fast_cases(NAMES, FAST))
def test_onnx_export(name):
    ort = pytest.importorskip("onnxruntime")
    c, model, frame, (label, proba) = folded(name)
    proto = to_onnx(model)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    dtype = np.float64 if "double" in sess.get_inputs()[0].type else np.float32
    # float input (every test compares in float32) gives float32 outputs: 1e-6, as the contract says
    tol = _tol(c, model) if dtype == np.float64 else 1e-6
    out = dict(zip([o.name for o in sess.get_outputs()],
                   sess.run(None, {"X": model.matrix(frame).astype(dtype)})))
    if model.task == "regression":
        assert_same(f"{name} onnx", label, None, out["prediction"], tol=tol)
    else:
        assert_same(f"{name} onnx", label, proba, out["label"], out["probabilities"], tol)


def _sql(name, engine, conn, table):
    c, model, frame, (label, proba) = folded(name)
    with_proba = proba is not None
    sql = to_sql(model, dialect=engine, table=table, key=sqlt.KEY, proba=with_proba)
    sqlt.load(conn, engine, model, frame, table)
    try:
        rows = sorted(sqlt.query(conn, engine, sql), key=lambda r: r[0])
    finally:
        sqlt._drop(conn, engine, table)
    assert [r[0] for r in rows] == list(range(len(frame)))
    got = [r[1] for r in rows]
    if model.task == "regression":
        got = [np.nan if v is None else float(v) for v in got]
    elif isinstance(label[0], (int, np.integer)):
        got = [int(v) for v in got]
    got_p = [[float(v) for v in r[2:]] for r in rows] if with_proba else None
    assert_same(f"{name} {engine}", label, proba, got, got_p, _tol(c, model))


@pytest.mark.parametrize("name", fast_cases(NAMES, FAST))
def test_sqlite(name, sqlite_conn, unique_name):
    _sql(name, "sqlite", sqlite_conn, unique_name)


@pytest.mark.parametrize("name", fast_cases(NAMES, FAST))
def test_duckdb(name, duck_conn, unique_name):
    _sql(name, "duckdb", duck_conn, unique_name)


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.parametrize("name", NAMES)
def test_postgres(name, pg_conn, unique_name):
    _sql(name, "postgres", pg_conn, unique_name)


@pytest.mark.slow
@pytest.mark.mysql
@pytest.mark.parametrize("name", NAMES)
def test_mariadb(name, mysql_conn, unique_name):
    _sql(name, "mysql", mysql_conn, unique_name)
