"""The combiner rule (:mod:`rulekit.semantics.combiners`) tested directly and against every backend.

Directly: random reductions (hypothesis) against a scalar oracle written here from the sources'
definitions (tree order, float32 rounding after each addition, ties to the first class). Then
small ensembles of stumps, one per combiner form, built so that rows land on exact ties (float32
averages at 0.5, tied votes, raw score 0 under a decision rule): the tree evaluator, the rule
engine, the Python module, SQLite's SELECT and onnxruntime must give the reference's labels and
probabilities from each tree's leaf values.
"""

from __future__ import annotations

import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder
from rulekit.semantics import combiners

from tests.marks import lane_examples

F32 = np.float32


# --- the rule on its own -------------------------------------------------------------------------------


def _oracle(kind, f32, base, outputs, values, width):
    """Scalar reference of ``aggregate`` for one row: ``values[t]`` is tree t's leaf value."""
    n = len(values)
    if kind == "sum":
        acc = [F32(b) if f32 else float(b) for b in base]
        for t, v in enumerate(values):
            k = outputs[t]
            acc[k] = F32(acc[k] + F32(v[0])) if f32 else acc[k] + v[0]
        return [float(a) for a in acc]
    if kind == "vote":
        acc = [0.0] * width
        for v in values:
            acc[max(range(width), key=lambda j: (v[j], -j))] += 1.0
        return [a / n for a in acc]
    if f32:  # average of float32(v / n) in float32, two classes [1 - s, s]
        acc = [F32(0)] * width
        for v in values:
            acc = [F32(a + F32(x / n)) for a, x in zip(acc, v)]
        if width == 2:
            acc[0] = F32(F32(1) - acc[1])
        return [float(a) for a in acc]
    acc = [0.0] * width
    for v in values:
        acc = [a + x for a, x in zip(acc, v)]
    return [a / n for a in acc] if kind == "average" else acc


leaf_numbers = st.one_of(st.sampled_from([0.0, 0.5, 0.25, 1 / 3, 2 / 3, 1.0, -1.0, 0.1, 0.2, 0.3]),
                         st.floats(-4, 4, allow_nan=False, width=32))


@st.composite
def cases(draw):
    kind = draw(st.sampled_from(["single", "average", "vote", "sum"]))
    f32 = kind in ("average", "sum") and draw(st.booleans())
    n_trees = 1 if kind == "single" else draw(st.integers(1, 7))
    if kind == "sum":
        width = draw(st.integers(1, 3))
        base = tuple(draw(st.lists(leaf_numbers, min_size=width, max_size=width)))
        outputs = tuple(draw(st.lists(st.integers(0, width - 1), min_size=n_trees, max_size=n_trees)))
        size = 1
        c = Combiner(kind="sum", base_score=base, link="identity" if width == 1 else "softmax",
                     tree_output=outputs, arithmetic="float32" if f32 else None)
    else:
        width = size = draw(st.integers(2, 4))
        base, outputs = (), ()
        c = Combiner(kind=kind, arithmetic="float32" if f32 else None)
    rows = draw(st.integers(1, 4))
    values = [[tuple(draw(st.lists(leaf_numbers, min_size=size, max_size=size))) for _ in range(n_trees)]
              for _ in range(rows)]
    return c, kind, f32, base, outputs, values, width, size


@settings(max_examples=lane_examples(300), deadline=None)
@given(cases())
def test_aggregate_equals_the_scalar_oracle(case):
    c, kind, f32, base, outputs, values, width, size = case
    n_trees = len(values[0])
    red = combiners.reduction(c, n_trees, task="classification" if kind != "sum" else "regression",
                              value_size=size)
    per_tree = [np.array([row[t] for row in values], dtype=np.float64) for t in range(n_trees)]
    got = combiners.aggregate(red, iter(per_tree), len(values))
    want = np.array([_oracle(kind, f32, base, outputs, row, width) for row in values])
    assert got.shape == want.shape
    assert np.array_equal(got, want), (got, want)


