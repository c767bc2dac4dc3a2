"""ONNX import of what converters write: skl2onnx (trees, forests, extra trees, gradient boosting,
hist gradient boosting; classifiers and regressors), onnxmltools (XGBoost, LightGBM) and CatBoost's
own ONNX export, against onnxruntime running the same file on threshold rows, their float32
neighbours and NaN rows. Labels equal on every row; values bit-identical where the IR sums in
float32 like the float operator (boosting, regression), probabilities within 1e-6 otherwise."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("sklearn")

import rulekit
from rulekit.cli import main
from rulekit.probe import probe_rows
from tests.marks import fast_cases

N_FEATURES = 5


def _data(classes: int, seed: int = 0, n: int = 400, nan: bool = False):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, N_FEATURES)) * [1, 3, 10, 0.5, 100], 2)
    score = X[:, 0] + np.sin(X[:, 1]) + (X[:, 2] > 0)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1])) if classes else \
        score * 10 + X[:, 3]
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X.astype(np.float32), y


def _skl2onnx(est, X):
    from skl2onnx import to_onnx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return to_onnx(est, X[:1])


def _onnxmltools(est, kind):
    import onnxmltools
    from onnxmltools.convert.common.data_types import FloatTensorType

    convert = {"xgboost": onnxmltools.convert_xgboost, "lightgbm": onnxmltools.convert_lightgbm}[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return convert(est, initial_types=[("input", FloatTensorType([None, N_FEATURES]))], target_opset=15)


def _catboost(est, tmp_path):
    import onnx

    path = tmp_path / "cb.onnx"
    est.save_model(str(path), format="onnx")
    return onnx.load(str(path))


def _case(name: str, tmp_path):
    """(fitted estimator's ONNX proto, training X) for a case name."""
    from sklearn import ensemble, tree

    classes = 3 if name.endswith("-3") else 0 if name.endswith("-reg") else 2
    kind = name.rsplit("-", 1)[0]
    nan = kind in ("sk-tree", "sk-forest", "sk-hgb", "xgb", "lgb", "cb")
    X, y = _data(classes, nan=nan)
    reg = classes == 0
    if kind.startswith("sk-"):
        est = {
            "sk-tree": tree.DecisionTreeRegressor(max_depth=6) if reg else tree.DecisionTreeClassifier(max_depth=6),
            "sk-forest": ensemble.RandomForestRegressor(10, max_depth=5, random_state=0) if reg
            else ensemble.RandomForestClassifier(10, max_depth=5, random_state=0),
            "sk-extra": ensemble.ExtraTreesRegressor(10, max_depth=5, random_state=0) if reg
            else ensemble.ExtraTreesClassifier(10, max_depth=5, random_state=0),
            "sk-gb": ensemble.GradientBoostingRegressor(n_estimators=15, max_depth=3) if reg
            else ensemble.GradientBoostingClassifier(n_estimators=15, max_depth=3),
            "sk-hgb": ensemble.HistGradientBoostingRegressor(max_iter=15, max_depth=4) if reg
            else ensemble.HistGradientBoostingClassifier(max_iter=15, max_depth=4),
        }[kind]
        return _skl2onnx(est.fit(X, y), X), X
    if kind == "xgb":
        xgb = pytest.importorskip("xgboost")
        pytest.importorskip("onnxmltools")
        est = (xgb.XGBRegressor if reg else xgb.XGBClassifier)(n_estimators=15, max_depth=3)
        return _onnxmltools(est.fit(X, y), "xgboost"), X
    if kind == "lgb":
        lgb = pytest.importorskip("lightgbm")
        pytest.importorskip("onnxmltools")
        est = (lgb.LGBMRegressor if reg else lgb.LGBMClassifier)(n_estimators=15, max_depth=3, verbose=-1)
        return _onnxmltools(est.fit(X, y), "lightgbm"), X
    cb = pytest.importorskip("catboost")
    est = (cb.CatBoostRegressor if reg else cb.CatBoostClassifier)(iterations=15, depth=3, verbose=0,
                                                                    allow_writing_files=False)
    return _catboost(est.fit(X, y), tmp_path), X


CASES = [f"{k}-{c}" for k in ("sk-tree", "sk-forest", "sk-extra", "sk-gb", "sk-hgb", "xgb", "lgb", "cb")
         for c in ("2", "3", "reg")]


def _ort(proto, P):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    s = ort.InferenceSession(proto.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, {s.get_inputs()[0].name: P})


def _probe(model, X) -> np.ndarray:
    """Training rows, each threshold with its float32/float64 neighbours, and NaN rows, as float32
    (the file's input type)."""
    P = probe_rows(model, X[:100].astype(np.float64), n_missing=100)
    return P.astype(np.float32)


def assert_same_as_onnxruntime(proto, model, P) -> None:
    out = _ort(proto, P)
    X = P.astype(np.float64)
    if model.task == "regression":
        ref = np.asarray(out[0], np.float64).reshape(-1)
        ours = model.predict(X)
        if model.combiner.kind in ("sum", "single"):
            assert np.array_equal(ours, ref), np.max(np.abs(ours - ref))
        else:  # averages: onnxruntime divides a float32 sum
            np.testing.assert_allclose(ours, ref, rtol=1e-6, atol=1e-6)
        return
    label = np.asarray(out[0]).reshape(-1)
    proba = out[1]
    if isinstance(proba, list):  # ZipMap
        proba = np.array([[row[c] for c in model.classes] for row in proba])
    assert np.array_equal(model.predict(X), label), int(np.sum(model.predict(X) != label))
    np.testing.assert_allclose(model.predict_proba(X), np.asarray(proba, np.float64), rtol=0, atol=1e-6)


@pytest.mark.parametrize("case", fast_cases(CASES, ["sk-tree-3", "sk-forest-2", "sk-gb-3", "sk-hgb-2", "xgb-2",
                                                    "lgb-3", "cb-2", "sk-extra-reg"]))
def test_converter_output_agrees_with_onnxruntime(case, tmp_path):
    proto, X = _case(case, tmp_path)
    model = rulekit.from_onnx(proto)
    P = _probe(model, X)
    assert len(P) > 200
    assert_same_as_onnxruntime(proto, model, P)


def test_float_operator_sums_are_float32(tmp_path):
    """Boosting read from a float operator sums in float32 as onnxruntime does: the margins are
    bit-identical (a float64 sum is not, on some rows)."""
    proto, X = _case("sk-gb-reg", tmp_path)
    model = rulekit.from_onnx(proto)
    assert model.combiner.arithmetic == "float32"
    P = _probe(model, X)
    ref = np.asarray(_ort(proto, P)[0], np.float64).reshape(-1)
    assert np.array_equal(model.predict(P.astype(np.float64)), ref)


@pytest.mark.parametrize("case", fast_cases(["xgb-3", "sk-forest-2", "cb-2", "lgb-reg"], ["xgb-3", "sk-forest-2", "cb-2"]))
def test_cli_import_then_predict_and_exports_agree(tmp_path, capsys, case):
    """``rulekit import x.onnx`` (format sniffed) writes a model whose Python and SQLite exports
    give onnxruntime's labels and probabilities (values)."""
    import sqlite3

    import onnx

    proto, X = _case(case, tmp_path)
    path = tmp_path / "m.onnx"
    onnx.save(proto, str(path))
    out = tmp_path / "m.json"
    with pytest.raises(SystemExit) as exit_:
        main(["import", str(path), "-o", str(out), "-q"])
    assert exit_.value.code == 0
    model = rulekit.load(out)
    P = _probe(model, X)
    if model.task == "regression":
        _values_agree(model, proto, P)
        return
    label, proba = _ort(proto, P)
    proba = np.array([[row[c] for c in model.classes] for row in proba]) if isinstance(proba, list) else proba
    ns: dict = {}
    exec(rulekit.export.to_python(model), ns)  # noqa: S102 - our own generated module
    rows = P.astype(np.float64).tolist()
    py_labels = [ns["predict"]([None if v != v else v for v in r]) for r in rows]
    assert py_labels == label.tolist()
    py_proba = np.array([ns["predict_proba"]([None if v != v else v for v in r]) for r in rows])
    np.testing.assert_allclose(py_proba, proba, rtol=0, atol=1e-6)
    con = sqlite3.connect(":memory:")
    names = model.feature_names
    con.execute(f"CREATE TABLE t (id INTEGER, {', '.join(f'{n} REAL' for n in names)})")
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * (len(names) + 1))})",
                    [[i] + [None if v != v else v for v in r] for i, r in enumerate(rows)])
    sql = rulekit.export.to_sql(model, dialect="sqlite", table="t", key="id", proba=True)
    got = con.execute(sql).fetchall()
    got.sort(key=lambda r: r[0])
    assert [r[1] for r in got] == label.tolist()
    # SQLite sums in float64 (no 4-byte float): within XGBoost's stated float32 bound, not bit for bit
    np.testing.assert_allclose(np.array([r[2:] for r in got]), proba, rtol=0, atol=1e-6)


