"""Run an exported artefact in its real runtime and collect its predictions.

Used by ``rulekit verify``, the demo and the end-to-end tests. Each runner takes the source (Model
or RuleBase) and a table of user-facing values (``rulekit.table``) and returns :class:`Outcome`
(labels or values, and probabilities in class order). Runners only use the interfaces each artefact
offers its users: the Python module's per-row and batch functions, the SQL as text in the engine,
the ONNX graph in onnxruntime. They say what they are doing through ``rulekit.progress.note``.
"""

from __future__ import annotations

import json

import sqlite3
import time
import types
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from rulekit import progress
from rulekit.errors import RulekitError
from rulekit.table import Table, n_rows

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


_last_module: tuple[str, types.ModuleType] | None = None
_kept_exports: dict[int, tuple[Any, str]] | None = None


@contextmanager
def keep_exports():
    """Within the block each source is exported to Python once (verify runs the per-row and the
    batch runner on one unchanged source); the exports and the loaded module are dropped after."""
    global _kept_exports, _last_module
    _kept_exports = {}
    try:
        yield
    finally:
        _kept_exports = None
        _last_module = None


def _exported_module(obj) -> types.ModuleType:
    """The Python export of ``obj``, loaded. The last module is kept, keyed by its text (so an
    edited source is never served stale), for the per-row and the batch runner to share."""
    global _last_module
    from rulekit.export import to_python

    kept = _kept_exports.get(id(obj)) if _kept_exports is not None else None
    if kept is not None and kept[0] is obj:
        source = kept[1]
    else:
        progress.note("python: exporting")
        source = to_python(obj)
        if _kept_exports is not None:
            _kept_exports[id(obj)] = (obj, source)
    if _last_module is None or _last_module[0] != source:
        progress.note("python: loading the module")
        _last_module = (source, load_python_module(source))
    return _last_module[1]


def _python_rows(module, data: Table) -> list:
    """Rows in both forms the module takes, alternating: a dict by name with None for missing,
    then a list in FEATURES order with NaN for a missing number (the no-conversion fast path)."""
    names = list(module.FEATURES)
    cols = []
    for name in names:
        values = data[name]
        if values.dtype != object:
            cols.append(values.astype(np.float64).tolist())
        else:
            cols.append([v.item() if isinstance(v, np.generic) else v for v in values.tolist()])
    rows: list = []
    for i, seq in enumerate(zip(*cols)):
        if i % 2:
            rows.append(list(seq))
        else:
            rows.append({n: None if v is None or (isinstance(v, float) and v != v) else v
                         for n, v in zip(names, seq)})
    return rows


def run_python(obj, data) -> Outcome:
    """The module's per-row ``predict(row)`` and ``predict_proba(row)`` on every row, rows given
    alternately as dicts and as sequences (:func:`_python_rows`)."""
    module = _exported_module(obj)
    rows = _python_rows(module, data)
    classification = obj.task == "classification"
    pred, proba = [], []
    t0 = time.perf_counter()
    step = 2_000
    for lo in range(0, len(rows), step):
        progress.note(f"python: per-row functions, {lo:,}/{len(rows):,} rows")
        chunk = rows[lo:lo + step]
        pred += [module.predict(r) for r in chunk]
        if classification:
            proba += [module.predict_proba(r) for r in chunk]
    seconds = time.perf_counter() - t0
    return Outcome(np.asarray(pred, dtype=object),
                   np.asarray(proba, dtype=np.float64).reshape(len(rows), len(obj.classes))
                   if classification else None,
                   seconds)


def run_python_batch(obj, data) -> Outcome:
    """The module's ``predict_batch(X)`` and ``predict_proba_batch(X)`` on every row (X: columns by
    name, numpy arrays; missing NaN/None)."""
    module = _exported_module(obj)
    X = {name: data[name] for name in module.FEATURES}
    progress.note(f"python-batch: scoring {n_rows(data):,} rows")
    t0 = time.perf_counter()
    pred = np.asarray(module.predict_batch(X))
    proba = None
    if obj.task == "classification":
        proba = np.asarray(module.predict_proba_batch(X), dtype=np.float64)
    else:
        pred = pred.astype(np.float64)
    return Outcome(pred.astype(object) if obj.task == "classification" else pred, proba,
                   time.perf_counter() - t0)


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