@settings(max_examples=lane_examples(200), deadline=None)
@given(cases())
def test_leaf_terms_sum_to_the_reference(case):
    """What each backend adds per leaf (``leaf_terms``), added in tree order, gives ``aggregate``."""
    c, kind, f32, base, outputs, values, width, size = case
    n_trees = len(values[0])
    red = combiners.reduction(c, n_trees, task="regression" if kind == "sum" else "classification",
                              value_size=size)
    ref = combiners.aggregate(red, (np.array([row[t] for row in values]) for t in range(n_trees)), len(values))
    for r, row in enumerate(values):
        acc = [F32(b) for b in red.base] if red.float32 else [float(b) for b in red.base] or [0.0] * red.width
        if red.float32 and not red.base:
            acc = [F32(0)] * red.width
        for t, v in enumerate(row):
            for k, vals in combiners.leaf_terms(red, t, [v]):
                slot = k if red.kind == "sum" or red.link != "complement" else 1
                acc[slot] = F32(acc[slot] + F32(vals[0])) if red.float32 else acc[slot] + vals[0]
        if red.link == "complement":
            acc[0] = F32(F32(1) - acc[1])
        if red.scale == "end":
            acc = [a / n_trees for a in acc]
        assert [float(a) for a in acc] == ref[r].tolist()


def test_float32_average_tie_labels_the_first_class():
    """Two trees of [0.5, 0.5]: float32 s1 = 0.25 + 0.25 = 0.5 and 1 - s1 = 0.5: a tie, class 0."""
    red = combiners.reduction(Combiner(kind="average", arithmetic="float32"), 2, task="classification",
                              value_size=2)
    assert red.link == "complement" and red.summed == (1,)
    raw = combiners.aggregate(red, iter([np.array([[0.5, 0.5]]), np.array([[0.5, 0.5]])]), 1)
    assert raw.tolist() == [[0.5, 0.5]]
    assert combiners.label_index(red, raw).tolist() == [0]
    # 1/3 + 1/3 + 1/3 of class 1 in float32 is not 1 - (float32 sum of class 0): the complement decides
    red3 = combiners.reduction(Combiner(kind="average", arithmetic="float32"), 3, task="classification",
                               value_size=2)
    v = np.array([[2 / 3, 1 / 3]])
    raw = combiners.aggregate(red3, iter([v, v, v]), 1)
    s1 = F32(F32(F32(F32(1 / 9) + F32(1 / 9))) + F32(1 / 9))
    assert raw[0, 1] == float(s1) and raw[0, 0] == float(F32(1) - s1)


def test_vote_ties():
    """A leaf votes for its first largest value; tied votes label the first class."""
    red = combiners.reduction(Combiner(kind="vote"), 2, task="classification", value_size=3)
    assert combiners.vote_of((0.2, 0.4, 0.4)) == 1
    a, b = np.array([[0.2, 0.4, 0.4]]), np.array([[0.5, 0.0, 0.5]])
    raw = combiners.aggregate(red, iter([a, b]), 1)
    assert raw.tolist() == [[0.5, 0.5, 0.0]]
    assert combiners.label_index(red, raw).tolist() == [0]


@pytest.mark.parametrize("decision, want", [("raw>=0", 1), ("raw>0", 0), (None, 0)])
def test_decision_at_a_raw_score_of_zero(decision, want):
    red = combiners.reduction(Combiner(kind="sum", base_score=(0.0,), link="sigmoid", decision=decision), 1,
                              task="classification", value_size=1)
    raw = np.zeros((1, 1))
    proba = combiners.probabilities(red, raw)
    assert proba.tolist() == [[0.5, 0.5]]
    assert combiners.label_index(red, raw, proba).tolist() == [want]


# --- the rule in every backend -------------------------------------------------------------------------

# thresholds of the stumps (tree t splits at CUTS[t % 4]); rows hit every side, the cuts and NaN
CUTS = [0.0, 1.0, -1.0, 0.5]
XS = [-2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 3.0, float("nan")]


def _stump(t: int, left, right, missing: int = 0):
    b = TreeBuilder()
    root = b.numeric(0, CUTS[t % 4], missing=missing)
    b.connect(root, b.leaf(left), 0)
    b.connect(root, b.leaf(right), 1)
    return b.graph


def _ensemble(pairs, combiner, task, classes=None):
    if combiner.kind == "sum" and combiner.arithmetic == "float32":  # XGBoost's leaves are float32
        pairs = [tuple(tuple(float(F32(v)) for v in leaf) for leaf in pair) for pair in pairs]
    trees = [_stump(t, left, right, missing=t % 2) for t, (left, right) in enumerate(pairs)]
    return Model(trees, [Feature(name="x")], task=task, classes=classes, combiner=combiner)


