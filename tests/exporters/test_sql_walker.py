"""DuckDB walks big ensemble trees over constant arrays (``exporters/sql/walker.py``): exact against
scikit-learn on threshold and NULL rows with hostile names; small trees stay CASE; mixed forests
(some trees walked, some not) sum in source order. Spark's walk is tested in ``test_sql_spark.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.exporters.sql import to_sql
from rulekit.exporters.sql.walker import DUCKDB, SPARK
from rulekit.probe import probe_rows
from tests.exporters.test_sql_engines import KEY, compare, duck_conn, load, query  # noqa: F401 (fixture)

pytest.importorskip("duckdb")

# the lambda's variables are rk_n/rk_i; n, i and rk_n must stay columns
NAMES = ["a b", 'x"y', "it's", "n", "i", "rk_n", "select", "é"]


def _forest(estimator, n_rows: int = 4000, classes: int = 2, nan: bool = True):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_rows, len(NAMES), n_informative=5, n_redundant=0, n_classes=classes,
                               random_state=3)
    if nan:
        X[::11, 2] = np.nan  # missing values seen in training: each split learns a missing side
    est = estimator.fit(pd.DataFrame(X, columns=NAMES), y)
    model = rulekit.from_sklearn(est)
    M = probe_rows(model, X[:300], n_missing=100, max_rows=2500, seed=4)
    return est, model, pd.DataFrame(M, columns=NAMES)


def _run(duck_conn, model, frame, *, proba=True):
    sql = to_sql(model, dialect="duckdb", table="rk_walk", key=KEY, proba=proba)
    load(duck_conn, "duckdb", model, frame, "rk_walk")
    rows = query(duck_conn, "duckdb", sql)
    compare(model, frame, rows, proba=proba, where="duckdb walker")
    return sql, sorted(rows, key=lambda r: r[0])


@pytest.mark.slow
def test_forest_walked_exact(duck_conn):
    """A 12-tree depth-9 three-class forest: each big tree walked once (one column per tree feeding
    three sums), probabilities within 1e-12 of scikit-learn and identical labels."""
    from sklearn.ensemble import RandomForestClassifier

    rf, model, frame = _forest(RandomForestClassifier(12, max_depth=9, random_state=0), classes=3)
    walked = sum(e.tree_.n_leaves >= DUCKDB.leaves_per_step * e.tree_.max_depth for e in rf.estimators_)
    assert walked >= 8  # most trees are big enough to be walked; the rest stay CASE
    sql, rows = _run(duck_conn, model, frame)
    assert sql.count("list_reduce(") == walked
    P = rf.predict_proba(frame)
    got = np.asarray([r[2:] for r in rows], dtype=np.float64)
    assert np.abs(got - P).max() <= 1e-12
    assert [r[1] for r in rows] == list(rf.classes_[np.argmax(P, axis=1)])
    # the bare form keeps correlated subqueries with CASE in DuckDB, and agrees
    bare = to_sql(model, dialect="duckdb")
    got = query(duck_conn, "duckdb", f'SELECT "{KEY}", {bare} FROM "rk_walk"')
    compare(model, frame, got, proba=False, where="duckdb bare")


@pytest.mark.slow
def test_small_trees_stay_case(duck_conn):
    """Boosting's small trees are cheaper as CASE in DuckDB (3-4x measured): not walked."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    est, model, frame = _forest(HistGradientBoostingClassifier(max_iter=15, random_state=0), n_rows=1500)
    sql, _ = _run(duck_conn, model, frame)
    assert "list_reduce(" not in sql


def test_mixed_forest_regression(duck_conn):
    """Deep and shallow trees in one regression forest: the deep ones walked (inline, one sum), the
    shallow ones CASE, summed in source order."""
    from sklearn.ensemble import RandomForestRegressor

    from rulekit.ir.model import Model

    X = np.random.default_rng(5).normal(size=(3000, len(NAMES)))
    X[::13, 0] = np.nan
    y = np.nan_to_num(X[:, 0]) * 2 + np.sin(X[:, 1] * 3) + X[:, 3]
    frame0 = pd.DataFrame(X, columns=NAMES)
    deep = rulekit.from_sklearn(RandomForestRegressor(3, max_depth=10, random_state=0).fit(frame0, y))
    shallow = rulekit.from_sklearn(RandomForestRegressor(3, max_depth=3, random_state=1).fit(frame0, y))
    trees = [deep.trees[0], shallow.trees[0], deep.trees[1], shallow.trees[1], deep.trees[2], shallow.trees[2]]
    model = Model(trees, deep.features, task="regression", combiner=deep.combiner, source=deep.source)
    frame = pd.DataFrame(probe_rows(model, X[:300], n_missing=100, max_rows=2500, seed=6), columns=NAMES)
    sql, _ = _run(duck_conn, model, frame, proba=False)
    assert sql.count("list_reduce(") == 3