def test_forest_tie_rows_keep_onnxruntime_labels():
    """A 10-tree forest of pure leaves writes weights float32(0.1); five of them sum to exactly 0.5
    in onnxruntime's float sum, a tie it labels class 0. Leaves read back as float32(10 * w) = 1.0
    keep that tie (10 * w in float64 gave 0.50000000745 and class 1 on 1,826 of 20,000 rows)."""
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 4)).astype(np.float32)
    y = ((X[:, 0] + rng.normal(size=3000)) > 0).astype(int)
    proto = _skl2onnx(RandomForestClassifier(10, random_state=0, n_jobs=1).fit(X, y), X)
    T = rng.normal(size=(5000, 4)).astype(np.float32)
    label, proba = _ort(proto, T)
    proba = np.array([[row[c] for c in (0, 1)] for row in proba])
    assert np.sum(proba[:, 1] == 0.5) > 100  # the rows this is about
    model = rulekit.from_onnx(proto)
    assert np.array_equal(model.predict(T.astype(np.float64)), label)


def _with_argmax_label(proto, classes, axis: int = 1):
    """``proto`` plus a label output ``classes[argmax(probabilities)]`` as converters write it."""
    from onnx import TensorProto, helper, numpy_helper

    g = proto.graph
    ens = next(n for n in g.node if n.op_type == "TreeEnsembleClassifier")
    g.initializer.extend([numpy_helper.from_array(np.asarray(classes, np.int64), "label_list"),
                          numpy_helper.from_array(np.array([-1], np.int64), "flat")])
    g.node.extend([helper.make_node("ArgMax", [ens.output[1]], ["best"], axis=axis, name="argmax"),
                   helper.make_node("ArrayFeatureExtractor", ["label_list", "best"], ["picked"],
                                    domain="ai.onnx.ml", name="pick"),
                   helper.make_node("Reshape", ["picked", "flat"], ["argmax_label"], name="flatten")])
    g.output.append(helper.make_tensor_value_info("argmax_label", TensorProto.INT64, ["N"]))
    return proto