def _models() -> dict[str, Model]:
    cls2, cls3 = ["no", "yes"], ["a", "b", "c"]
    return {
        "average": _ensemble([((0.2, 0.3, 0.5), (0.5, 0.5, 0.0)), ((0.1, 0.1, 0.8), (0.3, 0.3, 0.4)),
                              ((0.6, 0.2, 0.2), (0.2, 0.6, 0.2))], Combiner(kind="average"),
                             "classification", cls3),
        "average-f32": _ensemble([((0.5, 0.5), (0.9, 0.1)), ((0.5, 0.5), (1 / 3, 2 / 3))],
                                 Combiner(kind="average", arithmetic="float32"), "classification", cls2),
        "vote": _ensemble([((0.4, 0.4, 0.2), (0.1, 0.2, 0.7)), ((0.2, 0.8, 0.0), (0.5, 0.0, 0.5))],
                          Combiner(kind="vote"), "classification", cls3),
        "sigmoid-raw>=0": _ensemble([((-0.5,), (0.25,)), ((0.5,), (-0.25,))],
                                    Combiner(kind="sum", base_score=(0.0,), link="sigmoid", decision="raw>=0"),
                                    "classification", cls2),
        "sigmoid-raw>0": _ensemble([((-0.5,), (0.25,)), ((0.5,), (-0.25,))],
                                   Combiner(kind="sum", base_score=(0.0,), link="sigmoid", decision="raw>0"),
                                   "classification", cls2),
        "softmax": _ensemble([((0.5,), (-0.5,)), ((0.25,), (0.5,)), ((1.0,), (-1.0,)), ((0.5,), (0.5,))],
                             Combiner(kind="sum", base_score=(0.1, 0.2, 0.1), link="softmax",
                                      tree_output=(0, 1, 2, 0)), "classification", cls3),
        "sigmoid-f32": _ensemble([((-0.3,), (0.7,)), ((0.1,), (-0.4,)), ((0.2,), (0.3,))],
                                 Combiner(kind="sum", base_score=(0.5,), link="sigmoid", arithmetic="float32"),
                                 "classification", cls2),
        "sigmoid-f32-raw>0": _ensemble([((2.0 ** -30,), (-0.25,)), ((0.0,), (0.25,))],
                                       Combiner(kind="sum", base_score=(0.0,), link="sigmoid", arithmetic="float32",
                                                decision="raw>0"), "classification", cls2),
        "softmax-f32": _ensemble([((0.3,), (-0.7,)), ((0.1,), (0.4,)), ((0.2,), (0.3,))],
                                 Combiner(kind="sum", base_score=(0.5, 0.5, 0.5), link="softmax",
                                          tree_output=(0, 1, 2), arithmetic="float32"), "classification", cls3),
        "regression-sum": _ensemble([((0.1,), (0.2,)), ((0.3,), (-0.7,)), ((1e-17,), (2.5,))],
                                    Combiner(kind="sum", base_score=(0.5,)), "regression"),
        "regression-sum-f32": _ensemble([((0.1,), (0.2,)), ((0.3,), (-0.7,)), ((1e-9,), (2.5,))],
                                        Combiner(kind="sum", base_score=(0.5,), arithmetic="float32"), "regression"),
        "regression-average": _ensemble([((0.1,), (0.2,)), ((0.3,), (-0.7,)), ((1.0,), (2.5,))],
                                        Combiner(kind="average"), "regression"),
    }


MODELS = _models()


def _reference(model: Model, M: np.ndarray):
    """Labels (or values) and probabilities from the rule, fed each tree's leaf values."""
    red = combiners.reduction(model.combiner, len(model.trees), task=model.task,
                              value_size=model.leaf_value_size)
    raw = combiners.aggregate(red, model.tree_values(M), M.shape[0])
    if model.task == "regression":
        return raw[:, 0], None
    proba = combiners.probabilities(red, raw)
    return np.asarray(model.classes, dtype=object)[combiners.label_index(red, raw, proba)], proba


def _data() -> pd.DataFrame:
    return pd.DataFrame({"x": XS})


def _check(model: Model, labels, proba, *, tol: float = 0.0) -> None:
    want_labels, want_proba = _reference(model, model.matrix(_data()))
    if model.task == "regression":
        assert np.allclose(np.asarray(labels, float), want_labels, rtol=0, atol=tol) if tol else \
            np.asarray(labels, float).tolist() == want_labels.tolist()
        return
    assert [str(x) for x in labels] == [str(x) for x in want_labels]
    if proba is not None:
        got = np.asarray(proba, float)
        assert np.allclose(got, want_proba, rtol=0, atol=tol) if tol else got.tolist() == want_proba.tolist()