def _inf_model(extra_leaf: float | None = None):
    from rulekit.ir.model import Combiner, Feature, Model
    from rulekit.ir.tree import TreeBuilder

    trees = []
    for t, (thr, miss) in enumerate([(math.inf, 0), (-math.inf, 1), (0.5, 0), (0.5, 1)]):
        b = TreeBuilder()
        root = b.numeric(0, 1.5, missing=1 - miss)
        inner = b.numeric(1, thr, missing=miss)
        b.connect(root, inner, 0)
        b.connect(root, b.leaf((0.25 * t / 4, 1 - 0.25 * t / 4)), 1)
        b.connect(inner, b.leaf((1.0, 0.0)), 0)
        b.connect(inner, b.leaf((0.0, 1.0)), 1)
        trees.append(b.graph)
    if extra_leaf is not None:
        b = TreeBuilder()
        b.leaf((extra_leaf, 1.0 - extra_leaf))
        trees.append(b.graph)
    return Model(features=[Feature(name="p"), Feature(name="q")], trees=trees, classes=[0, 1],
                 task="classification", combiner=Combiner(kind="average"))


def _walk_all(monkeypatch, on: bool = True, top: int = 0):
    """Walk every tree (``on``) or none; ``top``: levels written as the CASE the walk starts from."""
    import dataclasses

    from rulekit.exporters.sql import duckdb as duck

    walk = dataclasses.replace(DUCKDB, leaves_per_step=0.0 if on else 1e9, case_levels=top)  # tiny trees
    monkeypatch.setattr(duck, "DIALECT", dataclasses.replace(duck.DIALECT, walker=walk, _cache={}))


INF_GRID = [None, -math.inf, -1.0, 0.5, 1.5, 2.0, math.inf]


@pytest.mark.parametrize("top", [0, 1, 2])
def test_infinite_boundaries_and_null_sides(duck_conn, monkeypatch, top):
    """Boundaries of +-inf travel as 'inf' in the array text and in the top CASE's literals; NULL
    follows each split's missing side in the walk and in the CASE it starts from (``top`` levels;
    2 covers these trees: no walk left); a single-leaf tree is a constant, not a walk."""
    model = _inf_model(extra_leaf=0.375)
    frame = pd.DataFrame([(a, b) for a in INF_GRID for b in INF_GRID], columns=["p", "q"], dtype=float)
    _walk_all(monkeypatch, top=top)
    sql = to_sql(model, dialect="duckdb", table="rk_inf", key=KEY, proba=True)
    assert sql.count("list_reduce(") == (4 if top < 2 else 0) and "inf" in sql
    assert ("\"q\" <= '-inf'::DOUBLE" in sql) == (top == 2)  # the inner splits' infinite boundary
    load(duck_conn, "duckdb", model, frame, "rk_inf")
    compare(model, frame, query(duck_conn, "duckdb", sql), proba=True, where="duckdb inf")


@pytest.mark.parametrize("top", [0, 1, 2])
def test_stored_nan_at_infinite_boundaries_matches_case_form(duck_conn, monkeypatch, top):
    """At ``x <= +inf`` with missing values left nothing goes right in the CASE form (the split is
    elided); the walk gives that node a NaN boundary so a stored NaN stays left there too, and the
    CASE the walk starts from (``top`` levels) tests as the walk does."""
    model = _inf_model()
    grid = INF_GRID + [math.nan]
    frame = pd.DataFrame([(a, b) for a in grid for b in grid], columns=["p", "q"], dtype=float)
    _walk_all(monkeypatch, on=True, top=top)
    walked = to_sql(model, dialect="duckdb", table="rk_nan_inf", key=KEY, proba=True)
    _walk_all(monkeypatch, on=False)
    case = to_sql(model, dialect="duckdb", table="rk_nan_inf", key=KEY, proba=True)
    assert ("list_reduce(" in walked) == (top < 2) and "list_reduce(" not in case
    load(duck_conn, "duckdb", model, frame, "rk_nan_inf")
    n = len(grid)
    duck_conn.execute(f'UPDATE "rk_nan_inf" SET "p" = \'NaN\'::DOUBLE WHERE "{KEY}" >= {n * (n - 1)}').fetchall()
    duck_conn.execute(f'UPDATE "rk_nan_inf" SET "q" = \'NaN\'::DOUBLE WHERE "{KEY}" % {n} = {n - 1}').fetchall()
    assert query(duck_conn, "duckdb", walked) == query(duck_conn, "duckdb", case)