def test_argmax_label_output_is_read_as_the_ir_label():
    from skl2onnx import to_onnx
    from sklearn.ensemble import RandomForestClassifier

    X, y = _data(3)
    est = RandomForestClassifier(5, max_depth=4, random_state=0).fit(X, y * 7)
    proto = _with_argmax_label(to_onnx(est, X[:1], options={"zipmap": False}), [0, 7, 14])
    model = rulekit.from_onnx(proto)
    P = _probe(model, X)
    out = _ort(proto, P)
    assert np.array_equal(model.predict(P.astype(np.float64)), out[2])


def test_argmax_over_another_axis_is_refused():
    from skl2onnx import to_onnx
    from sklearn.tree import DecisionTreeClassifier

    from rulekit.errors import RulekitError

    X, y = _data(3)
    proto = to_onnx(DecisionTreeClassifier(max_depth=3).fit(X, y), X[:1], options={"zipmap": False})
    with pytest.raises(RulekitError, match="node 'argmax' \\(ArgMax\\)"):
        rulekit.from_onnx(_with_argmax_label(proto, [0, 1, 2], axis=0))


@pytest.mark.parametrize("regression", [False, True], ids=["classifier", "regressor"])
def test_lightgbm_categorical_equality_chains(regression):
    """onnxmltools writes a LightGBM categorical split as a BRANCH_EQ chain whose links share one
    true child: it becomes one set split on a nominal feature (integer domain, exact match), so
    1.5, -1, 8 and NaN are unseen as in onnxruntime. Values bit-identical to onnxruntime on one
    thread (its multi-threaded float sums merge partial sums: 1 ulp off its own result on ~13%
    of rows)."""
    lgb = pytest.importorskip("lightgbm")
    pytest.importorskip("onnxmltools")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, N_FEATURES))
    X[:, 0] = rng.integers(0, 8, 2000)
    y = ((X[:, 0] % 3 == 0) ^ (X[:, 1] > 0)).astype(int)
    cls = lgb.LGBMRegressor if regression else lgb.LGBMClassifier
    est = cls(n_estimators=10, max_depth=3, verbose=-1, min_data_per_group=5, cat_smooth=1)
    proto = _onnxmltools(est.fit(X, y, categorical_feature=[0]), "lightgbm")
    assert "BRANCH_EQ" in str(proto.graph.node[0])
    model = rulekit.from_onnx(proto)
    assert model.features[0].kind == "nominal" and model.features[0].match == "exact"
    P = _probe(model, X.astype(np.float32))
    P[::7, 0] = np.array([1.5, -1, 8, np.nan, 3, 6, 0], np.float32)[np.arange(len(P[::7])) % 7]
    assert_same_as_onnxruntime(proto, model, P)


def _values_agree(model, proto, P) -> None:
    """A regressor's Python export is bit-identical to onnxruntime (float32 sums); SQLite sums in
    float64 (no 4-byte float), within 1e-6 of the largest value."""
    import sqlite3

    ref = np.asarray(_ort(proto, P)[0], np.float64).reshape(-1)
    rows = [[None if np.isnan(v) else float(v) for v in r] for r in P.astype(np.float64)]
    ns: dict = {}
    exec(rulekit.export.to_python(model), ns)  # noqa: S102 - our own generated module
    assert np.array_equal(np.array([ns["predict"](r) for r in rows]), ref)
    con = sqlite3.connect(":memory:")
    names = model.feature_names
    con.execute(f"CREATE TABLE t (id INTEGER, {', '.join(f'{n} REAL' for n in names)})")
    con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * (len(names) + 1))})",
                    [[i, *r] for i, r in enumerate(rows)])
    got = sorted(con.execute(rulekit.export.to_sql(model, dialect="sqlite", table="t", key="id")).fetchall())
    # float32 rounding is relative to the partial sums, not to the result (they cancel)
    np.testing.assert_allclose([g[1] for g in got], ref, rtol=0, atol=1e-6 * max(1.0, np.abs(ref).max()))
