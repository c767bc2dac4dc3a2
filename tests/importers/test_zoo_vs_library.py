"""Every zoo model converted from a library equals that library on the zoo's own rows (issue 20).

The engine suites (tests/exporters) check every backend against the rulekit model on exactly these
frames (threshold rows, float neighbours, NaN rows, unseen categories, hostile names), so together
with this file every backend is compared with the source library itself: labels equal, values within
1e-12 (XGBoost: margins bit-identical in float32, probabilities within 1e-6 as float32 outputs).
"""

import numpy as np
import pandas as pd
import pytest

from tests import zoo

TOL = 1e-12
NAMES = [n for n in zoo.zoo_names(kinds=("sklearn_tree", "sklearn_forest", "sklearn_extratrees",
                                         "xgboost_", "lightgbm_", "catboost_",
                                         "sklearn_pipeline"))]
ONNX_NAMES = zoo.zoo_names(kinds=("onnx_",))


def _estimator(name):
    model, data = zoo.get(name)
    est = zoo.SKLEARN_ESTIMATORS.get(name) or zoo.FOREIGN_ESTIMATORS.get(name)
    assert est is not None, f"{name}: the zoo did not record its estimator"
    return model, data, est


def library_input(model, data: pd.DataFrame, est):
    """The zoo frame as the library reads it: numbers as float64, category columns as pandas
    categories with the training categories (an unseen label becomes NaN there, which the library
    routes as it routes an unseen category)."""
    frame = {}
    if "sklearn.pipeline" in type(est).__module__:
        return data  # the pipeline reads the user-facing frame (labels, None, NaN) itself
    if "catboost" in type(est).__module__:  # CatBoost has no missing category: rulekit routes a
        nominal = [f.name for f in model.features if f.kind == "nominal"]  # missing one as unseen
        return data.assign(**{c: data[c].where(data[c].notna(), "__missing__") for c in nominal})
    for f in model.features:
        col = data[f.name]
        if f.kind == "nominal" and isinstance(f.domain[0], str):
            frame[f.name] = pd.Categorical(col.where(col.isin(f.domain)), categories=list(f.domain))
        else:
            frame[f.name] = pd.to_numeric(col, errors="coerce").astype(np.float64)
    X = pd.DataFrame(frame)
    if getattr(est, "feature_names_in_", None) is None and "lightgbm" not in type(est).__module__ \
            and "xgboost" not in type(est).__module__:
        return X.to_numpy(dtype=np.float64)
    return X


@pytest.mark.parametrize("name", NAMES)
def test_zoo_model_equals_its_library(name):
    pytest.importorskip("xgboost" if name.startswith("xgboost") else
                        "lightgbm" if name.startswith("lightgbm") else
                        "catboost" if name.startswith("catboost") else "sklearn")
    model, data, est = _estimator(name)
    X = library_input(model, data, est)
    if model.task == "regression":
        want = est.predict(X)
        got = np.asarray(model.predict(data), dtype=np.float64)
        assert np.abs(got - want).max() <= TOL * max(1.0, np.abs(want).max())
        return
    want_labels = np.asarray(est.predict(X)).ravel()  # CatBoost returns a column
    got_labels = model.predict(data)
    assert [str(v) for v in got_labels] == [str(v) for v in want_labels]
    P, Q = model.predict_proba(data), est.predict_proba(X)
    tol = 1e-6 if name.startswith("xgboost") else TOL
    assert P.shape == Q.shape and np.abs(P - Q).max() <= tol
    if name.startswith("xgboost"):  # the margins themselves are XGBoost's bits
        import xgboost as xgb

        margin = est.get_booster().predict(xgb.DMatrix(X), output_margin=True)
        raw = np.asarray(model.raw_output(data)).reshape(margin.shape)
        assert np.array_equal(raw.astype(np.float32), margin.astype(np.float32))


def test_the_zoo_rows_hold_threshold_nan_and_neighbour_rows():
    """The frames these comparisons use are the probe rows (not just training rows)."""
    model, data, _ = _estimator("sklearn_tree_binary")
    assert data.isna().any(axis=1).sum() >= 30 and len(data) > 300


@pytest.mark.parametrize("name", ONNX_NAMES)
def test_zoo_onnx_model_equals_onnxruntime(name):
    """The ONNX-imported zoo entries equal onnxruntime on the zoo rows (float32 inputs: labels
    equal, probabilities within 1e-6)."""
    ort = pytest.importorskip("onnxruntime")
    model, data = zoo.get(name)
    proto = zoo.ONNX_PROTOS[name]
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    X = data.to_numpy(dtype=np.float32)
    label, proba = sess.run(None, {sess.get_inputs()[0].name: X})[:2]
    assert np.array_equal(np.asarray(model.predict(data)), np.asarray(label).reshape(-1))
    assert np.abs(model.predict_proba(data) - np.asarray(proba, np.float64)).max() <= 1e-6


def test_zoo_spark_directory_model_follows_spark_semantics():
    """No JVM in the zoo: the hand-written Spark tree is checked against Spark's rules as measured in
    tests/importers/test_spark_import.py (``<=`` inclusive, NaN right on numbers; most categories
    go left, so Spark tests 'not in {2, 4}' and NaN/unseen categories go left)."""
    pytest.importorskip("pyarrow")
    model, data = zoo.get("spark_dir_categorical")
    f0 = pd.to_numeric(data["f0"], errors="coerce").to_numpy(np.float64)
    f1 = data["f1"]
    right_set = f1.isin([2, 4]).to_numpy()
    want = np.where(right_set, 30.125, np.where(f0 <= 0.5, 10.25, -20.5))
    assert (~right_set).sum() > 30 and right_set.sum() > 30 and np.isnan(f0).sum() > 10
    assert np.array_equal(np.asarray(model.predict(data), np.float64), want)


def _pmml_reference(data: pd.DataFrame) -> np.ndarray:
    """The hand-written PMML read by its spec: a missing value enters the node's defaultChild."""
    x = pd.to_numeric(data["it's \"x\""], errors="coerce").to_numpy(np.float64)
    colour = data["colour"]
    low = np.where(colour.isna(), -2.75, np.where(colour.isin(["red", "blue"]), -2.75, 4.125))
    return np.where(np.isnan(x) | (x > 0.25), 8.5, low)


def test_zoo_pmml_model_follows_the_pmml_missing_value_strategy():
    model, data = zoo.get("pmml_defaultchild_hostile")
    x = pd.to_numeric(data["it's \"x\""], errors="coerce")
    assert x.isna().sum() > 10 and data["colour"].isna().sum() > 10 and (x == 0.25).any()
    assert np.array_equal(np.asarray(model.predict(data), np.float64), _pmml_reference(data))


@pytest.mark.slow
def test_zoo_pmml_model_equals_jpmml_evaluator():
    """JPMML-Evaluator scores the same document on the zoo rows (rows with a value outside the
    DataDictionary are left out: JPMML treats them as invalid)."""
    from tests.exporters.test_pmml_export import jpmml_score

    model, data = zoo.get("pmml_defaultchild_hostile")
    known = data["colour"].isna() | data["colour"].isin(["red", "green", "blue"])
    frame = data[known].reset_index(drop=True)
    result = jpmml_score(zoo.PMML_TEXTS["pmml_defaultchild_hostile"], frame)
    want = pd.to_numeric(result.iloc[:, 0]).to_numpy(np.float64)
    assert len(frame) > 150
    assert np.array_equal(np.asarray(model.predict(frame), np.float64), want)
