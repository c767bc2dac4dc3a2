"""The routing rule (:mod:`rulekit.semantics.routing`) against a plain statement of it, and the
backends that call it (numpy evaluator, C walker, Python export, SQLite) against the same oracle.

The oracle below is written from the rule's prose, not from ``routing``: a break of ``routing``
fails these tests even though every backend calls it.
"""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.exporters.sql import to_sql
from rulekit.ir import compiled
from rulekit.ir.model import Feature, Model
from rulekit.ir.tree import TreeBuilder, validate_tree
from rulekit.semantics import routing


def oracle(edges: list[tuple[int, tuple | None]], missing: int, size: int, code: float) -> int:
    """The branch of a nominal split for one value, from the rule's prose: missing -> the missing
    branch; a code listed by edges -> the last such edge; else the "other" edge, else missing."""
    if math.isnan(code):
        return missing
    listed = [b for b, vals in edges if vals is not None and 0 <= code < size and int(code) in vals]
    if listed:
        return listed[-1]
    other = [b for b, vals in edges if vals is None]
    return other[0] if other else missing


@st.composite
def nominal_splits(draw):
    """(edges in edge order as (branch, values | None), missing branch, domain size)."""
    size = draw(st.integers(1, 7))
    n = draw(st.integers(1, 4))
    other = draw(st.one_of(st.none(), st.integers(0, n - 1)))
    branches = draw(st.permutations(range(n)))  # edge order need not be branch order
    edges = []
    for b in branches:
        if b == other:
            edges.append((b, None))
        else:
            edges.append((b, tuple(draw(st.lists(st.integers(0, size - 1), max_size=size)))))
    return edges, draw(st.integers(0, n - 1)), size


def _probe_codes(size: int) -> list[float]:
    return [float(c) for c in range(size)] + [-1.0, float(size), size + 3.0, -7.0, math.nan]


def _model(edges, missing: int, size: int) -> Model:
    """A nominal root whose leaf on branch b predicts b (regression), over labels v0..v{size-1}."""
    b = TreeBuilder()
    root = b.nominal(0, missing=missing)
    for branch, vals in edges:
        b.connect(root, b.leaf((float(branch),)), branch, values=vals)
    validate_tree(b.graph, n_features=1)
    return Model([b.graph], [Feature(name="f", kind="nominal", domain=tuple(f"v{i}" for i in range(size)))],
                 task="regression")


@settings(deadline=None)  # pure functions, but a loaded CI machine can pause one example past 200 ms
@given(nominal_splits())
def test_nominal_table_is_the_rule(split):
    edges, missing, size = split
    out = [{"branch": b, "values": v} for b, v in edges]
    table = routing.nominal_table(out, missing, size)
    assert table[:size] == [oracle(edges, missing, size, float(c)) for c in range(size)]
    assert routing.unseen_branch(table) == oracle(edges, missing, size, -1.0)
    sets = routing.codes_by_branch(table, len(edges))
    assert sorted(c for s in sets for c in s) == [routing.UNSEEN, *range(size)]  # a partition
    for b, s in enumerate(sets):
        assert s == {c for c in range(-1, size) if oracle(edges, missing, size, float(c if c >= 0 else -5)) == b}


@settings(deadline=None)
@given(nominal_splits())
def test_missing_branch_and_code_slots(split):
    edges, missing, size = split
    attrs = {"kind": "nominal", "feature": 0, "missing": missing}
    assert routing.missing_branch(attrs) == missing
    assert [routing.takes_missing(attrs, b) for b in range(len(edges))] == [b == missing for b in range(len(edges))]
    codes = np.asarray(_probe_codes(size) + [0.5, size - 0.5])
    slots, nan = routing.code_slots(codes, size)
    assert nan.tolist() == [math.isnan(c) for c in codes]
    assert [int(s) for s, m in zip(slots, nan) if not m] == [
        int(c) if 0 <= c < size else size for c in codes if not math.isnan(c)]


@settings(max_examples=60, deadline=None)
@given(nominal_splits())
def test_numpy_evaluator_follows_the_rule(split):
    edges, missing, size = split
    model = _model(edges, missing, size)
    ct = compiled.compile_tree(model.trees[0], [size], 1)
    codes = _probe_codes(size)
    leaves = compiled.apply(ct, np.asarray(codes)[:, None])
    assert ct.value[leaves, 0].tolist() == [float(oracle(edges, missing, size, c)) for c in codes]


