"""Rule bases extracted from XGBoost models with ``arithmetic="float32"``: the rule engine sums and
links in float32 like the model (regression values bit-identical to XGBoost on threshold,
float32-neighbour and NaN rows), the rules text keeps ``arithmetic float32``, and the Python, DuckDB
and ONNX exports of the rule base agree with it bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import rulekit
from rulekit.runtimes import runner
from tests import xgb_float32

xgb = pytest.importorskip("xgboost")



@pytest.fixture(scope="module")
def cases():
    return {kind: (model, rulekit.to_rules(model), rows, want) for kind, (_, model, rows, want)
            in xgb_float32.cases(seed=3, n_rows=400, rounds=25, depth=3, probe=100, n_missing=50).items()}


@pytest.mark.parametrize("kind", list(xgb_float32.OBJECTIVES))
def test_rule_engine_equals_model_and_xgboost(cases, kind):
    model, rb, rows, want = cases[kind]
    assert rb.combiner.arithmetic == "float32"
    if kind == "reg":
        assert np.array_equal(rb.predict(rows), want[:, 0])
        return
    assert np.array_equal(rb.predict_proba(rows), model.predict_proba(rows))
    assert list(rb.predict(rows)) == list(model.predict(rows))


@pytest.mark.parametrize("kind", list(xgb_float32.OBJECTIVES))
def test_rules_text_keeps_arithmetic(cases, kind):
    _, rb, rows, _ = cases[kind]
    text = rulekit.dsl.dumps(rb)
    assert " arithmetic float32" in text
    back = rulekit.dsl.loads(text)
    assert back.combiner.arithmetic == "float32"
    got = back.predict(rows) if kind == "reg" else back.predict_proba(rows)
    want = rb.predict(rows) if kind == "reg" else rb.predict_proba(rows)
    assert np.array_equal(got, want)


def test_arithmetic_needs_a_sum_combiner(cases):
    text = rulekit.dsl.dumps(cases["binary"][1])
    bad = text.replace("combiner sum link sigmoid", "combiner vote", 1)
    assert bad != text
    with pytest.raises(rulekit.RulekitError, match="arithmetic float32' applies to sum and average combiners only"):
        rulekit.dsl.loads(bad)


@pytest.mark.parametrize("backend", ["python", "python-batch", "duckdb", "onnx", "onnx-double"])
@pytest.mark.parametrize("kind", list(xgb_float32.OBJECTIVES))
def test_rule_base_exports_equal_engine(cases, kind, backend):
    _, rb, rows, _ = cases[kind]
    out = runner(backend)(rb, {f.name: rows[:, j] for j, f in enumerate(rb.features)})
    if kind == "reg":
        assert np.array_equal(out.prediction.astype(np.float64), rb.predict(rows))
        return
    assert np.array_equal(out.proba, rb.predict_proba(rows))
    assert [str(v) for v in out.prediction] == [str(v) for v in rb.predict(rows)]
