"""XGBoost's float32 sums reproduced (``arithmetic="float32"``), checked against XGBoost itself on
threshold, float32-neighbour and NaN rows: margins and regression values bit-identical,
probabilities within one float32 ulp (XGBoost's ``expf`` against exp rounded to float32)."""

from __future__ import annotations

import numpy as np
import pytest

import rulekit
from rulekit.importers.xgboost import from_xgboost
from rulekit.ir.modelfile import dumps_model, loads_model
from rulekit.probe import probe_rows

xgb = pytest.importorskip("xgboost")

OBJECTIVES = {"binary": ("binary:logistic", {}), "multi": ("multi:softprob", {"num_class": 3}),
              "reg": ("reg:squarederror", {})}


def _data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(600, 5)) * [1.0, 3.0, 0.01, 100.0, 1.0]
    X[rng.random(X.shape) < 0.08] = np.nan
    a, b = np.nan_to_num(X[:, 0]), np.nan_to_num(X[:, 1])
    return X, {"binary": (a + b * b / 9 > 0.7).astype(int), "multi": (np.abs(a * 2).astype(int) % 3),
               "reg": a * 300.0 + 1000.0 * b ** 2 + 1e4}


@pytest.fixture(scope="module")
def cases():
    X, ys = _data()
    out = {}
    for kind, (objective, extra) in OBJECTIVES.items():
        booster = xgb.train({"objective": objective, "max_depth": 4, "eta": 0.3, "nthread": 1, **extra},
                            xgb.DMatrix(X, label=ys[kind]), 40)
        model = from_xgboost(booster, arithmetic="float32")
        rows = probe_rows(model, X[:200], n_missing=100)
        out[kind] = (booster, model, rows)
    return out


def _xgb(booster, rows, **kw):
    return booster.predict(xgb.DMatrix(rows), **kw).reshape(len(rows), -1)


@pytest.mark.parametrize("kind", list(OBJECTIVES))
def test_margins_bit_identical(cases, kind):
    booster, model, rows = cases[kind]
    want = _xgb(booster, rows, output_margin=True)
    got = model.raw_output(rows)
    assert np.array_equal(got, want.astype(np.float64)), np.abs(got - want).max()


def test_regression_values_bit_identical(cases):
    booster, model, rows = cases["reg"]
    assert np.array_equal(model.predict(rows), _xgb(booster, rows)[:, 0].astype(np.float64))


@pytest.mark.parametrize("kind", ["binary", "multi"])
def test_probabilities_within_one_float32_ulp(cases, kind):
    booster, model, rows = cases[kind]
    want = _xgb(booster, rows)
    got = model.predict_proba(rows)
    got = got[:, 1:] if kind == "binary" else got
    ulp = np.spacing(want.astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(got - want) <= ulp)
    assert np.mean(got == want) > 0.99  # exp rounded to float32 differs from expf on ~1 in 13,000
    labels = (want[:, 0] > 0.5).astype(int) if kind == "binary" else np.argmax(want, axis=1)
    assert np.array_equal(model.predict(rows), labels)


def test_float64_sums_are_not_bit_identical(cases):
    """float64 sums (the old default) are measurably off: what the float32 combiner fixes."""
    booster, _, rows = cases["reg"]
    assert not np.array_equal(from_xgboost(booster, arithmetic="float64").predict(rows),
                              _xgb(booster, rows)[:, 0])


def test_float32_is_the_default(cases):
    booster, model, rows = cases["reg"]
    assert from_xgboost(booster).combiner.arithmetic == "float32"
    assert np.array_equal(from_xgboost(booster).predict(rows), _xgb(booster, rows)[:, 0])


def test_model_file_keeps_arithmetic_and_versions_it(cases):
    _, model, rows = cases["multi"]
    text = dumps_model(model)
    assert '"version":2' in text and '"arithmetic":"float32"' in text
    back = loads_model(text)
    assert back.combiner.arithmetic == "float32"
    assert np.array_equal(back.predict_proba(rows), model.predict_proba(rows))
    plain = dumps_model(from_xgboost(cases["multi"][0], arithmetic="float64"))
    assert '"version":1' in plain and "arithmetic" not in plain


def test_arithmetic_needs_a_sum_combiner():
    with pytest.raises(rulekit.RulekitError, match="arithmetic"):
        rulekit.Model([rulekit.ir.TreeBuilder().graph], ["x"], task="regression",
                      combiner=rulekit.Combiner(kind="average", arithmetic="float32"))


def _module(model, form):
    from rulekit.exporters.python import to_python

    ns: dict = {}
    exec(compile(to_python(model, form=form), "<xgb32>", "exec"), ns)
    return ns


@pytest.mark.parametrize("form", ["nested", "table"])
@pytest.mark.parametrize("kind", list(OBJECTIVES))
def test_python_export_equals_xgboost(cases, kind, form):
    """Per-row and batch functions: margins' outputs bit-identical to the IR (hence XGBoost's
    regression values), on threshold, float32-neighbour and NaN rows."""
    booster, model, rows = cases[kind]
    ns = _module(model, form)
    rows = rows[::3]
    if kind == "reg":
        want = _xgb(booster, rows)[:, 0].astype(np.float64)
        assert np.array_equal(ns["predict_batch"](rows), want)
        assert [ns["predict"](list(r)) for r in rows] == want.tolist()
        return
    want = model.predict_proba(rows)
    assert np.array_equal(ns["predict_proba_batch"](rows), want)
    assert np.array_equal(np.array([ns["predict_proba"](list(r)) for r in rows]), want)
    assert list(ns["predict_batch"](rows)) == list(model.predict(rows))


def test_public_api_passes_arithmetic(cases):
    booster, _, rows = cases["reg"]
    model = rulekit.from_xgboost(booster, arithmetic="float32")
    assert np.array_equal(model.predict(rows), _xgb(booster, rows)[:, 0].astype(np.float64))
