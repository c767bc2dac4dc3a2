"""ONNX of XGBoost models with ``arithmetic="float32"``: checked against XGBoost itself on threshold,
float32-neighbour and NaN rows, default dtype and double input, opsets 5 and 3. Regression values
bit-identical; probabilities bit-identical to the IR (hence within one float32 ulp of XGBoost)."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.export import to_onnx
from rulekit.importers.xgboost import from_xgboost
from tests import xgb_float32

xgb = pytest.importorskip("xgboost")
ort = pytest.importorskip("onnxruntime")



@pytest.fixture(scope="module")
def cases():
    return xgb_float32.cases(seed=11, n_rows=500, rounds=30, probe=150, n_missing=80, reg_parallel_trees=2)


def _run(proto, rows):
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    dtype = np.float32 if sess.get_inputs()[0].type == "tensor(float)" else np.float64
    return sess.run(None, {"X": rows.astype(dtype)})


@pytest.mark.parametrize("opset", [5, 3])
@pytest.mark.parametrize("dtype", ["auto", "double"])
@pytest.mark.parametrize("kind", list(xgb_float32.OBJECTIVES))
def test_onnx_equals_xgboost(cases, kind, dtype, opset):
    _, model, rows, want = cases[kind]
    out = _run(to_onnx(model, dtype=dtype, opset=opset), rows)
    if kind == "reg":
        assert np.array_equal(out[0].astype(np.float64), want[:, 0].astype(np.float64))
        return
    got = out[1].astype(np.float64)
    assert np.array_equal(got, model.predict_proba(rows))
    want = want if kind == "multi" else np.column_stack([1 - want[:, 0], want[:, 0]])
    ulp = np.spacing(want.astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(got - want) <= ulp)
    assert np.array_equal(out[0], model.predict(rows))


def test_float64_model_onnx_is_not_bit_identical(cases):
    """The same booster imported with float64 sums misses XGBoost's regression values in ONNX."""
    booster, _, rows, want = cases["reg"]
    out = _run(to_onnx(from_xgboost(booster, arithmetic="float64"), dtype="double"), rows)
    assert not np.array_equal(out[0], want[:, 0].astype(np.float64))
