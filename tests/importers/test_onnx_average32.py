"""Float-input skl2onnx forests: onnxruntime's TreeEnsembleClassifier adds the file's float32 weights
``float32(p / n)`` in tree order in float, so the IR imports them as ``average`` with
``arithmetic="float32"`` and every backend that has a 4-byte float reproduces onnxruntime bit for
bit (one thread). The data is built for ties: small integer features and noisy labels, so unpruned
trees keep mixed leaves and many rows' real probabilities tie; a float64 average labels some of
them otherwise (checked below, so the data keeps meaning something). Rows: training rows, every
threshold with its float32/float64 neighbours, NaN rows; SQL columns carry hostile names."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("skl2onnx")

import rulekit
from rulekit.exporters.sql import to_sql
from rulekit.ir.model import Model
from rulekit.ir.schema import Feature
from rulekit.probe import probe_rows
from tests.exporters.test_sql_engines import KEY, _drop, duck_conn, engine, load, query, sqlite_conn  # noqa: F401
from tests.zoo import HOSTILE_NAMES

N_TREES = 100


def _ort(proto, X: np.ndarray, threads: int = 1):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    s = ort.InferenceSession(proto.SerializeToString(), so, providers=["CPUExecutionProvider"])
    label, proba = s.run(None, {s.get_inputs()[0].name: X})
    return np.asarray(label), np.asarray(proba)


def _forest(classes: int, n_trees: int = N_TREES, n_rows: int = 2000):
    """(skl2onnx proto with float input, probe rows as float32) for a tie-heavy unpruned forest."""
    from skl2onnx import to_onnx
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(7 + classes)
    X = rng.integers(0, 6, size=(600, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, size=600)) % classes
    # no bootstrap: every tree sees every (duplicated, mixed-label) row, so leaves hold fractions
    est = RandomForestClassifier(n_trees, bootstrap=False, random_state=0, n_jobs=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proto = to_onnx(est, X[:1], options={"zipmap": False})
    model = rulekit.from_onnx(proto)
    T = np.vstack([X[:150], rng.integers(0, 6, size=(n_rows, 4)).astype(np.float32)])
    P = probe_rows(model, T.astype(np.float64), n_missing=100).astype(np.float32)
    return proto, P


@pytest.fixture(scope="module", params=[2, pytest.param(3, marks=pytest.mark.slow)], ids=["binary", "3-class"])
def forest(request):
    proto, P = _forest(request.param)
    label, proba = _ort(proto, P)
    return proto, rulekit.from_onnx(proto), P, label, proba


@pytest.fixture(scope="module", params=[2, pytest.param(3, marks=pytest.mark.slow)], ids=["binary", "3-class"])
def small(request):
    """A 20-tree forest on fewer rows for the SQL engines (a 100-tree unpruned query takes minutes
    on a loaded machine); same construction, still bit-identical or not."""
    proto, P = _forest(request.param, n_trees=20, n_rows=300)
    label, proba = _ort(proto, P)
    return proto, rulekit.from_onnx(proto), P, label, proba


def test_import_equals_onnxruntime_bit_for_bit(forest):
    proto, model, P, label, proba = forest
    assert model.combiner.kind == "average" and model.combiner.arithmetic == "float32"
    assert np.isnan(P).any() and len(P) > 2000
    X = P.astype(np.float64)
    assert np.array_equal(model.predict(X), label)
    assert np.array_equal(model.predict_proba(X), proba.astype(np.float64))
    # the rows this is about: a float64 average of the same leaves labels some ties otherwise
    n = len(model.trees)
    mean64 = sum(v for v in model.tree_values(model.matrix(X))) / n
    if model.n_classes == 2:
        mean64[:, 0] = 1.0 - mean64[:, 1]
    assert (model.label_array()[np.argmax(mean64, axis=1)] != label).sum() > 0


@pytest.mark.slow
def test_model_file_and_rules_text_keep_the_arithmetic(small, tmp_path):
    _, model, P, label, proba = small
    model.save(tmp_path / "m.json")
    again = rulekit.load(tmp_path / "m.json")
    assert again.combiner == model.combiner
    rb = rulekit.dsl.loads(rulekit.dsl.dumps(rulekit.to_rules(model)))
    assert rb.combiner.arithmetic == "float32"
    X = P.astype(np.float64)
    assert np.array_equal(rb.predict(X), label)
    assert np.array_equal(rb.predict_proba(X), proba.astype(np.float64))


@pytest.mark.parametrize("form", ["nested", pytest.param("table", marks=pytest.mark.slow)])
def test_python_export_equals_onnxruntime(forest, form):
    _, model, P, label, proba = forest
    _python_equals(rulekit.export.to_python(model, form=form), P, label, proba)


@pytest.mark.slow
def test_python_export_of_the_rules_equals_onnxruntime(small):
    _, model, P, label, proba = small
    _python_equals(rulekit.export.to_python(rulekit.to_rules(model)), P, label, proba)


def _python_equals(src: str, P, label, proba) -> None:
    ns: dict = {}
    exec(src, ns)  # noqa: S102 - our own generated module
    X = P.astype(np.float64)
    assert np.array_equal(np.asarray(ns["predict_batch"](X)), label)
    assert np.array_equal(np.asarray(ns["predict_proba_batch"](X)), proba.astype(np.float64))
    rows = [[None if v != v else v for v in r] for r in X[::3].tolist()]
    assert [ns["predict"](r) for r in rows] == label[::3].tolist()
    assert np.array_equal(np.array([ns["predict_proba"](r) for r in rows]), proba[::3].astype(np.float64))


@pytest.mark.parametrize("dtype,opset", [("float", 3), pytest.param("double", 5, marks=pytest.mark.slow)])
def test_onnx_export_equals_onnxruntime(forest, dtype, opset):
    """Also with two threads: the export adds the trees in a Scan, not in the operator's own sum."""
    _, model, P, label, proba = forest
    out = rulekit.export.to_onnx(model, dtype=dtype, opset=opset)
    X = P if dtype == "float" else P.astype(np.float64)
    for threads in (1, 2):
        got_label, got_proba = _ort(out, X, threads)
        assert np.array_equal(got_label, label)
        assert np.array_equal(got_proba.astype(np.float32), proba) and got_proba.dtype == X.dtype
    again = rulekit.from_onnx(out)
    assert again.combiner == model.combiner
    assert np.array_equal(again.predict_proba(P.astype(np.float64)), proba.astype(np.float64))


