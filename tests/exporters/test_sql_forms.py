"""SQL deployment forms (``form=view|function``) run in real engines against the source.

Views in SQLite, DuckDB, PostgreSQL and MariaDB; scalar functions (the bare expression over
parameters p1..pn) in DuckDB, PostgreSQL and MariaDB, called on every row of a table; table
functions (``proba``) in PostgreSQL and DuckDB through LATERAL. Models: threshold rows, NaN -> NULL
rows and hostile feature names and labels (the zoo), rule bases too. BigQuery, Snowflake and T-SQL
forms are parsed by sqlglot; refusals are one clear ExportError.
"""

from __future__ import annotations

import re

import pytest
import sqlglot

from rulekit.errors import ExportError
from rulekit.exporters.sql import dialect as sql_dialect
from rulekit.exporters.sql import to_sql
from tests import zoo
from tests.marks import zoo_cases
from tests.exporters.test_sql_engines import (  # noqa: F401 (fixtures)
    KEY, _drop, compare, duck_conn, load, query, rules_of, sqlite_conn, table_columns)

MODELS = ["sklearn_tree_multiclass_hostile", "sklearn_gb_multiclass_hostile", "xgboost_binary_nan_hostile",
          "handmade_nominal", "learned_regressor_oblique", "lightgbm_categorical_nan", "sklearn_hgb_regressor",
          "handmade_tiny_magnitudes"]
CONN = {"sqlite": "sqlite_conn", "duckdb": "duck_conn", "postgres": "pg_conn", "mysql": "mysql_conn"}


def _source(name: str, rules: bool):
    model, data = zoo.get(name)
    return (rules_of(model) if rules else model), data


def execute(conn, engine: str, sql: str) -> None:
    """Run a form's statements (MariaDB/SQLite: one at a time; their splitting points are known)."""
    if engine == "duckdb":
        conn.execute(sql)
        return
    cur = conn.cursor()
    if engine == "sqlite":
        cur.executescript(sql)
        return
    body = "\n".join(ln for ln in sql.split("\n") if not ln.startswith("-- ")) if engine == "mysql" else sql
    if engine == "mysql" and body.startswith("DROP FUNCTION") and ";\n" in body:
        first, body = body.split(";\n", 1)
        cur.execute(first)
    cur.execute(body.rstrip().removesuffix(";"))


@pytest.mark.parametrize("rules", [False, True], ids=["model", "rules"])
@pytest.mark.parametrize("name", zoo_cases(MODELS))
@pytest.mark.parametrize("engine", list(CONN))
def test_view(engine, name, rules, request, unique_name):
    conn = request.getfixturevalue(CONN[engine])
    obj, data = _source(name, rules)
    d = sql_dialect.get(engine)
    proba = obj.task == "classification"
    view = unique_name + "_v"
    sql = to_sql(obj, dialect=engine, table=unique_name, key=KEY, proba=proba, form="view", name=view,
                 replace=True)
    load(conn, engine, obj, data, unique_name)
    try:
        execute(conn, engine, sql)
        execute(conn, engine, sql)  # --replace: a second run replaces the view
        compare(obj, data, query(conn, engine, f"SELECT * FROM {d.ident(view)}"), proba=proba,
                where=f"{engine} view")
    finally:
        execute(conn, engine, f"DROP VIEW IF EXISTS {d.ident(view)}")
        _drop(conn, engine, unique_name)


@pytest.mark.parametrize("rules", [False, True], ids=["model", "rules"])
@pytest.mark.parametrize("name", zoo_cases(MODELS))
@pytest.mark.parametrize("engine", ["duckdb", "postgres", "mysql"])
def test_function(engine, name, rules, request, unique_name):
    conn = request.getfixturevalue(CONN[engine])
    obj, data = _source(name, rules)
    d = sql_dialect.get(engine)
    fn = unique_name + "_f"
    sql = to_sql(obj, dialect=engine, form="function", name=fn)
    load(conn, engine, obj, data, unique_name)
    args = ", ".join(d.ident(n) for n, _ in table_columns(obj))
    drop = {"duckdb": "DROP MACRO", "postgres": "DROP FUNCTION", "mysql": "DROP FUNCTION"}[engine]
    try:
        execute(conn, engine, sql)
        rows = query(conn, engine, f"SELECT {d.ident(KEY)}, {d.ident(fn)}({args}) FROM {d.ident(unique_name)}")
        compare(obj, data, rows, proba=False, where=f"{engine} function")
    finally:
        execute(conn, engine, f"{drop} IF EXISTS {d.ident(fn)}")
        for helper in re.findall(r'^CREATE FUNCTION ("[^"]*_rk\d+")\(', sql, flags=re.M)[::-1]:  # PostgreSQL
            execute(conn, engine, f"DROP FUNCTION IF EXISTS {helper}")
        _drop(conn, engine, unique_name)