def _labels(size: int) -> list:
    return [f"v{c}" for c in range(size)] + ["unseen", None]


def _label_oracle(edges, missing: int, size: int) -> list[float]:
    return [float(oracle(edges, missing, size, c)) for c in [*range(size), -1.0, math.nan]]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nominal_splits())
def test_python_export_follows_the_rule(split):
    edges, missing, size = split
    model = _model(edges, missing, size)
    ns: dict = {}
    exec(rulekit.export.to_python(model), ns)  # noqa: S102
    assert [ns["predict"]({"f": v}) for v in _labels(size)] == _label_oracle(edges, missing, size)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nominal_splits(), st.sampled_from([None, 1]))
def test_sqlite_export_follows_the_rule(split, case_depth):
    """Nested CASE and the flat form (``case_depth=1``: one WHEN per leaf with value sets)."""
    edges, missing, size = split
    model = _model(edges, missing, size)
    options = {} if case_depth is None else {"case_depth": case_depth}
    sql = to_sql(model, dialect="sqlite", table="t", key="k", **options)
    conn = sqlite3.connect(":memory:")
    conn.execute('CREATE TABLE t ("k" INTEGER, "f" TEXT)')
    conn.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(_labels(size))))
    got = [r[1] for r in sorted(conn.execute(sql).fetchall())]
    conn.close()
    assert got == _label_oracle(edges, missing, size)


@pytest.mark.parametrize("missing", [0, 1])
def test_c_walker_sends_nan_where_the_numpy_walker_does(missing):
    """``rulekit/_fastpath.c`` keeps its own arithmetic for numeric splits: NaN to the node's
    missing child, as :func:`routing.missing_branch` says; both walkers against that."""
    if compiled._fastpath is None:
        pytest.skip("no C accelerator built")
    b = TreeBuilder()
    root = b.numeric(0, 0.5, missing=missing)
    inner = b.numeric(1, -1.0, missing=1 - missing)
    b.connect(root, inner, 0)
    b.connect(root, b.leaf((2.0,)), 1)
    b.connect(inner, b.leaf((0.0,)), 0)
    b.connect(inner, b.leaf((1.0,)), 1)
    ct = compiled.compile_tree(b.graph, [0, 0], 1)
    X = np.asarray([[x, y] for x in (0.0, 1.0, math.nan, math.inf, -math.inf)
                    for y in (-2.0, 0.0, math.nan, math.inf)])
    want = []
    for x, y in X:
        first = routing.missing_branch(b.graph.nodes[root]) if math.isnan(x) else int(not x <= 0.5)
        if first == 1:
            want.append(2.0)
            continue
        second = routing.missing_branch(b.graph.nodes[inner]) if math.isnan(y) else int(not y <= -1.0)
        want.append(float(second))
    numpy_leaves = compiled.apply_all([ct], None, X)[0]
    c_leaves = compiled.apply_all([ct], compiled.build_forest([ct]), X)[0]
    assert ct.value[numpy_leaves, 0].tolist() == want
    assert ct.value[c_leaves, 0].tolist() == want


def test_nan_sum_is_missing():
    with np.errstate(invalid="ignore"):
        s = np.asarray([math.inf, -math.inf, 0.0]) + np.asarray([-math.inf, math.inf, math.nan])
    assert routing.sum_is_missing(np.append(s, [1.0, math.inf])).tolist() == [True, True, True, False, False]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nominal_splits(), st.sampled_from([3, 5]))
def test_onnx_export_follows_the_rule(split, opset):
    """Both TreeEnsemble encodings (opset 5 sets, opset 3 equality chains) on codes, unseen and NaN,
    including splits with a branch no value reaches (the export drops it: flatten.reachable_part)."""
    ort = pytest.importorskip("onnxruntime")
    edges, missing, size = split
    codes = _probe_codes(size)
    model = _model(edges, missing, size)
    sess = ort.InferenceSession(rulekit.export.to_onnx(model, dtype="double", opset=opset).SerializeToString())
    got = sess.run(None, {"X": np.asarray(codes)[:, None]})[0].ravel().tolist()
    assert got == [float(oracle(edges, missing, size, c)) for c in codes]
