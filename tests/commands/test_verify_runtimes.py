"""verify's fast paths keep the guarantee: the loaders store every value exactly (NaN as NULL), the
per-row Python functions still see every probe row, and the batch functions see every row."""

import numpy as np
import pytest

from rulekit import runtimes
from rulekit.commands import verify as V
from rulekit.ir.model import Feature
from rulekit.table import from_data, n_rows
from tests import zoo

HOSTILE = ['a "quoted" name', "tab\there", "semi;colon --", "ünï"]


class _Src:
    """Just what the loaders read from a source: its features."""

    def __init__(self, features):
        self.features = features


def _values():
    """Doubles a loader could spoil: neighbours of float32 thresholds, tiny, huge, -0.0, NaN."""
    t = float(np.float32(0.1))
    vals = [t, np.nextafter(t, 1.0), np.nextafter(t, -1.0), 5e-324, -1.7976931348623157e308, -0.0,
            np.nan, 1 / 3, 2.0 ** 60 + 2 ** 8, np.nan]
    return np.asarray(vals, dtype=np.float64)


def _table():
    x = _values()
    labels = np.asarray(["o'neil", None, "x\ny", "plain", "\\N", "", "b", None, "tab\t", "z"], dtype=object)
    src = _Src([Feature(name=HOSTILE[0], kind="numeric"), Feature(name=HOSTILE[1], kind="numeric"),
                Feature(name=HOSTILE[2], kind="nominal", domain=["o'neil", "x\ny", "plain", "\\N", "", "b",
                                                                  "tab\t", "z"])])
    return src, {HOSTILE[0]: x, HOSTILE[1]: x[::-1].copy(), HOSTILE[2]: labels}


def _read_back(cur, qt, src, dialect):
    q = runtimes._quote
    cols = ", ".join(q(f.name, dialect) for f in src.features)
    cur.execute(f"SELECT {cols} FROM {qt} ORDER BY {q('__row', dialect)}")
    return [tuple(r) for r in cur.fetchall()]


def _expected(table, src):
    rows = []
    for i in range(n_rows(table)):
        row = []
        for f in src.features:
            v = table[f.name][i]
            row.append(None if v is None or (isinstance(v, float) and np.isnan(v)) else v)
        rows.append(tuple(row))
    return rows


