"""SQL export run in real engines (SQLite, DuckDB, PostgreSQL, MariaDB) against the source model.

Every zoo entry (threshold rows, NaN -> NULL rows, hostile names, nominal and oblique splits, a
600-deep chain, every ensemble kind) is loaded into a table with exact doubles (parameter binding
or a DataFrame of float64), scored by the exported SELECT and compared with ``Model.predict`` /
``predict_proba``: identical labels, probabilities and values to 1e-12. Rule bases likewise against
the rule engine. Helpers here are shared by the other SQL test modules.
"""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.commands import verify
from rulekit.exporters.sql import dialect as sql_dialect
from rulekit.exporters.sql import to_sql
from tests import zoo
from tests.marks import zoo_cases

TOL = 1e-12
KEY = "__row"


# --- helpers shared by the SQL tests ----------------------------------------------------------------


def _is_int_domain(f) -> bool:
    dom = f.domain or ()
    return bool(dom) and all(isinstance(v, int) and not isinstance(v, bool) for v in dom)


def table_columns(obj) -> list[tuple[str, bool]]:
    """(name, is_text) per feature: text for label-valued nominal features, double otherwise."""
    return [(f.name, f.kind == "nominal" and not _is_int_domain(f)) for f in obj.features]


def table_rows(obj, data: pd.DataFrame) -> list[tuple]:
    """Rows as Python values: doubles as float (NaN -> None), labels as str, key first."""
    cols = table_columns(obj)
    out = []
    values = [data[name].tolist() for name, _ in cols]
    for i in range(len(data)):
        row = [i]
        for (name, text), col in zip(cols, values):
            v = col[i]
            if v is None or (isinstance(v, float) and math.isnan(v)):
                row.append(None)
            elif text:
                row.append(str(v))
            else:
                row.append(float(v))
        out.append(tuple(row))
    return out


TYPES = {"sqlite": ("REAL", "TEXT"), "duckdb": ("DOUBLE", "VARCHAR"), "postgres": ("DOUBLE PRECISION", "TEXT"),
         "mysql": ("DOUBLE", "TEXT"), "spark": ("DOUBLE", "STRING")}


def create_sql(obj, engine: str, table: str) -> str:
    d = sql_dialect.get(engine)
    dbl, txt = TYPES[engine]
    defs = [f"{d.ident(KEY)} INTEGER"] + [f"{d.ident(n)} {txt if t else dbl}" for n, t in table_columns(obj)]
    return f"CREATE TABLE {d.ident(table)} ({', '.join(defs)})"


def load(conn, engine: str, obj, data: pd.DataFrame, table: str) -> None:
    """Create ``table`` holding ``data`` exactly (doubles bound as Python floats)."""
    d = sql_dialect.get(engine)
    rows = table_rows(obj, data)
    if engine == "duckdb":
        cols = [KEY] + [n for n, _ in table_columns(obj)]
        frame = pd.DataFrame.from_records(rows, columns=cols)
        for (n, text) in table_columns(obj):
            frame[n] = frame[n].astype(object if text else "float64")
        conn.register("rk_frame", frame)
        conn.execute(f"DROP TABLE IF EXISTS {d.ident(table)}")
        conn.execute(create_sql(obj, engine, table))
        conn.execute(f"INSERT INTO {d.ident(table)} SELECT * FROM rk_frame")
        conn.unregister("rk_frame")
        return
    cur = conn.cursor()
    cur.execute(f"DROP TABLE IF EXISTS {d.ident(table)}")
    cur.execute(create_sql(obj, engine, table))
    mark = "?" if engine == "sqlite" else "%s"
    marks = ", ".join([mark] * (len(rows[0]) if rows else 1))
    cur.executemany(f"INSERT INTO {d.ident(table)} VALUES ({marks})", rows)


def query(conn, engine: str, sql: str) -> list[tuple]:
    if engine == "duckdb":
        return [tuple(r) for r in conn.execute(sql).fetchall()]
    cur = conn.cursor()
    cur.execute(sql)
    return [tuple(r) for r in cur.fetchall()]


def _same_label(got, want) -> bool:
    if want is None:
        return got is None
    if isinstance(want, np.generic):
        want = want.item()
    if isinstance(want, bool):
        return got is not None and bool(got) == want and int(got) in (0, 1)
    if isinstance(want, str):
        return got == want
    if isinstance(want, int):
        return got is not None and float(got) == want
    return got is not None and float(got) == float(want)


