"""Any size: a chain tree 5,000 deep, a 1,500-deep zigzag tree on mixed features, and a 1,000-tree
forest run exactly in SQLite (whose parser overflows near 18 nested CASEs), DuckDB, PostgreSQL and MariaDB,
as a SELECT over a table and as the bare expression pasted into one's own query."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder, depth
from rulekit.probe import probe_rows
from tests import zoo
from tests.exporters.test_sql_engines import duck_conn, run_bare, run_in, sqlite_conn  # noqa: F401 (fixtures)


@pytest.fixture(params=["sqlite", "duckdb", "postgres", "mysql"])
def engine(request):
    fixture = {"sqlite": "sqlite_conn", "duckdb": "duck_conn", "postgres": "pg_conn", "mysql": "mysql_conn"}[request.param]
    return request.param, request.getfixturevalue(fixture)


@pytest.fixture(scope="module")
def chain():
    model = zoo.chain_model(5000)
    xs = np.concatenate([np.arange(-1.0, 5002.0, 5.0), [np.nan]])
    M = probe_rows(model, xs.reshape(-1, 1), n_missing=5, max_rows=800, seed=3)
    return model, zoo._frame(model, M)


@pytest.mark.slow
def test_chain_5000(engine, chain, unique_name):
    eng, conn = engine
    model, data = chain
    assert depth(model.trees[0]) == 5000
    sql = run_in(conn, eng, model, data, unique_name)
    assert len(sql) < 2_000_000  # interval merging keeps the flat part linear in the depth
    run_bare(conn, eng, model, data, unique_name)


def _zigzag(n_levels: int, seed: int = 0) -> Model:
    """Each level tests one of four features (one nominal) and peels a two-leaf subtree off either
    side, so paths revisit features many times (interval and value-set merging, NULL sides)."""
    rng = np.random.default_rng(seed)
    feats = [Feature(name="a"), Feature(name="B"), Feature(name="c d"),
             Feature(name="kind", kind="nominal", domain=("p", "q", "r", "s"))]
    b = TreeBuilder()

    def leaf():
        p = float(rng.integers(0, 9)) / 8.0
        return b.leaf((p, 1.0 - p))

    node = b.numeric(0, 0.0, precision="float32", missing=0)
    for i in range(n_levels):
        f = i % 4
        side = int(rng.integers(0, 2))
        if f == 3:
            nxt = b.nominal(3, missing=int(rng.integers(0, 2)))
        else:
            t = float(np.round(rng.normal(0, 2), 2))
            nxt = b.numeric(f, t, precision="float32" if i % 3 else "float64", op="<" if i % 5 == 0 else "<=",
                            missing=int(rng.integers(0, 2)))
        small = b.numeric(int(rng.integers(0, 3)), float(np.round(rng.normal(0, 2), 2)), missing=1)
        b.connect(small, leaf(), 0)
        b.connect(small, leaf(), 1)
        kids = (nxt, small) if side == 0 else (small, nxt)
        if b.graph.nodes[node]["kind"] == "nominal":
            codes = list(rng.permutation(4))
            b.connect(node, kids[0], 0, values=tuple(int(c) for c in codes[:2]))
            b.connect(node, kids[1], 1, values=None)
        else:
            b.connect(node, kids[0], 0)
            b.connect(node, kids[1], 1)
        node = nxt
    if b.graph.nodes[node]["kind"] == "nominal":
        b.connect(node, leaf(), 0, values=(0, 1))
        b.connect(node, leaf(), 1, values=None)
    else:
        b.connect(node, leaf(), 0)
        b.connect(node, leaf(), 1)
    return Model([b.graph], feats, task="classification", classes=["no", "yes"])


def test_zigzag_1500(engine, unique_name):
    eng, conn = engine
    model = _zigzag(1500)
    rng = np.random.default_rng(1)
    n = 400
    M = np.column_stack([np.round(rng.normal(0, 2, (n, 3)), 2), rng.integers(-1, 4, n).astype(float)])
    M[rng.random(M.shape) < 0.1] = np.nan
    M = probe_rows(model, M, n_missing=40, max_rows=600)
    run_in(conn, eng, model, zoo._frame(model, M), unique_name)
    run_bare(conn, eng, model, zoo._frame(model, M), unique_name)


def _forest(n_trees: int, seed: int = 0) -> Model:
    """``n_trees`` random depth-3 trees on 8 features (sklearn-style float32 splits, NaN sides)."""
    rng = np.random.default_rng(seed)
    trees = []
    for _ in range(n_trees):
        b = TreeBuilder()
        frontier = [(b.numeric(int(rng.integers(8)), float(rng.normal()), precision="float32",
                               missing=int(rng.integers(2))), 1)]
        while frontier:
            node, lvl = frontier.pop()
            for br in (0, 1):
                if lvl < 3 and rng.random() < 0.8:
                    child = b.numeric(int(rng.integers(8)), float(rng.normal()), precision="float32",
                                      missing=int(rng.integers(2)))
                    frontier.append((child, lvl + 1))
                else:
                    p = float(rng.integers(0, 17)) / 16.0
                    child = b.leaf((1.0 - p, p))
                b.connect(node, child, br)
        trees.append(b.graph)
    return Model(trees, [f"f{i}" for i in range(8)], task="classification", classes=[0, 1],
                 combiner=Combiner(kind="average"))


@pytest.mark.slow
def test_forest_1000_trees(engine, unique_name):
    eng, conn = engine
    model = _forest(1000)
    rng = np.random.default_rng(2)
    M = rng.normal(size=(150, 8))
    M[rng.random(M.shape) < 0.1] = np.nan
    M = probe_rows(model, M, n_missing=20, max_rows=150)
    run_in(conn, eng, model, zoo._frame(model, M), unique_name)
    run_bare(conn, eng, model, zoo._frame(model, M), unique_name)
