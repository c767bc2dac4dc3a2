"""Issue #20: the default ONNX export of a scikit-learn forest labels every row as scikit-learn does,
at any onnxruntime thread count. The forests are built for exact ties (small integer features, noisy
labels, unpruned trees without bootstrap): scikit-learn's float64 sums decide a tie by their rounding,
which a float32 sum (``accumulate="float"``) or onnxruntime's multi-threaded merge of partial sums
(the operator's own double sum, ``accumulate="double"``) do not reproduce. Rows: the integer grid,
every threshold with its float32/float64 neighbours, NaN rows; features carry hostile names."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.slow  # 100-tree forests, ~29,000 rows, several sessions: ~60 s on a loaded machine

import rulekit
from rulekit.probe import probe_rows
from tests.zoo import HOSTILE_NAMES


def _ort(proto, X: np.ndarray, threads: int):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    s = ort.InferenceSession(proto.SerializeToString(), so, providers=["CPUExecutionProvider"])
    t = np.float32 if s.get_inputs()[0].type == "tensor(float)" else np.float64
    label, proba = s.run(["label", "probabilities"], {"X": X.astype(t)})
    return np.asarray(label), np.asarray(proba)


@pytest.fixture(scope="module", params=[2, 3], ids=["binary", "3-class"])
def forest(request):
    from sklearn.ensemble import RandomForestClassifier

    classes = request.param
    rng = np.random.default_rng(7 + classes)
    X = pd.DataFrame(rng.integers(0, 6, size=(600, 4)).astype(np.float64), columns=HOSTILE_NAMES[:4])
    y = (X.iloc[:, 0] + X.iloc[:, 1] + rng.integers(0, 3, size=600)).to_numpy() % classes
    est = RandomForestClassifier(100, bootstrap=False, random_state=0, n_jobs=1).fit(X, y)
    model = rulekit.from_sklearn(est)
    grid = np.array(list(itertools.product(range(-1, 7), repeat=4)), np.float64)
    rows = probe_rows(model, grid, n_missing=100).astype(np.float32).astype(np.float64)
    T = np.vstack([rows] + [grid] * 6)  # repeated grid: big batches make onnxruntime split the trees
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, pw = est.predict(pd.DataFrame(T, columns=X.columns)), est.predict_proba(pd.DataFrame(T, columns=X.columns))
    return model, T, want, pw


def test_the_rows_tie(forest):
    """The data means something: the operator's own sums (float32, or double merged from two
    threads' partial sums) label some rows otherwise."""
    model, T, want, _ = forest
    assert np.isnan(T).any()
    assert np.array_equal(model.predict(T), want)
    flips = [(_ort(rulekit.export.to_onnx(model, accumulate=acc), T, threads)[0] != want).sum()
             for acc, threads in (("float", 1), ("float", 2), ("double", 2))]
    assert sum(flips) > 0, flips


@pytest.mark.parametrize("threads", [1, 2, 0], ids=["1-thread", "2-threads", "default-threads"])
def test_default_float_export_labels_as_sklearn(forest, threads):
    model, T, want, pw = forest
    proto = rulekit.export.to_onnx(model)
    assert proto.graph.input[0].type.tensor_type.elem_type == 1  # float input: exact for these trees
    label, proba = _ort(proto, T, threads)
    assert np.array_equal(label, want)
    assert np.abs(proba - pw).max() <= 2**-24  # double sums, rounded once to the float32 output


@pytest.mark.parametrize("threads", [1, 2], ids=["1-thread", "2-threads"])
def test_double_export_equals_sklearn(forest, threads):
    model, T, want, pw = forest
    label, proba = _ort(rulekit.export.to_onnx(model, dtype="double"), T, threads)
    assert np.array_equal(label, want)
    assert np.abs(proba - pw).max() <= 1e-12