def _db_column(values: np.ndarray, numeric: bool) -> list:
    """One column as Python values for a DB-API driver: floats (exact doubles; whole-number labels
    of an integer domain become floats too), text labels as they are, None for missing."""
    if numeric:
        if values.dtype != object:
            col = values.astype(np.float64).tolist()
            return [None if v != v else v for v in col]  # v != v: NaN
        return [None if v is None or v != v else float(v) for v in values.tolist()]
    return [None if v is None or (isinstance(v, float) and v != v) else v for v in values.tolist()]


def _rows(obj, table: Table) -> list[tuple]:
    """Rows for a DB-API executemany/COPY, with the row number first (the key the SQL returns)."""
    kinds = dict(_column_types(obj, "sqlite"))
    cols = [_db_column(table[f.name], kinds[f.name] == "REAL") for f in obj.features]
    return list(zip(range(n_rows(table)), *cols))


def _collect(obj, result_rows: list[tuple], t0: float) -> Outcome:
    result_rows = sorted(result_rows, key=lambda r: r[0])
    pred = np.asarray([r[1] for r in result_rows], dtype=object)
    proba = None
    if obj.task == "classification":
        # (rows, classes) even for no rows: an empty result is shape (0,) otherwise, which verify
        # read as a shape mismatch (max |d| inf, DISAGREES) on a header-only CSV
        proba = np.asarray([[np.nan if v is None else float(v) for v in r[2:]] for r in result_rows],
                           dtype=np.float64).reshape(len(result_rows), len(obj.classes or ()))
    else:
        pred = np.asarray([np.nan if v is None else float(v) for v in pred])
    return Outcome(pred, proba, time.perf_counter() - t0)


def _sql(obj, dialect: str, table: str) -> str:
    from rulekit.export import to_sql

    return to_sql(obj, dialect=dialect, table=table, key="__row", proba=obj.task == "classification")


def _insert_rows(cur, obj, data: Table, dialect: str, qt: str, placeholder: str) -> None:
    """Rows as bound parameters (doubles travel as binary or shortest-repr text: stored exactly)."""
    marks = ", ".join([placeholder] * (len(obj.features) + 1))
    cur.executemany(f"INSERT INTO {qt} VALUES ({marks})", _rows(obj, data))


def _run_dbapi(obj, data: Table, conn, dialect: str, table: str, placeholder: str,
               load=_insert_rows) -> Outcome:
    """Load ``data`` into a fresh table with ``load`` (values stored exactly), run the exported
    SELECT over it, drop the table."""
    cols = _column_types(obj, dialect)
    cur = conn.cursor()
    qt = _quote(table, dialect)
    progress.note(f"{dialect}: exporting SQL")
    sql = _sql(obj, dialect, table)
    cur.execute(f"DROP TABLE IF EXISTS {qt}")
    try:
        defs = ", ".join([f"{_quote('__row', dialect)} INTEGER"] +
                         [f"{_quote(n, dialect)} {t}" for n, t in cols])
        cur.execute(f"CREATE TABLE {qt} ({defs})")
        progress.note(f"{dialect}: loading {n_rows(data):,} rows")
        load(cur, obj, data, dialect, qt, placeholder)
        progress.note(f"{dialect}: scoring {n_rows(data):,} rows")
        t0 = time.perf_counter()
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
        return _run_dbapi(obj, data, conn, "duckdb", "rulekit_verify", "?", load=_duckdb_load)
    finally:
        conn.close()