@pytest.mark.parametrize("rules", [False, True], ids=["model", "rules"])
@pytest.mark.parametrize("name", zoo_cases([m for m in MODELS if zoo.get(m)[0].task == "classification"]))
@pytest.mark.parametrize("engine", ["duckdb", "postgres"])
def test_table_function(engine, name, rules, request, unique_name):
    conn = request.getfixturevalue(CONN[engine])
    obj, data = _source(name, rules)
    d = sql_dialect.get(engine)
    fn = unique_name + "_p"
    sql = to_sql(obj, dialect=engine, form="function", name=fn, proba=True)
    load(conn, engine, obj, data, unique_name)
    args = ", ".join("t." + d.ident(n) for n, _ in table_columns(obj))
    try:
        execute(conn, engine, sql)
        rows = query(conn, engine, f"SELECT t.{d.ident(KEY)}, r.* FROM {d.ident(unique_name)} AS t "
                                   f"CROSS JOIN LATERAL {d.ident(fn)}({args}) AS r")
        compare(obj, data, rows, proba=True, where=f"{engine} table function")
    finally:
        execute(conn, engine, f"{'DROP MACRO TABLE' if engine == 'duckdb' else 'DROP FUNCTION'} IF EXISTS "
                              f"{d.ident(fn)}")
        _drop(conn, engine, unique_name)


@pytest.mark.parametrize("name", zoo_cases(MODELS))
@pytest.mark.parametrize("engine", ["bigquery", "snowflake", "tsql", "spark"])
def test_forms_parse(engine, name):
    """Every form parses in sqlglot's reader of the dialect (one statement per CREATE)."""
    obj, _ = _source(name, False)
    proba = obj.task == "classification"
    sqls = [to_sql(obj, dialect=engine, table="t", key=KEY, proba=proba, form="view", replace=True),
            to_sql(obj, dialect=engine, form="function", replace=True)]
    if engine in ("snowflake", "tsql") and proba:
        sqls.append(to_sql(obj, dialect=engine, form="function", proba=True))
    for sql in sqls:
        parsed = sqlglot.parse(sql, read=engine)
        kinds = [type(p).__name__ for p in parsed if p is not None]
        assert kinds and all(k == "Create" for k in kinds), (engine, kinds)


def test_parameters_avoid_feature_names(duck_conn, unique_name):
    """A feature named p1 moves the parameters to pp1..: the comment maps them, results stay exact."""
    from rulekit.rename import rename_features

    model, data = zoo.get("sklearn_tree_binary")
    model = rename_features(model, {model.feature_names[0]: "p2", model.feature_names[1]: "P1"})
    data = data.rename(columns={zoo.get("sklearn_tree_binary")[0].feature_names[0]: "p2",
                                zoo.get("sklearn_tree_binary")[0].feature_names[1]: "P1"})
    sql = to_sql(model, dialect="duckdb", form="function", name=unique_name)
    assert '--   pp1 = "p2"' in sql and '--   pp2 = "P1"' in sql
    load(duck_conn, "duckdb", model, data, unique_name)
    args = ", ".join(f'"{n}"' for n, _ in table_columns(model))
    duck_conn.execute(sql)
    rows = query(duck_conn, "duckdb", f'SELECT "{KEY}", "{unique_name}"({args}) FROM "{unique_name}"')
    compare(model, data, rows, proba=False, where="duckdb renamed parameters")


@pytest.mark.parametrize(("engine", "options", "message"), [
    ("sqlite", {"form": "function"}, "SQLite has no SQL-defined functions"),
    ("mysql", {"form": "function", "proba": True}, "no table functions"),
    ("duckdb", {"form": "view"}, "needs a table"),
    ("duckdb", {"form": "select"}, "needs a table"),
    ("duckdb", {"form": "function", "table": "t"}, "do not apply"),
    ("duckdb", {"form": "expression", "name": "x"}, "applies to --form view, function or dbt"),
    ("duckdb", {"form": "table"}, "unknown SQL form"),
    ("duckdb", {"form": "dbt"}, "--form dbt needs the model's input"),
    ("duckdb", {"form": "dbt", "table": "a.b.c"}, "must be NAME or SOURCE.NAME"),
    ("duckdb", {"form": "dbt", "table": "raw", "name": "bad name"}, "must be letters, digits and _"),
])
def test_refusals(engine, options, message):
    model, _ = zoo.get("sklearn_tree_binary")
    with pytest.raises(ExportError, match=message):
        to_sql(model, dialect=engine, **options)