def test_the_forms_hit_ties():
    """The fixture models reach the ties this file is about (else the backend tests prove less)."""
    M = MODELS["average-f32"].matrix(_data())
    assert (MODELS["average-f32"].predict_proba(M)[:, 0] == 0.5).any()
    raw = MODELS["sigmoid-raw>0"].raw_output(_data())
    assert (raw[:, 0] == 0.0).any()
    m = MODELS["sigmoid-f32-raw>0"]  # raw > 0 but float32 probabilities tie: the decision decides
    raw, proba = m.raw_output(_data()), m.predict_proba(_data())
    assert ((raw[:, 0] > 0) & (proba[:, 0] == proba[:, 1])).any()
    vote = MODELS["vote"].predict_proba(_data())
    assert (vote[:, 0] == vote[:, 1]).any()


@pytest.mark.parametrize("name", list(MODELS))
def test_tree_evaluator(name):
    m = MODELS[name]
    _check(m, m.predict(_data()), m.predict_proba(_data()) if m.task == "classification" else None)


@pytest.mark.parametrize("name", list(MODELS))
def test_rule_engine(name):
    m = MODELS[name]
    rb = rulekit.to_rules(m)
    _check(m, rb.predict(_data()), rb.predict_proba(_data()) if m.task == "classification" else None)


@pytest.mark.parametrize("form", ["nested", "table"])
@pytest.mark.parametrize("name", list(MODELS))
def test_python_module(name, form):
    from rulekit.exporters.python.model import model_to_python

    m = MODELS[name]
    ns: dict = {}
    exec(compile(model_to_python(m, form=form), "<combiner>", "exec"), ns)
    rows = [[x] for x in XS]
    labels = [ns["predict"](r) for r in rows]
    proba = [ns["predict_proba"](r) for r in rows] if m.task == "classification" else None
    _check(m, labels, proba)
    if m.task == "classification":
        _check(m, ns["predict_batch"](np.array(rows)), ns["predict_proba_batch"](np.array(rows)))
    else:
        _check(m, ns["predict_batch"](np.array(rows)), None)


@pytest.mark.parametrize("name", list(MODELS))
def test_sqlite_select(name):
    from rulekit.export import to_sql

    m = MODELS[name]
    cls = m.task == "classification"
    conn = sqlite3.connect(":memory:")
    conn.execute('CREATE TABLE t (k INTEGER, x DOUBLE)')
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, None if x != x else x) for i, x in enumerate(XS)])
    rows = sorted(conn.execute(to_sql(m, dialect="sqlite", table="t", key="k", proba=cls)).fetchall())
    conn.close()
    # SQLite has no float32: an XGBoost-arithmetic model is summed in float64 there (stated in its header)
    tol = 1e-6 if m.combiner.arithmetic == "float32" else 0.0
    _check(m, [r[1] for r in rows], [r[2:] for r in rows] if cls else None, tol=tol)


@pytest.mark.parametrize("name", list(MODELS))
def test_duckdb_select(name):
    """DuckDB has a 4-byte float: float32 combiners are summed and linked in float32 there."""
    duckdb = pytest.importorskip("duckdb")
    from rulekit.export import to_sql

    m = MODELS[name]
    cls = m.task == "classification"
    conn = duckdb.connect()
    conn.execute("CREATE TABLE t (k INTEGER, x DOUBLE)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, None if x != x else x) for i, x in enumerate(XS)])
    rows = sorted(conn.execute(to_sql(m, dialect="duckdb", table="t", key="k", proba=cls)).fetchall())
    conn.close()
    _check(m, [r[1] for r in rows], [r[2:] for r in rows] if cls else None,
           tol=1e-15 if m.combiner.link == "softmax" and m.combiner.arithmetic is None else 0.0)


@pytest.mark.parametrize("name", list(MODELS))
def test_onnxruntime(name):
    """sigmoid-f32-raw>0: the float32 graph labels by the raw-score decision (exporters/onnx/float32.py
    labelled it by the float32 probabilities before 2026-11-24)."""
    ort = pytest.importorskip("onnxruntime")
    from rulekit.export import to_onnx

    m = MODELS[name]
    proto = to_onnx(m, dtype="double")
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    X = np.array([[x] for x in XS])
    out = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"X": X})))
    if m.task == "regression":
        _check(m, out["prediction"], None)
        return
    labels = out["label"]
    if labels.dtype.kind in "iu":  # classes as indexes into CLASSES (labels that are not a range)
        labels = [m.classes[int(i)] for i in labels]
    _check(m, labels, out["probabilities"], tol=1e-15 if m.combiner.link == "softmax" else 0.0)


