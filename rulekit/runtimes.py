"""Run an exported artefact in its real runtime and collect its predictions.

Used by ``rulekit verify``, the demo and the end-to-end tests. Each runner takes the source (Model
or RuleBase) and a user-facing pandas DataFrame and returns :class:`Outcome` (labels or values, and
probabilities in class order). Runners only use the contract's interfaces of each artefact.
"""

from __future__ import annotations

import sqlite3
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.table import Table, records

PROBA_PREFIX = "proba:"


@dataclass
class Outcome:
    prediction: np.ndarray
    proba: np.ndarray | None
    seconds: float
    note: str = ""


class Unavailable(Exception):
    """The runtime is not installed or not reachable here."""


# --- Python --------------------------------------------------------------------------------------


def load_python_module(source: str, name: str = "rulekit_exported") -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 - our own export
    return module


def run_python(obj, data) -> Outcome:
    from rulekit.export import to_python

    module = load_python_module(to_python(obj))
    rows = records(data, list(module.FEATURES))
    t0 = time.perf_counter()
    pred = np.asarray([module.predict(r) for r in rows], dtype=object)
    proba = None
    if obj.task == "classification":
        proba = np.asarray([module.predict_proba(r) for r in rows], dtype=np.float64)
    return Outcome(pred, proba, time.perf_counter() - t0)


# --- SQL -----------------------------------------------------------------------------------------


def _quote(name: str, dialect: str) -> str:
    import sqlglot.expressions as exp

    return exp.to_identifier(name, quoted=True).sql(dialect=dialect)


def _column_types(obj, dialect: str) -> list[tuple[str, str]]:
    double = {"mysql": "DOUBLE", "postgres": "DOUBLE PRECISION", "sqlite": "REAL", "duckdb": "DOUBLE"}
    text = {"mysql": "TEXT", "postgres": "TEXT", "sqlite": "TEXT", "duckdb": "VARCHAR"}
    out = []
    for f in obj.features:
        if f.kind == "nominal" and not all(isinstance(v, int) for v in f.domain or ()):
            out.append((f.name, text[dialect]))
        else:
            out.append((f.name, double[dialect]))
    return out


def _rows(obj, table: Table) -> list[tuple]:
    """Rows for a DB-API executemany: floats as Python floats (exact doubles), labels as text."""
    names = [f.name for f in obj.features]
    return [tuple(r[n] if not isinstance(r[n], int) or isinstance(r[n], bool) else float(r[n])
                  for n in names) for r in records(table, names)]


def _collect(obj, result_rows: list[tuple], t0: float) -> Outcome:
    result_rows = sorted(result_rows, key=lambda r: r[0])
    pred = np.asarray([r[1] for r in result_rows], dtype=object)
    proba = None
    if obj.task == "classification":
        proba = np.asarray([[np.nan if v is None else float(v) for v in r[2:]] for r in result_rows])
    else:
        pred = np.asarray([np.nan if v is None else float(v) for v in pred])
    return Outcome(pred, proba, time.perf_counter() - t0)


def _sql(obj, dialect: str, table: str) -> str:
    from rulekit.export import to_sql

    return to_sql(obj, dialect=dialect, table=table, key="__row", proba=obj.task == "classification")


def _run_dbapi(obj, data: Table, conn, dialect: str, table: str, placeholder: str) -> Outcome:
    """Load ``data`` into a fresh table (doubles bound as parameters, so stored exactly), run the
    exported SELECT over it, drop the table."""
    cols = _column_types(obj, dialect)
    cur = conn.cursor()
    qt = _quote(table, dialect)
    cur.execute(f"DROP TABLE IF EXISTS {qt}")
    defs = ", ".join([f"{_quote('__row', dialect)} INTEGER"] + [f"{_quote(n, dialect)} {t}" for n, t in cols])
    cur.execute(f"CREATE TABLE {qt} ({defs})")
    marks = ", ".join([placeholder] * (len(cols) + 1))
    rows = [(i,) + r for i, r in enumerate(_rows(obj, data))]
    cur.executemany(f"INSERT INTO {qt} VALUES ({marks})", rows)
    sql = _sql(obj, dialect, table)
    t0 = time.perf_counter()
    try:
        cur.execute(sql)
        out = cur.fetchall()
    finally:
        cur.execute(f"DROP TABLE IF EXISTS {qt}")
    return _collect(obj, [tuple(r) for r in out], t0)