def test_default_forms_unchanged():
    model, _ = zoo.get("sklearn_tree_binary")
    for dl in ("sqlite", "postgres"):
        assert to_sql(model, dialect=dl, table="t") == to_sql(model, dialect=dl, table="t", form="select")
        assert to_sql(model, dialect=dl) == to_sql(model, dialect=dl, form="expression")


def test_statement_limits(monkeypatch):
    """--max-statement-bytes refuses (naming it) what is longer; an enforced dialect limit likewise,
    by default, naming the documented limit; an advisory one (Snowflake) only when asked."""
    from rulekit.exporters.sql import limits

    model, _ = zoo.get("sklearn_tree_binary")
    size = len(to_sql(model, dialect="snowflake", table="t").encode("utf-8"))
    assert to_sql(model, dialect="snowflake", table="t", max_statement_bytes=size)
    with pytest.raises(ExportError, match=f"over --max-statement-bytes {size - 1:,}"):
        to_sql(model, dialect="snowflake", table="t", max_statement_bytes=size - 1)
    with pytest.raises(ExportError, match="over --max-statement-bytes"):
        to_sql(model, dialect="duckdb", form="function", max_statement_bytes=100)
    monkeypatch.setitem(limits.LIMITS, "bigquery", limits.Limit(100, "characters", True, "BigQuery's test limit"))
    monkeypatch.setitem(limits.LIMITS, "snowflake", limits.Limit(100, "bytes", False, "Snowflake's test limit"))
    with pytest.raises(ExportError, match="over BigQuery's test limit"):
        to_sql(model, dialect="bigquery", table="t")
    assert to_sql(model, dialect="snowflake", table="t")  # advisory: not enforced by default
    with pytest.raises(ExportError, match="must be a positive integer"):
        to_sql(model, dialect="sqlite", max_statement_bytes=0)


def test_cli_forms(tmp_path):
    """The CLI writes a form to a file and refuses bad combinations in one line, exit 2."""
    import subprocess
    import sys

    model, _ = zoo.get("sklearn_tree_binary")
    path = tmp_path / "m.json"
    model.save(path)
    out = tmp_path / "v.sql"

    def run(*args):
        return subprocess.run([sys.executable, "-m", "rulekit", "export", str(path), "--to", "sql", *args],
                              capture_output=True, text=True, timeout=120)

    r = run("--dialect", "postgres", "--form", "view", "--table", "t", "--name", "s.v", "--replace", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_text().startswith('CREATE OR REPLACE VIEW "s"."v" AS\n')
    for args, message in [(["--form", "function"], "SQLite has no SQL-defined functions"),
                          (["--form", "view"], "needs a table"),
                          (["--max-statement-bytes", "10", "--form", "expression"], "over --max-statement-bytes")]:
        r = run(*args, "-o", str(tmp_path / "x.sql"))
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "x.sql").exists()
    r = subprocess.run([sys.executable, "-m", "rulekit", "export", str(path), "--to", "python", "--form", "view",
                        "-o", str(tmp_path / "x.py")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--form applies to --to sql" in r.stderr


@pytest.mark.parametrize("name", zoo_cases(MODELS))
def test_bigquery_dataset_names_make_persistent_functions(name):
    """BigQuery: `--name dataset.fn` writes a persistent function, and with --proba a persistent table
    function (temporary table functions do not exist there); an unqualified name stays TEMP."""
    obj, _ = _source(name, False)
    scalar = to_sql(obj, dialect="bigquery", form="function", name="ds.score", replace=True)
    assert "CREATE OR REPLACE FUNCTION `ds`.`score`(" in scalar and "TEMP" not in scalar
    assert "CREATE TEMP FUNCTION" in to_sql(obj, dialect="bigquery", form="function", name="score")
    sqls = [scalar]
    if obj.task == "classification":
        table = to_sql(obj, dialect="bigquery", form="function", name="ds.score", proba=True)
        assert "CREATE TABLE FUNCTION `ds`.`score`(" in table
        sqls.append(table)
        with pytest.raises(ExportError, match="name a dataset"):
            to_sql(obj, dialect="bigquery", form="function", name="score", proba=True)
    for sql in sqls:
        parsed = [p for p in sqlglot.parse(sql, read="bigquery") if p is not None]
        assert [type(p).__name__ for p in parsed] == ["Create"]
