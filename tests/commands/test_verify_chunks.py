"""`verify` on SQLite in chunks (rulekit/commands/verify_chunks.py): the chunked outcome equals the
whole statement's outcome exactly, and a row routed to the wrong chunk cannot pass."""

from __future__ import annotations

import numpy as np
import pytest

import rulekit
from rulekit import runtimes
from rulekit.commands import verify, verify_chunks
from rulekit.table import from_matrix

sklearn_tree = pytest.importorskip("sklearn.tree")


def _model(task: str, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(4000, 5))
    X[::11, 3] = np.nan
    if task == "classification":
        y = ((X[:, 0] + np.nan_to_num(X[:, 3]) > 0) ^ (rng.random(4000) < 0.2)).astype(int) + (X[:, 1] > 1)
        est = sklearn_tree.DecisionTreeClassifier(max_leaf_nodes=400, random_state=seed)
    else:
        y = X[:, 0] * 3 + rng.normal(size=4000)
        est = sklearn_tree.DecisionTreeRegressor(max_leaf_nodes=400, random_state=seed)
    return rulekit.from_sklearn(est.fit(np.nan_to_num(X, nan=-9.0), y))


def _rows(model, seed: int):
    rng = np.random.default_rng(seed + 100)
    X = rng.normal(size=(500, 5))
    X[::7, 2] = np.nan
    return verify.probe_table(model, from_matrix(model.features, X))


@pytest.mark.parametrize("task,seed", [("classification", 0), ("regression", 1)])
def test_chunked_equals_whole_statement(monkeypatch, task, seed):
    model = _model(task, seed)
    table = _rows(model, seed)
    whole = runtimes.run_sqlite(model, table)
    monkeypatch.setattr(verify_chunks, "CHUNK_LEAVES", 40)
    groups = verify_chunks.plan(model)
    assert groups is not None and len(groups) >= 8
    got = verify_chunks.run_chunked(runtimes.run_sqlite, model, table, groups)
    assert list(got.prediction) == list(whole.prediction)
    if task == "classification":
        assert np.array_equal(got.proba, whole.proba)
    want = verify._reference(model, table)
    assert verify.compare(model, *want, got, 1e-12) == (0, 0.0)


def test_wrong_chunk_is_a_disagreement(monkeypatch):
    model = _model("classification", 2)
    table = _rows(model, 2)
    monkeypatch.setattr(verify_chunks, "CHUNK_LEAVES", 80)
    groups = verify_chunks.plan(model)
    assert groups is not None and len(groups) >= 4
    models, group_of = verify_chunks.chunk_models(model, groups)
    which = np.asarray([group_of[n] for n in model.apply(table)[:, 0].tolist()])
    rows = np.flatnonzero(which != 0)  # rows of other chunks through chunk 0's query
    part = {k: v[rows] for k, v in table.items()}
    got = runtimes.run_sqlite(models[0], part)
    bad = verify.rows_differ(model, *verify._reference(model, part), got, 1e-12)
    assert bad.all()


def test_small_models_are_not_chunked():
    assert verify_chunks.plan(_model("classification", 0)) is None  # 400 leaves <= CHUNK_LEAVES