def _hostile(model: Model) -> Model:
    names = HOSTILE_NAMES[:model.n_features]
    return Model(model.trees, [Feature(name=n) for n in names], task=model.task, classes=model.classes,
                 combiner=model.combiner)


@pytest.mark.parametrize("bare", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["select", "bare"])
def test_sql_equals_onnxruntime(engine, small, bare, unique_name):
    """DuckDB, PostgreSQL, MariaDB: bit-identical. SQLite averages in float64 (no 4-byte float): its
    header says so, probabilities within the stated bound, labels may differ on tie rows."""
    eng, conn = engine
    _, model, P, label, proba = small
    model = _hostile(model)
    data = pd.DataFrame({f.name: P[:, j].astype(np.float64) for j, f in enumerate(model.features)})
    sql = (f"SELECT {KEY}, {to_sql(model, dialect=eng)} AS p FROM {unique_name}" if bare
           else to_sql(model, dialect=eng, table=unique_name, key=KEY, proba=True))
    load(conn, eng, model, data, unique_name)
    try:
        rows = sorted(query(conn, eng, sql), key=lambda r: r[0])
    finally:
        _drop(conn, eng, unique_name)
    got_label = np.array([int(r[1]) for r in rows])
    got = None if bare else np.array([[float(v) for v in r[2:]] for r in rows])
    if eng == "sqlite":
        if not bare:
            assert sql.startswith("/* onnxruntime sums this forest's probabilities in float32; sqlite")
            assert np.abs(got - proba).max() <= (len(model.trees) + 2) * 2.0 ** -24
        return
    assert np.array_equal(got_label, label)
    if not bare:
        assert np.array_equal(got, proba.astype(np.float64))


@pytest.mark.spark
@pytest.mark.slow
def test_spark_sql_equals_onnxruntime(spark, small):
    from tests.exporters.test_sql_spark import _view

    _, model, P, label, proba = small
    model = _hostile(model)
    data = pd.DataFrame({f.name: P[:, j].astype(np.float64) for j, f in enumerate(model.features)})
    _view(spark, model, data, "rk_avg32")
    for sql in (to_sql(model, dialect="spark", table="rk_avg32", key=KEY, proba=True),
                f"SELECT `{KEY}`, {to_sql(model, dialect='spark')} AS p FROM rk_avg32"):
        rows = sorted((tuple(r) for r in spark.sql(sql).collect()), key=lambda r: r[0])
        assert np.array_equal(np.array([int(r[1]) for r in rows]), label)
        if len(rows[0]) > 2:
            assert np.array_equal(np.array([[float(v) for v in r[2:]] for r in rows]), proba.astype(np.float64))


@pytest.mark.slow
def test_default_float_onnx_of_a_sklearn_forest_keeps_its_labels_on_ties():
    """Issue #20: a scikit-learn forest averages in float64 (combiner without float32 arithmetic);
    its default float-input ONNX export sums in double (``accumulate="auto"``), so tie rows keep
    scikit-learn's label (a float32 sum labelled 4 of 5,000 rows otherwise)."""
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(9)
    X = rng.integers(0, 6, size=(600, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, size=600)) % 2
    est = RandomForestClassifier(N_TREES, bootstrap=False, random_state=0, n_jobs=1).fit(X, y)
    model = rulekit.from_sklearn(est)
    T = rng.integers(0, 6, size=(5000, 4)).astype(np.float32)
    want = est.predict(T)
    assert np.array_equal(model.predict(T.astype(np.float64)), want)
    label, proba = _ort(rulekit.export.to_onnx(model), T)
    assert np.array_equal(label, want)
    assert np.abs(proba - est.predict_proba(T)).max() <= 1e-6
    forced, _ = _ort(rulekit.export.to_onnx(model, accumulate="float"), T)
    assert (forced != want).sum() > 0  # the rows this is about