@pytest.mark.parametrize("opset", [3, 5])
@pytest.mark.parametrize("name", ["sigmoid-f32", "sigmoid-f32-raw>0", "softmax-f32", "regression-sum-f32"])
def test_onnxruntime_float_input(name, opset):
    """Float32 sums with float32 input: the same float32 graph (the stumps' cuts 0, 1, -1, 0.5 and
    the rows are float32-exact), so the reference's labels, the raw-score decision included."""
    ort = pytest.importorskip("onnxruntime")
    from rulekit.export import to_onnx

    m = MODELS[name]
    with warnings.catch_warnings():  # the stumps compare in float64: float input warns (exact here)
        warnings.simplefilter("ignore")
        proto = to_onnx(m, dtype="float", opset=opset)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    out = dict(zip([o.name for o in sess.get_outputs()],
                   sess.run(None, {"X": np.array([[x] for x in XS], np.float32)})))
    if m.task == "regression":
        _check(m, out["prediction"], None)
        return
    _check(m, out["label"], out["probabilities"])


# --- the same rule in the rule-base exports (rules grouped by tree, combined by the model's combiner) ---

def _rules_of(name: str):
    rb = _RULES.get(name)
    if rb is None:
        rb = _RULES[name] = rulekit.to_rules(MODELS[name])
    return rb


_RULES: dict = {}


@pytest.mark.parametrize("name", list(MODELS))
def test_python_rule_base_module(name):
    """sigmoid-f32-raw>0: a float32 sum labelled by its raw-score decision (raw > 0 while the
    float32 probabilities tie); the runtime labelled it by the probabilities before 2026-11-24."""
    from rulekit.export import to_python

    m, rb = MODELS[name], _rules_of(name)
    ns: dict = {}
    exec(compile(to_python(rb), "<combiner rules>", "exec"), ns)
    rows = [[x] for x in XS]
    cls = m.task == "classification"
    _check(m, [ns["predict"](r) for r in rows], [ns["predict_proba"](r) for r in rows] if cls else None)
    _check(m, ns["predict_batch"](np.array(rows)), ns["predict_proba_batch"](np.array(rows)) if cls else None)


@pytest.mark.parametrize("name", list(MODELS))
def test_duckdb_rule_base_select(name):
    duckdb = pytest.importorskip("duckdb")
    from rulekit.export import to_sql

    m, rb = MODELS[name], _rules_of(name)
    cls = m.task == "classification"
    conn = duckdb.connect()
    conn.execute("CREATE TABLE t (k INTEGER, x DOUBLE)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, None if x != x else x) for i, x in enumerate(XS)])
    rows = sorted(conn.execute(to_sql(rb, dialect="duckdb", table="t", key="k", proba=cls)).fetchall())
    conn.close()
    _check(m, [r[1] for r in rows], [r[2:] for r in rows] if cls else None,
           tol=1e-15 if m.combiner.link == "softmax" and m.combiner.arithmetic is None else 0.0)


@pytest.mark.parametrize("name", list(MODELS))
def test_onnxruntime_rule_base(name):
    """The rule export's float32 sums labelled by a raw-score decision, float32 averages summed in
    float32 and float64 sums added from the base in tree order (each an xfail before 2026-11-24)."""
    ort = pytest.importorskip("onnxruntime")
    from rulekit.export import to_onnx

    m, rb = MODELS[name], _rules_of(name)
    sess = ort.InferenceSession(to_onnx(rb, dtype="double").SerializeToString(),
                                providers=["CPUExecutionProvider"])
    out = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"X": np.array([[x] for x in XS])})))
    if m.task == "regression":
        _check(m, out["prediction"], None)
        return
    labels = out["label"]
    if labels.dtype.kind in "iu":
        labels = [m.classes[int(i)] for i in labels]
    _check(m, labels, out["probabilities"], tol=1e-15 if m.combiner.link == "softmax" else 0.0)
