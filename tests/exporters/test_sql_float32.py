"""SQL of XGBoost models with ``arithmetic="float32"``, checked against XGBoost itself on threshold,
float32-neighbour and NaN rows: DuckDB, PostgreSQL and MariaDB round every partial sum and link step
to float32 (regression values bit-identical to XGBoost, probabilities bit-identical to the IR, i.e.
within one float32 ulp of XGBoost), as a SELECT and as the bare expression. SQLite has no 4-byte
float: its query says so in a header comment and stays within the stated bound."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.exporters.sql import dialect as sql_dialect
from rulekit.exporters.sql import to_sql
from tests import xgb_float32
from tests.exporters.test_sql_engines import KEY, _drop, duck_conn, engine, load, query, sqlite_conn  # noqa: F401

xgb = pytest.importorskip("xgboost")



@pytest.fixture(scope="module")
def cases():
    out = {}
    for kind, (booster, model, rows, want) in xgb_float32.cases(
            seed=5, n_rows=400, rounds=30, probe=120, n_missing=60, reg_parallel_trees=2).items():
        data = pd.DataFrame({f.name: rows[:, j] for j, f in enumerate(model.features)})
        out[kind] = (booster, model, data, want)
    return out


def _select(conn, eng: str, model, data: pd.DataFrame, table: str, *, bare: bool) -> list[tuple]:
    d = sql_dialect.get(eng)
    proba = model.task == "classification" and not bare
    sql = (f"SELECT {d.ident(KEY)}, {to_sql(model, dialect=eng)} AS p FROM {d.ident(table)}" if bare
           else to_sql(model, dialect=eng, table=table, key=KEY, proba=proba))
    load(conn, eng, model, data, table)
    try:
        return sorted(query(conn, eng, sql), key=lambda r: r[0])
    finally:
        _drop(conn, eng, table)


@pytest.mark.parametrize("bare", [False, True], ids=["select", "bare"])
@pytest.mark.parametrize("kind", list(xgb_float32.OBJECTIVES))
def test_sql_equals_xgboost(engine, cases, kind, bare, unique_name):
    eng, conn = engine
    _, model, data, want = cases[kind]
    rows = _select(conn, eng, model, data, unique_name, bare=bare)
    if kind == "reg":
        got = np.array([float(r[1]) for r in rows])
        if eng == "sqlite":  # float64 sums: within a few float32 ulps of the sum
            assert np.all(np.abs(got - want[:, 0]) <= 8 * np.spacing(np.abs(want[:, 0]).astype(np.float32)))
        else:
            assert np.array_equal(got, want[:, 0]), np.abs(got - want[:, 0]).max()
        return
    labels = model.predict(data)
    assert [str(r[1]) for r in rows] == [str(x) for x in labels]
    if bare:
        return
    got = np.array([[float(v) for v in r[2:]] for r in rows])
    ir = model.predict_proba(data)
    if eng == "sqlite":
        assert np.abs(got - ir).max() <= 1e-6
    else:
        assert np.array_equal(got, ir), np.abs(got - ir).max()


def test_sqlite_header_states_float64_sums(cases):
    _, model, _, _ = cases["reg"]
    sql = to_sql(model, dialect="sqlite", table="t")
    assert sql.startswith("/* XGBoost sums its trees in float32; sqlite has no 4-byte float")
    assert "float32" not in to_sql(model, dialect="duckdb", table="t").split("SELECT")[0]
    assert "CAST(CAST(" in to_sql(model, dialect="duckdb", table="t")