def test_infinite_leaf_values_are_refused_in_both_forms(monkeypatch):
    """A leaf value of +-inf cannot be written as a SQL literal: the walk refuses it as CASE does."""
    from rulekit.errors import ExportError

    model = _inf_model()
    for graph in model.trees[:1]:
        for n, a in graph.nodes(data=True):
            if "value" in a and a["value"][0] == 1.0:
                a["value"] = (math.inf, 0.0)
                break
    model = type(model)(model.trees, model.features, task="classification", classes=[0, 1],
                        combiner=model.combiner, validate=False)
    for on in (True, False):
        _walk_all(monkeypatch, on=on)
        with pytest.raises(ExportError, match="inf"):
            to_sql(model, dialect="duckdb", table="t", proba=True)


def test_array_text_reads_back_exactly(duck_conn):
    """Shortest round-trip text (DuckDB) and 17 digits (Spark) both name the same doubles; DuckDB's
    cast reads the short text back bit for bit, subnormals and extremes included."""
    rng = np.random.default_rng(7)
    values = list(rng.normal(size=300) * 10.0 ** rng.integers(-300, 300, 300))
    values += [5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1 / 3, -0.0, 0.0]
    text = DUCKDB.double_array(values)
    got = duck_conn.execute(f"SELECT {text}").fetchall()[0][0]
    assert [float(v).hex() for v in got] == [float(v).hex() for v in values]
    assert all(float(DUCKDB.text(v)) == float(SPARK.text(v)) for v in values if math.isfinite(v))


def test_stored_nan_matches_case_form(duck_conn, monkeypatch):
    """A NaN stored in a DOUBLE column (not NULL) is no missing value in SQL: it goes right at every
    finite split. The walk (leaves: ``x > NaN`` never true) and the CASE form agree on such rows.
    (A model trained with missing values may split at +inf, i.e. on missingness, which both forms
    test as NULL only; stored NaN rows then differ between the forms, so this model has none.)"""
    import dataclasses

    from sklearn.ensemble import RandomForestClassifier

    from rulekit.exporters.sql import duckdb as duck

    rf, model, frame = _forest(RandomForestClassifier(4, max_depth=9, random_state=2), nan=False)
    assert all(np.isfinite(e.tree_.threshold[e.tree_.children_left >= 0]).all() for e in rf.estimators_)
    sql_walk = to_sql(model, dialect="duckdb", table="rk_nan", key=KEY, proba=True)
    never = dataclasses.replace(DUCKDB, leaves_per_step=1e9)
    monkeypatch.setattr(duck, "DIALECT", dataclasses.replace(duck.DIALECT, walker=never, _cache={}))
    sql_case = to_sql(model, dialect="duckdb", table="rk_nan", key=KEY, proba=True)
    assert "list_reduce(" in sql_walk and "list_reduce(" not in sql_case
    load(duck_conn, "duckdb", model, frame, "rk_nan")
    cols = ", ".join(f'"{n}" = CASE WHEN "{KEY}" % {k + 2} = 0 THEN \'NaN\'::DOUBLE ELSE "{n}" END'
                     for k, n in enumerate(c.replace('"', '""') for c in NAMES))
    duck_conn.execute(f'UPDATE "rk_nan" SET {cols}').fetchall()
    assert duck_conn.execute('SELECT count(*) FROM "rk_nan" WHERE isnan("a b")').fetchall()[0][0] > 100
    assert query(duck_conn, "duckdb", sql_walk) == query(duck_conn, "duckdb", sql_case)