def _duckdb_load(cur, obj, data: Table, dialect: str, qt: str, placeholder: str) -> None:
    """Insert from numpy columns registered with DuckDB (its executemany takes ~0.5 ms a row).
    Doubles are copied bit for bit; NaN is turned into NULL explicitly, as a user's loader would."""
    cols = _column_types(obj, "duckdb")
    src = {"rk_row": np.arange(n_rows(data), dtype=np.int64)}
    select = ["rk_row"]
    for j, (name, kind) in enumerate(cols):
        values = data[name]
        if kind == "DOUBLE":
            if values.dtype == object:
                values = np.asarray([np.nan if v is None else float(v) for v in values], dtype=np.float64)
            src[f"c{j}"] = values.astype(np.float64)
            select.append(f"CASE WHEN isnan(c{j}) THEN NULL ELSE c{j} END")
        else:
            src[f"c{j}"] = np.asarray([None if v is None else str(v) for v in values], dtype=object)
            select.append(f"CAST(c{j} AS VARCHAR)")
    cur.register("rk_verify_src", src)
    try:
        cur.execute(f"INSERT INTO {qt} SELECT {', '.join(select)} FROM rk_verify_src")
    finally:
        cur.unregister("rk_verify_src")


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
        # JIT only changes how fast expressions run, never their result; compiling the deep CASE of
        # a big forest costs more than it saves (100 trees x 40k rows: ~120 s with it, ~6 s without)
        conn.execute("SET jit = off")
        return _run_dbapi(obj, data, conn, "postgres", f"rulekit_verify_{time.time_ns()}", "%s",
                          load=_postgres_copy)


def _postgres_copy(cur, obj, data: Table, dialect: str, qt: str, placeholder: str) -> None:
    """COPY the rows in (floats as shortest round-trip text, which PostgreSQL reads exactly)."""
    with cur.copy(f"COPY {qt} FROM STDIN") as copy:
        for row in _rows(obj, data):
            copy.write_row(row)


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


def onnx_input(obj, dtype: str) -> str:
    """The input type ``dtype`` ("auto", "float", "double") gives ``obj``: "float" or "double"."""
    if dtype == "auto":
        from rulekit.exporters.onnx import auto_dtype

        return auto_dtype(obj)
    return dtype


def run_onnx(obj, data, dtype: str = "auto") -> Outcome:
    """The ONNX export in onnxruntime, rows as the user gives them: float64, cast to float32 when
    the graph takes float input (the cast a user must make). ``dtype``: as ``export --dtype``."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise Unavailable("onnxruntime is not installed (pip install 'rulekit[onnxruntime]')") from None
    from rulekit.export import to_onnx
    from rulekit.ir.data import to_matrix

    dtype = onnx_input(obj, dtype)
    progress.note(f"onnx ({dtype}): exporting")
    proto = to_onnx(obj, dtype=dtype, warn=False)  # verify reports the cost row by row
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    with np.errstate(over="ignore"):  # doubles beyond float32's range become +-inf, as in a cast
        X = to_matrix(data, obj.features).astype(np.float64 if dtype == "double" else np.float32)
    progress.note(f"onnx ({dtype}): scoring {len(X):,} rows")
    t0 = time.perf_counter()
    names = [o.name for o in sess.get_outputs()]
    res = dict(zip(names, sess.run(None, {"X": X})))
    seconds = time.perf_counter() - t0
    if obj.task == "classification":
        labels = undecided_as_none(np.asarray(res["label"]).astype(object), proto)
        return Outcome(labels, np.asarray(res["probabilities"], np.float64), seconds)
    return Outcome(np.asarray(res["prediction"], np.float64).ravel(), None, seconds)


def undecided_as_none(labels: np.ndarray, proto) -> np.ndarray:
    """``labels`` with the ONNX export's "no rule decides" label (``rulekit.no_decision_label`` in
    its metadata: a rule base without a default) as None, the source's own answer for those rows."""
    meta = {p.key: p.value for p in proto.metadata_props}
    if "rulekit.no_decision_label" not in meta:
        return labels
    sentinel = json.loads(meta["rulekit.no_decision_label"])  # None: NaN (float labels)
    out = labels.copy()
    for i, v in enumerate(labels):
        if (v != v) if sentinel is None else (v == sentinel):  # NaN != NaN
            out[i] = None
    return out


RUNNERS: dict[str, Callable[..., Outcome]] = {
    "python": run_python,
    "python-batch": run_python_batch,
    "sqlite": run_sqlite,
    "duckdb": run_duckdb,
    "postgres": run_postgres,
    "mysql": run_mysql,
    "onnx": run_onnx,  # the default export: input type chosen by the model (auto)
    "onnx-float": lambda obj, data: run_onnx(obj, data, dtype="float"),
    "onnx-double": lambda obj, data: run_onnx(obj, data, dtype="double"),
}


def runner(name: str) -> Callable[..., Outcome]:
    try:
        return RUNNERS[name]
    except KeyError:
        raise RulekitError(f"unknown backend {name!r} (choose from {', '.join(RUNNERS)})") from None