def compare(obj, data: pd.DataFrame, result: list[tuple], *, proba: bool, where: str = "") -> None:
    """Rows (key, prediction[, proba...]) equal the source's predictions (within 1e-12, or the
    stated float32-sum bound where a dialect sums an XGBoost model in float64, as verify allows)."""
    # the dialect the SQL was written for: "sqlite", "bare sqlite", "sqlite view", "bigquery->duckdb"
    dialect = next((w.split("->")[0] for w in where.split() if w.split("->")[0] in sql_dialect.NAMES), "")
    tol = verify.tolerance(obj, dialect) if verify.float64_sums(obj, dialect) else TOL
    result = sorted(result, key=lambda r: r[0])
    assert [r[0] for r in result] == list(range(len(data))), f"{where}: rows lost or duplicated"
    want = obj.predict(data)
    if obj.task == "regression":
        got = np.asarray([np.nan if r[1] is None else float(r[1]) for r in result])
        w = np.asarray(want, dtype=np.float64)
        bad = ~((np.abs(got - w) <= tol * np.maximum(1.0, np.abs(w))) | (np.isnan(got) & np.isnan(w)))
        assert not bad.any(), f"{where}: {bad.sum()} values differ, first row {np.flatnonzero(bad)[0]}: " \
                              f"{got[bad][0]!r} vs {w[bad][0]!r}"
        return
    bad = [i for i, r in enumerate(result) if not _same_label(r[1], want[i])]
    assert not bad, f"{where}: {len(bad)} labels differ, first row {bad[0]}: {result[bad[0]][1]!r} vs {want[bad[0]]!r}"
    if proba:
        P = obj.predict_proba(data)
        got = np.asarray([[np.nan if v is None else float(v) for v in r[2:]] for r in result])
        assert got.shape == P.shape, f"{where}: {got.shape} proba columns, expected {P.shape}"
        ok = (np.abs(got - P) <= tol) | (np.isnan(got) & np.isnan(P))
        assert ok.all(), f"{where}: probabilities differ by up to {np.nanmax(np.abs(got - P))}"


def run_in(conn, engine: str, obj, data: pd.DataFrame, table: str, *, proba: bool = True, **options) -> str:
    """Export, load, run and compare; returns the SQL."""
    proba = proba and obj.task == "classification"
    sql = to_sql(obj, dialect=engine, table=table, key=KEY, proba=proba, **options)
    load(conn, engine, obj, data, table)
    try:
        compare(obj, data, query(conn, engine, sql), proba=proba, where=f"{engine}")
    finally:
        _drop(conn, engine, table)
    return sql


def _drop(conn, engine: str, table: str) -> None:
    """Drop a loaded table (SQLite's in-memory connections are per test)."""
    if engine != "sqlite":
        cur = conn if engine == "duckdb" else conn.cursor()
        cur.execute(f"DROP TABLE IF EXISTS {sql_dialect.get(engine).ident(table)}")


def run_bare(conn, engine: str, obj, data: pd.DataFrame, table: str) -> str:
    """The bare expression of ``obj`` selected over ``table`` in ``engine``, compared; returns it."""
    d = sql_dialect.get(engine)
    expr_sql = to_sql(obj, dialect=engine)
    load(conn, engine, obj, data, table)
    try:
        rows = query(conn, engine, f"SELECT {d.ident(KEY)}, {expr_sql} AS p FROM {d.ident(table)}")
        compare(obj, data, rows, proba=False, where=f"bare {engine}")
    finally:
        _drop(conn, engine, table)
    return expr_sql


def run_bare_snowflake_transpiled(duck_conn, obj, data: pd.DataFrame, table: str) -> str:
    """The Snowflake bare expression, parse-checked, transpiled by sqlglot and run in DuckDB."""
    import sqlglot

    expr_sql = to_sql(obj, dialect="snowflake")
    sqlglot.parse_one(f"SELECT {expr_sql} AS p FROM t", read="snowflake")
    sql = sqlglot.transpile(f'SELECT "{KEY}", {expr_sql} AS p FROM "{table}"', read="snowflake", write="duckdb")[0]
    load(duck_conn, "duckdb", obj, data, table)
    try:
        compare(obj, data, query(duck_conn, "duckdb", sql), proba=False, where="bare snowflake->duckdb")
    finally:
        duck_conn.execute(f'DROP TABLE "{table}"')
    return expr_sql


_RULES: dict[int, object] = {}


def rules_of(model):
    """A rule base equal to ``model`` (the rules pipeline); cached."""
    rb = _RULES.get(id(model))
    if rb is None:
        rb = _RULES[id(model)] = (model, _rules_of(model))
    return rb[1]


def _rules_of(model):
    return rulekit.to_rules(model)


# --- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sqlite_conn():
    conn = sqlite3.connect(":memory:")
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def duck_conn():
    duckdb = pytest.importorskip("duckdb")
    conn = duckdb.connect()
    yield conn
    conn.close()


ENGINES = ["sqlite", "duckdb", "postgres", "mysql"]


@pytest.fixture(params=ENGINES)
def engine(request):
    """(name, connection) for each engine; servers skip (or fail in CI) when absent."""
    name = request.param
    fixture = {"sqlite": "sqlite_conn", "duckdb": "duck_conn", "postgres": "pg_conn", "mysql": "mysql_conn"}[name]
    return name, request.getfixturevalue(fixture)


# --- the zoo in every engine ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_zoo_model(engine, name, unique_name):
    eng, conn = engine
    model, data = zoo.get(name)
    run_in(conn, eng, model, data, unique_name)


@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_zoo_rules(engine, name, unique_name):
    eng, conn = engine
    model, data = zoo.get(name)
    rb = rules_of(model)
    run_in(conn, eng, rb, data, unique_name)


@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_zoo_flat_forms(name, sqlite_conn, duck_conn, unique_name):
    """Trees cut at 1 or 3 CASE levels: flat leaf conditions (intervals, value sets, NULL sides)."""
    model, data = zoo.get(name)
    run_in(sqlite_conn, "sqlite", model, data, unique_name, case_depth=1)
    run_in(duck_conn, "duckdb", model, data, unique_name, case_depth=3)


@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_zoo_flat_postgres(name, pg_conn, unique_name):
    model, data = zoo.get(name)
    run_in(pg_conn, "postgres", model, data, unique_name, case_depth=1, batch=3)
