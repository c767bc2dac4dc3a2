"""rulekit's own ONNX exports read back: every zoo model (oblique splits too: their weights and
bounds come from the graph's constants), exported with double input (opsets 5 and 3) and float input, comes back predicting what the
original model predicts (double: within 1e-12, labels equal; float: the file's float32 leaf
weights, within 1e-6) and what onnxruntime computes from the file, with the same trees."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")

import rulekit
from rulekit.importers.onnx_trees import OnnxModelError
from tests import zoo
from tests.marks import fast_cases

OBLIQUE = ("handmade_linear", "learned_cart_subset_oblique", "learned_regressor_oblique")
NAMES = zoo.zoo_names()
FAST = NAMES[::3]


def _export(model, dtype, opset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rulekit.export.to_onnx(model, dtype=dtype, opset=opset, warn=False)


def _ort(proto, X):
    so = ort.SessionOptions()
    so.log_severity_level = 3
    s = ort.InferenceSession(proto.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, {"X": X})


@pytest.mark.parametrize("name", fast_cases(NAMES, FAST))
@pytest.mark.parametrize("dtype, opset", [("double", 5), ("double", 3), ("float", 5)])
def test_export_reimported_is_the_same_model(name, dtype, opset):
    model, data = zoo.get(name)
    proto = _export(model, dtype, opset)
    back = rulekit.from_onnx(proto.SerializeToString())
    assert len(back.trees) == len(model.trees)
    assert back.feature_names == model.feature_names and back.classes == model.classes
    assert back.combiner == model.combiner
    tol = 1e-12 if dtype == "double" else 1e-6
    if dtype == "float":  # the file's input: numeric columns rounded to float32
        data = data.copy()
        for f in model.features:
            if f.kind == "numeric":
                data[f.name] = data[f.name].astype(np.float32).astype(np.float64)
    codes = model.matrix(data)  # onnxruntime reads nominal features as category codes
    out = _ort(proto, codes.astype(np.float32 if dtype == "float" else np.float64))
    if model.task == "regression":
        ours, ref = back.predict(data), model.predict(data)
        scale = max(1.0, float(np.abs(ref).max()))
        np.testing.assert_allclose(ours, ref, rtol=0, atol=tol * scale)
        np.testing.assert_allclose(ours, np.asarray(out[0], np.float64).reshape(-1), rtol=0, atol=tol * scale)
        return
    assert np.array_equal(back.predict(data), model.predict(data))
    assert np.array_equal(back.predict(data), np.asarray(out[0]).reshape(-1))
    np.testing.assert_allclose(back.predict_proba(data), model.predict_proba(data), rtol=0, atol=tol)
    np.testing.assert_allclose(back.predict_proba(data), out[1], rtol=0, atol=tol)


def test_oblique_constants_missing_are_refused():
    model, _ = zoo.get(OBLIQUE[0])
    proto = _export(model, "double", 5)
    keep = [t for t in proto.graph.initializer if not t.name.startswith("bound_")]
    del proto.graph.initializer[:]
    proto.graph.initializer.extend(keep)
    with pytest.raises(OnnxModelError, match="oblique-test constants are incomplete"):
        rulekit.from_onnx(proto)


def test_rule_base_export_is_refused_with_the_way_out():
    model, _ = zoo.get("sklearn_tree_binary")
    rb = rulekit.to_rules(model)
    with pytest.raises(OnnxModelError, match="import the rules file"):
        rulekit.from_onnx(_export(rb, "double", 5))