def run_sqlite(obj, data) -> Outcome:
    conn = sqlite3.connect(":memory:")
    try:
        return _run_dbapi(obj, data, conn, "sqlite", "rulekit_verify", "?")
    finally:
        conn.close()


def run_duckdb(obj, data) -> Outcome:
    try:
        import duckdb
    except ImportError:
        raise Unavailable("duckdb is not installed (pip install 'rulekit[duckdb]')") from None
    conn = duckdb.connect()
    try:
        return _run_dbapi(obj, data, conn, "duckdb", "rulekit_verify", "?")
    finally:
        conn.close()


def run_postgres(obj, data, dsn: str = "host=127.0.0.1 port=5432 dbname=test user=postgres") -> Outcome:
    try:
        import psycopg
    except ImportError:
        raise Unavailable("psycopg is not installed (pip install 'rulekit[postgres]')") from None
    try:
        conn = psycopg.connect(dsn, autocommit=True, connect_timeout=3)
    except Exception as err:  # noqa: BLE001
        raise Unavailable(f"PostgreSQL not reachable ({type(err).__name__})") from None
    with conn:
        return _run_dbapi(obj, data, conn, "postgres", f"rulekit_verify_{time.time_ns()}", "%s")


def run_mysql(obj, data) -> Outcome:
    try:
        import pymysql
    except ImportError:
        raise Unavailable("pymysql is not installed (pip install 'rulekit[mysql]')") from None
    try:
        conn = pymysql.connect(host="127.0.0.1", user="root", password="", database="test",
                               autocommit=True, connect_timeout=3)
    except Exception as err:  # noqa: BLE001
        raise Unavailable(f"MariaDB/MySQL not reachable ({type(err).__name__})") from None
    try:
        return _run_dbapi(obj, data, conn, "mysql", f"rulekit_verify_{time.time_ns()}", "%s")
    finally:
        conn.close()


# --- ONNX ----------------------------------------------------------------------------------------


def run_onnx(obj, data, dtype: str = "float") -> Outcome:
    """The ONNX export in onnxruntime. With float32 input the model sees float32(x): callers
    compare against the source evaluated on the same float32-rounded data."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise Unavailable("onnxruntime is not installed (pip install 'rulekit[onnxruntime]')") from None
    from rulekit.export import to_onnx
    from rulekit.ir.data import to_matrix

    proto = to_onnx(obj, dtype=dtype)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    X = to_matrix(data, obj.features).astype(np.float64 if dtype == "double" else np.float32)
    t0 = time.perf_counter()
    names = [o.name for o in sess.get_outputs()]
    res = dict(zip(names, sess.run(None, {"X": X})))
    seconds = time.perf_counter() - t0
    if obj.task == "classification":
        return Outcome(np.asarray(res["label"]).astype(object), np.asarray(res["probabilities"], np.float64),
                       seconds)
    return Outcome(np.asarray(res["prediction"], np.float64).ravel(), None, seconds)


RUNNERS: dict[str, Callable[..., Outcome]] = {
    "python": run_python,
    "sqlite": run_sqlite,
    "duckdb": run_duckdb,
    "postgres": run_postgres,
    "mysql": run_mysql,
    "onnx": run_onnx,
    "onnx-double": lambda obj, data: run_onnx(obj, data, dtype="double"),
}


def runner(name: str) -> Callable[..., Outcome]:
    try:
        return RUNNERS[name]
    except KeyError:
        raise RulekitError(f"unknown backend {name!r} (choose from {', '.join(RUNNERS)})") from None
