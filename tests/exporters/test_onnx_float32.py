"""ONNX of XGBoost models with ``arithmetic="float32"``: checked against XGBoost itself on threshold,
float32-neighbour and NaN rows, default dtype and double input, opsets 5 and 3. Regression values
bit-identical; probabilities bit-identical to the IR (hence within one float32 ulp of XGBoost)."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.export import to_onnx
from rulekit.importers.xgboost import from_xgboost
from rulekit.probe import probe_rows

xgb = pytest.importorskip("xgboost")
ort = pytest.importorskip("onnxruntime")

OBJECTIVES = {"binary": ("binary:logistic", {}), "multi": ("multi:softprob", {"num_class": 3}),
              "reg": ("reg:squarederror", {"num_parallel_tree": 2})}


@pytest.fixture(scope="module")
def cases():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(500, 4)) * [1.0, 3.0, 0.01, 100.0]
    X[rng.random(X.shape) < 0.08] = np.nan
    a, b = np.nan_to_num(X[:, 0]), np.nan_to_num(X[:, 1])
    ys = {"binary": (a + b * b / 9 > 0.7).astype(int), "multi": np.abs(a * 2).astype(int) % 3,
          "reg": a * 300.0 + 1000.0 * b ** 2 + 1e4}
    out = {}
    for kind, (objective, extra) in OBJECTIVES.items():
        booster = xgb.train({"objective": objective, "max_depth": 4, "eta": 0.3, "nthread": 1, **extra},
                            xgb.DMatrix(X, label=ys[kind]), 30)
        model = from_xgboost(booster, arithmetic="float32")
        rows = probe_rows(model, X[:150], n_missing=80)
        out[kind] = (booster, model, rows, booster.predict(xgb.DMatrix(rows)).reshape(len(rows), -1))
    return out


def _run(proto, rows):
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    dtype = np.float32 if sess.get_inputs()[0].type == "tensor(float)" else np.float64
    return sess.run(None, {"X": rows.astype(dtype)})


@pytest.mark.parametrize("opset", [5, 3])
@pytest.mark.parametrize("dtype", ["auto", "double"])
@pytest.mark.parametrize("kind", list(OBJECTIVES))
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
