"""T-SQL's float32 sums of XGBoost models: a flat chain of one-row tables (``CROSS APPLY``), one
float32 rounding per tree in XGBoost's order. No SQL Server here, so: the T-SQL text parses with
sqlglot as tsql at its default recursion limit and nests few parentheses (SQL Server: 32 levels);
the same text transpiled by sqlglot runs on DuckDB; and the same chain written for DuckDB and
PostgreSQL (``CROSS JOIN LATERAL``) runs there. Each is bit-identical to XGBoost's regression values
and to the model's float32 probabilities, on threshold, float32-neighbour and NaN rows with
hostile column names, as a SELECT and as the bare expression."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sqlglot

from rulekit.exporters.sql import dialect as sql_dialect
from rulekit.exporters.sql import float32 as f32
from rulekit.exporters.sql import to_sql
from rulekit.rename import rename_features
from tests import xgb_float32
from tests.exporters.test_sql_engines import KEY, _drop, duck_conn, load, query  # noqa: F401
from tests.zoo import HOSTILE_NAMES

xgb = pytest.importorskip("xgboost")


@pytest.fixture(scope="module")
def cases():
    """{kind: (model with hostile feature names, probe rows as a frame, XGBoost's predictions)}."""
    out = {}
    for kind, (_, model, rows, want) in xgb_float32.cases(
            seed=7, n_rows=300, rounds=30, probe=80, n_missing=40, reg_parallel_trees=2).items():
        names = HOSTILE_NAMES[:len(model.features)]
        model = rename_features(model, {f.name: n for f, n in zip(model.features, names)})
        data = pd.DataFrame({n: rows[:, j] for j, n in enumerate(names)})
        out[kind] = (model, data, want)
    return out


def _sql(model, eng: str, table: str, *, bare: bool) -> str:
    d = sql_dialect.get(eng)
    if bare:
        return f"SELECT {d.ident(KEY)}, {to_sql(model, dialect=eng)} AS p FROM {d.ident(table)}"
    return to_sql(model, dialect=eng, table=table, key=KEY, proba=model.task == "classification")


def _depth(sql: str) -> int:
    """Deepest parenthesis nesting outside string literals and quoted names."""
    depth = most = 0
    quote = None
    for ch in sql:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"[":
            quote = "]" if ch == "[" else ch
        elif ch == "(":
            depth += 1
            most = max(most, depth)
        elif ch == ")":
            depth -= 1
    return most


def _check(model, data, want, rows, *, bare: bool) -> None:
    rows = sorted(rows, key=lambda r: r[0])
    if model.task == "regression":
        got = np.array([float(r[1]) for r in rows])
        assert np.array_equal(got, want[:, 0]), np.abs(got - want[:, 0]).max()
        return
    assert [str(r[1]) for r in rows] == [str(x) for x in model.predict(data)]
    if not bare:
        got = np.array([[float(v) for v in r[2:]] for r in rows])
        ir = model.predict_proba(data)
        assert np.array_equal(got, ir), np.abs(got - ir).max()


@pytest.mark.parametrize("bare", [False, True], ids=["select", "bare"])
@pytest.mark.parametrize("kind", list(xgb_float32.OBJECTIVES))
def test_tsql_float32_sums_are_a_flat_chain(cases, kind, bare):
    model, _, _ = cases[kind]
    sql = _sql(model, "tsql", "t", bare=bare)
    assert "XGBoost sums its trees in float32" not in sql  # no float64 bound: it sums in float32
    assert sql.count("CROSS APPLY") >= len(model.trees) - 1
    assert "AS REAL) AS DOUBLE PRECISION)" in sql
    sqlglot.parse_one(sql, read="tsql")  # no RecursionError at the default limit
    assert _depth(sql) <= 20, _depth(sql)


@pytest.mark.parametrize("bare", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["select", "bare"])
@pytest.mark.parametrize("kind", list(xgb_float32.OBJECTIVES))
def test_tsql_text_transpiled_to_duckdb_equals_xgboost(cases, duck_conn, kind, bare, unique_name):
    """The T-SQL text itself, read by sqlglot as tsql and written for DuckDB (REAL -> 4-byte
    REAL, DOUBLE PRECISION -> DOUBLE, CROSS APPLY -> lateral join)."""
    model, data, want = cases[kind]
    sql = sqlglot.transpile(_sql(model, "tsql", unique_name, bare=bare), read="tsql", write="duckdb")[0]
    # sqlglot writes CROSS APPLY as INNER JOIN LATERAL without the ON clause DuckDB then wants
    sql = sql.replace("INNER JOIN LATERAL", "CROSS JOIN LATERAL")
    load(duck_conn, "duckdb", model, data, unique_name)
    try:
        rows = query(duck_conn, "duckdb", sql)
    finally:
        _drop(duck_conn, "duckdb", unique_name)
    _check(model, data, want, rows, bare=bare)


@pytest.mark.slow  # PostgreSQL plans the 50 lateral joins of a stage in 2-28 s
@pytest.mark.parametrize("bare", [False, True], ids=["select", "bare"])
@pytest.mark.parametrize("kind", list(xgb_float32.OBJECTIVES))
@pytest.mark.parametrize("eng", ["duckdb", "postgres"])
def test_the_chain_runs_bit_identical_on_real_engines(request, cases, monkeypatch, eng, kind, bare, unique_name):
    """The same chain, generated for DuckDB and PostgreSQL by the code T-SQL uses."""
    conn = request.getfixturevalue({"duckdb": "duck_conn", "postgres": "pg_conn"}[eng])
    monkeypatch.setattr(f32, "CHAINED", f32.CHAINED | {eng})
    model, data, want = cases[kind]
    sql = _sql(model, eng, unique_name, bare=bare)
    assert "CROSS JOIN LATERAL" in sql
    load(conn, eng, model, data, unique_name)
    try:
        rows = query(conn, eng, sql)
    finally:
        _drop(conn, eng, unique_name)
    _check(model, data, want, rows, bare=bare)