def _same(got, want):
    """Equal with doubles compared bit for bit, except the sign of zero (SQLite stores -0.0 as 0;
    no comparison can tell them apart)."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            if isinstance(b, float):
                assert isinstance(a, float), (a, b)
                assert a == b == 0.0 or np.float64(a).tobytes() == np.float64(b).tobytes(), (a, b)
            else:
                assert a == b, (a, b)


def _load_and_read(conn, dialect, load, qt_name):
    src, table = _table()
    cur = conn.cursor()
    qt = runtimes._quote(qt_name, dialect)
    cur.execute(f"DROP TABLE IF EXISTS {qt}")
    defs = ", ".join([f"{runtimes._quote('__row', dialect)} INTEGER"] +
                     [f"{runtimes._quote(n, dialect)} {t}" for n, t in runtimes._column_types(src, dialect)])
    cur.execute(f"CREATE TABLE {qt} ({defs})")
    try:
        load(cur, src, table, dialect, qt, "%s" if dialect == "postgres" else "?")
        got = _read_back(cur, qt, src, dialect)
    finally:
        cur.execute(f"DROP TABLE IF EXISTS {qt}")
    _same(got, _expected(table, src))


def test_duckdb_loader_is_exact():
    duckdb = pytest.importorskip("duckdb")
    conn = duckdb.connect()
    _load_and_read(conn, "duckdb", runtimes._duckdb_load, "t")


def test_sqlite_loader_is_exact():
    import sqlite3

    _load_and_read(sqlite3.connect(":memory:"), "sqlite", runtimes._insert_rows, "t")


def test_postgres_copy_is_exact(pg_conn, unique_name):
    _load_and_read(pg_conn, "postgres", runtimes._postgres_copy, unique_name)


def test_per_row_rows_keep_every_probe_row():
    assert V.per_row_rows(5_000, None) is None and V.per_row_rows(5_000, 1_500) is None
    rows = V.per_row_rows(50_000, 30_000, sample=1_000)
    assert len(rows) == 1_000 + 20_000 and np.all(np.diff(rows) > 0)
    assert set(range(30_000, 50_000)) <= set(rows.tolist())
    assert np.array_equal(rows, V.per_row_rows(50_000, 30_000, sample=1_000))  # seeded


def _big_probe_table(monkeypatch):
    model, data = zoo.get("sklearn_tree_multiclass_hostile")
    monkeypatch.setattr(V, "PER_ROW_SAMPLE", 50)
    base = from_data(data, model.features)
    return model, V.probe_table(model, base), n_rows(base)


def test_sampled_per_row_runner_sees_probes_and_batch_sees_all(monkeypatch):
    model, table, n_data = _big_probe_table(monkeypatch)
    assert n_data > 50
    seen = {}

    def spy(name):
        real = runtimes.RUNNERS[name]

        def run(obj, data):
            seen[name] = n_rows(data)
            return real(obj, data)
        return run

    for name in ("python", "python-batch"):
        monkeypatch.setitem(runtimes.RUNNERS, name, spy(name))
    reports = V.verify(model, table, ["python", "python-batch"], n_data=n_data)
    assert all(r.status == "ok" for r in reports), reports
    assert seen["python"] == 50 + n_rows(table) - n_data and seen["python-batch"] == n_rows(table)
    assert [r.rows for r in reports] == [seen["python"], seen["python-batch"]]


def test_a_wrong_probe_row_in_the_per_row_functions_is_found(monkeypatch):
    model, table, n_data = _big_probe_table(monkeypatch)
    real = runtimes.RUNNERS["python"]

    def wrong_on_last_row(obj, data):  # the last row is a probe row (all features missing)
        out = real(obj, data)
        out.proba[-1] = out.proba[-1][::-1] + 1e-9
        return out

    monkeypatch.setitem(runtimes.RUNNERS, "python", wrong_on_last_row)
    (report,) = V.verify(model, table, ["python"], n_data=n_data)
    assert report.status == "DISAGREES" and report.max_diff > 1e-12


def test_python_batch_on_regression_and_rules():
    from rulekit.rules import to_rules

    for name in ("sklearn_tree_regressor", "handmade_nominal"):
        model, data = zoo.get(name)
        for obj in (model, to_rules(model)):
            table = V.probe_table(obj, from_data(data.head(60), obj.features))
            reports = V.verify(obj, table, ["python", "python-batch"])
            assert [r.status for r in reports] == ["ok", "ok"], (name, reports)
            assert reports[1].rows == n_rows(table)


def test_per_row_python_gets_dict_rows_and_sequence_rows():
    model, data = zoo.get("xgboost_binary_nan_hostile")
    table = V.probe_table(model, from_data(data.head(30), model.features))
    module = runtimes._exported_module(model)
    rows = runtimes._python_rows(module, table)
    assert len(rows) == n_rows(table)
    dicts, seqs = rows[0::2], rows[1::2]
    assert all(isinstance(r, dict) for r in dicts) and all(isinstance(r, list) for r in seqs)
    assert any(None in r.values() for r in dicts)  # missing as None in a mapping
    assert any(any(v != v for v in r) for r in seqs)  # missing as NaN in a sequence (the fast path)
    out = runtimes.run_python(model, table)
    assert list(out.prediction) == list(model.predict(table))
    assert np.array_equal(out.proba, model.predict_proba(table))


def test_concurrent_backends_report_like_sequential_ones():
    model, data = zoo.get("lightgbm_categorical_nan")
    table = V.probe_table(model, from_data(data.head(80), model.features))
    names = ["python", "python-batch", "sqlite", "duckdb", "onnx", "onnx-double"]
    one = V.verify(model, table, names, jobs=1)
    three = V.verify(model, table, names, jobs=3)
    key = [(r.backend, r.rows, r.label_mismatches, r.max_diff, r.status) for r in one]
    assert key == [(r.backend, r.rows, r.label_mismatches, r.max_diff, r.status) for r in three]
    assert all(r.status == "ok" for r in one)


def test_concurrent_unreachable_explicit_backend_is_an_error(monkeypatch):
    from rulekit.errors import RulekitError

    model, data = zoo.get("sklearn_tree_binary")
    table = V.probe_table(model, from_data(data.head(40), model.features))

    def unreachable(obj, data):
        raise runtimes.Unavailable("not here")

    monkeypatch.setitem(runtimes.RUNNERS, "duckdb", unreachable)
    with pytest.raises(RulekitError, match="backend duckdb: not here"):
        V.verify(model, table, ["python", "duckdb", "sqlite"], explicit=True, jobs=2)
    (skipped,) = [r for r in V.verify(model, table, ["python", "duckdb"], jobs=2) if r.backend == "duckdb"]
    assert skipped.status == "skipped: not here" and skipped.ok
