"""Dialects, names and the command line: sqlglot parse checks, BigQuery/Snowflake/T-SQL output
transpiled by sqlglot and run in DuckDB, hostile names, refused names, the bare expression form,
options and errors, and canaries showing the parity tests catch a wrong boundary or NULL side."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest
import sqlglot

import rulekit
from rulekit.errors import ExportError, RulekitError
from rulekit.exporters.sql import DIALECTS, to_sql
from rulekit.exporters.sql import dialect as sql_dialect
from rulekit.exporters.sql import query as sql_query
from rulekit.ir.model import Feature, Model
from rulekit.ir.tree import TreeBuilder
from tests import zoo
from tests.marks import slow_cases, zoo_cases
from tests.exporters.test_sql_engines import (KEY, compare, duck_conn, load, query, rules_of,  # noqa: F401
                                              run_bare, run_bare_snowflake_transpiled, run_in, sqlite_conn)

SMALL = ["sklearn_tree_multiclass_hostile", "handmade_nominal", "handmade_linear", "sklearn_gb_multiclass_hostile",
         "xgboost_binary_nan_hostile", "sklearn_hgb_categorical_nan"]


@pytest.fixture
def deep_recursion():
    """sqlglot's parser recurses per nesting level; give it room for 100 nested CASE levels."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    yield
    sys.setrecursionlimit(old)


# --- every dialect parses -------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", zoo_cases([n for n in SMALL if n in zoo.zoo_names()]))
def test_parses_in_its_dialect(dialect, name, deep_recursion):
    model, _ = zoo.get(name)
    proba = model.task == "classification"
    for sql in (to_sql(model, dialect=dialect, table="scores.t", key="id", proba=proba),
                to_sql(rules_of(model), dialect=dialect, table="t", proba=proba)):
        tree = sqlglot.parse_one(sql, read=dialect)
        assert tree.find(sqlglot.exp.Select) is not None
    try:
        bare = to_sql(model, dialect=dialect)
    except ExportError:
        assert dialect in ("mysql", "spark", "snowflake") and model.combiner.kind != "single"
    else:
        sqlglot.parse_one(f"SELECT {bare} AS p FROM t", read=dialect)


def _no_pick(dialect: str):
    d = sql_dialect.get(dialect)
    return dataclasses.replace(d, _cache={}, pick=None, pick_doubles=None) if dialect == "tsql" else d


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "tsql"])
@pytest.mark.parametrize("name", zoo_cases([n for n in SMALL + ["chain_deep", "xgboost_multiclass",
                                                                 "lightgbm_categorical_nan"] if n in zoo.zoo_names()]))
def test_transpiled_to_duckdb_runs_exactly(dialect, name, duck_conn, deep_recursion, unique_name):
    """What we cannot run, sqlglot carries to DuckDB: the same literals, NULL sides and sums must
    still agree with the model (T-SQL's CHOOSE has no DuckDB spelling: its CASE form is used)."""
    model, data = zoo.get(name)
    proba = model.task == "classification"
    sql = sql_query.build(model, _no_pick(dialect), table=unique_name, key=KEY, proba=proba)
    # T-SQL's float32 sums are CROSS APPLY chains: sqlglot writes INNER JOIN LATERAL with no ON
    out = sqlglot.transpile(sql, read=dialect, write="duckdb")[0].replace("INNER JOIN LATERAL", "CROSS JOIN LATERAL")
    load(duck_conn, "duckdb", model, data, unique_name)
    try:
        compare(model, data, query(duck_conn, "duckdb", out), proba=proba, where=f"{dialect}->duckdb")
    finally:
        duck_conn.execute(f'DROP TABLE "{unique_name}"')


def test_tsql_nests_case_at_most_10_deep():
    model = zoo.chain_model(300)
    sql = to_sql(model, dialect="tsql", table="t", proba=True)
    depth = best = 0
    for tok in sqlglot.tokenize(sql, read="tsql"):
        if tok.token_type == sqlglot.tokens.TokenType.CASE:
            depth += 1
            best = max(best, depth)
        elif tok.token_type == sqlglot.tokens.TokenType.END:
            depth -= 1
    assert 1 < best <= 10


def test_doubles_are_never_decimal(duck_conn):
    """DuckDB reads 0.0155 as DECIMAL; every literal we write is typed DOUBLE."""
    b = TreeBuilder()
    root = b.numeric(0, 0.0155, precision="float64")
    b.connect(root, b.leaf((0.1,)), 0)
    b.connect(root, b.leaf((0.2,)), 1)
    model = Model([b.graph], ["x"], task="regression")
    expr_sql = to_sql(model, dialect="duckdb")
    assert "np." not in expr_sql and "e" in expr_sql
    kinds = duck_conn.execute(f"SELECT typeof({expr_sql}) FROM (SELECT 0.5::DOUBLE AS x)").fetchall()
    assert kinds == [("DOUBLE",)]


def test_sqlite_reads_tiny_literals_exactly(sqlite_conn):
    """SQLite 3.40 divided tiny literals by an inexact 1e308 (1 ulp off for ~3% of doubles between
    1e-308 and 1e-250); rulekit writes those scaled by powers of two, and every one reads back bit
    for bit, subnormals and negatives included, as REAL."""
    d = sql_dialect.get("sqlite")
    rng = np.random.default_rng(11)
    values = list(rng.uniform(1, 10, 3000) * 10.0 ** rng.integers(-323, -240, 3000))
    values += [5e-324, -5e-324, 2.2250738585072014e-308, 2.3998446845010052e-293, 9.552447335286421e-296,
               -7.3e-300, 1e-280, 9.999999999999999e-281]
    values = [v * (-1) ** i for i, v in enumerate(values)]
    texts = [d.number(v) for v in values]
    assert sum("/ 4611686018427387904" in t for t in texts) > 1000  # the scaled form is in use
    got = sqlite_conn.execute("SELECT " + ", ".join(texts[:1900])).fetchone()
    got += sqlite_conn.execute("SELECT " + ", ".join(texts[1900:])).fetchone()
    assert [float(v).hex() for v in got] == [float(v).hex() for v in values]
    assert sqlite_conn.execute(f"SELECT typeof({texts[0]})").fetchone() == ("real",)


# --- names -----------------------------------------------------------------------------------------------


def _tiny(names, classes=("a", "b")) -> Model:
    b = TreeBuilder()
    root = b.numeric(0, 0.5)
    b.connect(root, b.leaf((1.0, 0.0)), 0)
    b.connect(root, b.leaf((0.0, 1.0)), 1)
    return Model([b.graph], list(names), task="classification", classes=list(classes))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_case_collisions_refused_where_names_fold(dialect):
    model = _tiny(["Age", "age"])
    folds = sql_dialect.get(dialect).case_insensitive
    if folds:
        with pytest.raises(ExportError, match="differ only in case"):
            to_sql(model, dialect=dialect, table="t")
    else:
        to_sql(model, dialect=dialect, table="t")


def test_refused_names():
    with pytest.raises(ExportError, match="differ only in case"):
        to_sql(_tiny(["Age", "x"]), dialect="sqlite", table="t", key="AGE")
    with pytest.raises(ExportError, match="same name"):
        to_sql(_tiny(["x", "y"]), dialect="sqlite", table="t", key="Prediction")
    with pytest.raises(ExportError, match="same name"):
        to_sql(_tiny(["x", "y"], classes=("A", "a")), dialect="duckdb", table="t", proba=True)
    to_sql(_tiny(["x", "y"], classes=("A", "a")), dialect="postgres", table="t", proba=True)
    with pytest.raises(ExportError, match="longer than postgres"):
        to_sql(_tiny(["é" * 40, "y"]), dialect="postgres", table="t")
    with pytest.raises(ExportError, match="NUL"):
        to_sql(_tiny(["a\x00b", "y"]), dialect="duckdb", table="t")
    with pytest.raises(ExportError, match="empty name"):
        to_sql(_tiny(["x", "y"]), dialect="duckdb", table="t", key="")


def test_mysql_identifiers_stay_in_the_bmp():
    """MariaDB refused a ``proba:😀`` column at run time ("Invalid utf8mb4 character string"): export
    refuses names outside the Basic Multilingual Plane for MySQL/MariaDB, and only there."""
    with pytest.raises(ExportError, match=r"proba:😀.*U\+1F600.*named after the class labels"):
        to_sql(_tiny(["x", "y"], classes=("a", "😀")), dialect="mysql", table="t", proba=True)
    with pytest.raises(ExportError, match=r"feature 'emoji😀'.*Basic Multilingual Plane.*rename it"):
        to_sql(_tiny(["emoji😀", "y"]), dialect="mysql", table="t")
    with pytest.raises(ExportError, match="Basic Multilingual Plane"):
        to_sql(_tiny(["x", "y"]), dialect="mysql", table="t", key="k😀")
    to_sql(_tiny(["x", "y"], classes=("a", "😀")), dialect="mysql", table="t")  # a label value is a string
    to_sql(_tiny(["naïve ü 列", "y"], classes=("a", "ü")), dialect="mysql", table="t", proba=True)  # BMP
    for other in ("sqlite", "duckdb", "postgres", "spark"):
        to_sql(_tiny(["emoji😀", "y"], classes=("a", "😀")), dialect=other, table="t", proba=True)


def test_key_may_be_a_feature(duck_conn, unique_name):
    model, data = zoo.get("sklearn_forest_classifier")
    sql = to_sql(model, dialect="duckdb", table=unique_name, key="x2", proba=True)
    load(duck_conn, "duckdb", model, data, unique_name)
    rows = query(duck_conn, "duckdb", sql)
    got = sorted(rows, key=lambda r: (np.inf if r[0] is None else r[0]))
    assert len(rows) == len(data) and [len(r) for r in got] == [1 + 1 + len(model.classes)] * len(rows)
    duck_conn.execute(f'DROP TABLE "{unique_name}"')


def test_internal_names_avoid_user_names(sqlite_conn, unique_name):
    """Features called like our CTEs and accumulators do not capture them."""
    model, data = zoo.get("sklearn_forest_classifier")
    names = ["rk_s1", "rk_a0", "rk_p0", "rk_l0", "rk_leaf", "rk1_s1"]
    renamed = Model(model.trees, [Feature(name=n) for n in names], task=model.task, classes=model.classes,
                    combiner=model.combiner)
    data = data.rename(columns=dict(zip(model.feature_names, names)))
    run_in(sqlite_conn, "sqlite", renamed, data, unique_name)


@pytest.mark.parametrize("eng", ["sqlite", "duckdb", "postgres", "mysql"])
def test_hostile_table_and_key(eng, request, unique_name):
    conn = request.getfixturevalue({"sqlite": "sqlite_conn", "duckdb": "duck_conn", "postgres": "pg_conn",
                                    "mysql": "mysql_conn"}[eng])
    model, data = zoo.get("sklearn_tree_multiclass_hostile")
    d = sql_dialect.get(eng)
    table = f"it's \"a\" `t` {unique_name}"  # unique: runs sharing the servers do not collide
    source = unique_name + "_src"
    cur = conn if eng == "duckdb" else conn.cursor()
    cur.execute(f"DROP TABLE IF EXISTS {d.ident(table)}")
    load(conn, eng, model, data, source)
    cur.execute(f"DROP TABLE IF EXISTS {d.ident(table)}")
    cur.execute(f"CREATE TABLE {d.ident(table)} AS SELECT {d.ident(KEY)} AS {d.ident('group')}, * FROM "
                f"{d.ident(source)}" if eng != "mysql" else
                f"CREATE TABLE {d.ident(table)} AS SELECT {d.ident(KEY)} AS {d.ident('group')}, "
                f"{d.ident(source)}.* FROM {d.ident(source)}")
    try:
        sql = to_sql(model, dialect=eng, table=table, key="group", proba=True)
        compare(model, data, query(conn, eng, sql), proba=True, where=eng)
    finally:
        cur.execute(f"DROP TABLE IF EXISTS {d.ident(table)}")
        cur.execute(f"DROP TABLE IF EXISTS {d.ident(source)}")


# --- the bare expression -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sklearn_tree_binary", "sklearn_forest_classifier", "sklearn_gb_multiclass_hostile",
                                  "sklearn_extratrees_regressor", "chain_deep"])
def test_bare_expression(name, sqlite_conn, duck_conn, unique_name):
    model, data = zoo.get(name)
    for eng, conn in (("sqlite", sqlite_conn), ("duckdb", duck_conn)):
        d = sql_dialect.get(eng)
        expr_sql = to_sql(model, dialect=eng)
        load(conn, eng, model, data, unique_name)
        rows = query(conn, eng, f"SELECT {d.ident(KEY)}, {expr_sql} AS p FROM {d.ident(unique_name)}")
        compare(model, data, rows, proba=False, where=f"bare {eng}")


BARE_ENSEMBLES = ["sklearn_extratrees_regressor", "sklearn_forest_classifier", "xgboost_binary_nan_hostile",
                  "rulekit_forest_hard_vote", "sklearn_gb_binary"]


@pytest.mark.parametrize("name", [n for n in BARE_ENSEMBLES if n in zoo.zoo_names()])
def test_bare_expression_mysql(name, mysql_conn, unique_name):
    """MariaDB has no correlated derived tables: ensembles are written as plain scalar sums; a sum
    read several times (sigmoid boosting judged by probability) is bound once through JSON_TABLE."""
    model, data = zoo.get(name)
    expr_sql = run_bare(mysql_conn, "mysql", model, data, unique_name)
    # XGBoost's float32 link binds its rounded probability too (MariaDB rounds by CAST AS FLOAT)
    binds = int(_reads_sum_again(model)) * (2 if model.combiner.arithmetic == "float32" else 1)
    assert expr_sql.count("SELECT") == expr_sql.count("JSON_TABLE(") == binds


def _reads_sum_again(model) -> bool:
    c = model.combiner
    return c.kind == "sum" and c.link == "sigmoid" and c.decision is None


@pytest.mark.parametrize("dialect", ["mysql", "spark", "snowflake"])
def test_bare_sigmoid_sum_written_once(dialect):
    """Sigmoid boosting judged by probability reads its raw sum six times: it is bound once, so the
    bare form is about the table form's size (it was six copies of every tree)."""
    model, _ = zoo.get("xgboost_binary_nan_hostile")
    assert model.combiner.link == "sigmoid" and model.combiner.decision is None
    bare, table = to_sql(model, dialect=dialect), to_sql(model, dialect=dialect, table="t")
    assert len(bare) < 1.2 * len(table)


def _bare_snowflake(name, duck_conn, unique_name, *, bound: bool = False):
    model, data = zoo.get(name)
    expr_sql = run_bare_snowflake_transpiled(duck_conn, model, data, unique_name)
    assert "SELECT" not in expr_sql
    assert ("TRANSFORM(" in expr_sql) == bound


@pytest.mark.parametrize("name", slow_cases([n for n in BARE_ENSEMBLES if n in zoo.zoo_names()],
                                            ["sklearn_forest_classifier"]))
def test_bare_expression_snowflake_transpiled(name, duck_conn, unique_name):
    _bare_snowflake(name, duck_conn, unique_name, bound=_reads_sum_again(zoo.get(name)[0]))


SOFTMAX = ["sklearn_gb_multiclass_hostile", "xgboost_multiclass", "lightgbm_multiclass_zero",
           "handmade_softmax_near_tie"]


@pytest.mark.parametrize("name", [n for n in SOFTMAX if n in zoo.zoo_names()])
def test_bare_softmax_mysql(name, mysql_conn, unique_name):
    """Softmax boosting as one expression in MariaDB: class sums, exps and probabilities each bound
    once through JSON_TABLE (no correlated derived tables), then numpy's first-max argmax (of the
    sums where the source labels from raw scores, as scikit-learn does)."""
    model, data = zoo.get(name)
    expr_sql = run_bare(mysql_conn, "mysql", model, data, unique_name)
    assert expr_sql.count("JSON_TABLE(") == (1 if model.combiner.decision else 3)  # sklearn: raw argmax


@pytest.mark.parametrize("name", [n for n in SOFTMAX if n in zoo.zoo_names()])
def test_bare_softmax_snowflake_transpiled(name, duck_conn, unique_name):
    """Snowflake binds with TRANSFORM over a one-element array; transpiled and run in DuckDB."""
    _bare_snowflake(name, duck_conn, unique_name, bound=True)


# --- options, errors, the command line ---------------------------------------------------------------------


def test_errors():
    model, _ = zoo.get("sklearn_tree_regressor")
    with pytest.raises(ExportError, match="unknown SQL dialect"):
        to_sql(model, dialect="oracle")
    with pytest.raises(ExportError, match="unknown SQL export option"):
        to_sql(model, dialect="sqlite", colour="red")
    with pytest.raises(ExportError, match="--proba needs a classifier"):
        to_sql(model, dialect="sqlite", table="t", proba=True)
    with pytest.raises(ExportError, match="at most 50"):
        to_sql(model, dialect="sqlite", table="t", batch=51)
    with pytest.raises(ExportError, match="a key column needs a table"):
        to_sql(model, dialect="sqlite", key="id")
    with pytest.raises(ExportError, match="cannot export"):
        to_sql("not a model", dialect="sqlite")
    assert rulekit.export.to_sql(model, dialect="PostgreSQL", table="t").startswith("SELECT")


def test_cli_export(tmp_path, duck_conn, unique_name):
    from typer.testing import CliRunner

    from rulekit.cli import app

    model, data = zoo.get("sklearn_gb_multiclass_hostile")
    src = tmp_path / "model.json"
    model.save(src)
    out = tmp_path / "score.sql"
    res = CliRunner().invoke(app, ["export", str(src), "--to", "sql", "--dialect", "duckdb", "--table", unique_name,
                                   "--key", KEY, "--proba", "-o", str(out)])
    assert res.exit_code == 0, res.output
    load(duck_conn, "duckdb", model, data, unique_name)
    compare(model, data, query(duck_conn, "duckdb", out.read_text(encoding="utf-8")), proba=True, where="cli")


def test_cli_export_unknown_dialect(tmp_path):
    """Its own test: typer keeps the usage error's traceback, and with it this frame, alive to the
    end of the run; a DuckDB connection in the frame would then be reported as leaked at exit."""
    from typer.testing import CliRunner

    from rulekit.cli import app

    model, _ = zoo.get("sklearn_gb_multiclass_hostile")
    src = tmp_path / "model.json"
    model.save(src)
    out = tmp_path / "score.sql"
    res = CliRunner().invoke(app, ["export", str(src), "--to", "sql", "--dialect", "nope", "-o", str(out)])
    assert res.exit_code == 2 and "nope" in res.output and not out.exists()


# --- canaries: the parity checks catch wrong exports ------------------------------------------------------------


def test_canary_float64_boundaries_disagree(monkeypatch, duck_conn, unique_name):
    """Writing the raw threshold (float64 semantics) for a float32 model must fail the parity check."""
    from rulekit import semantics

    model, data = zoo.get("sklearn_tree_binary")
    model.predict(data)  # the reference compiles its trees now, with the true boundaries (it caches them)
    monkeypatch.setattr(semantics, "boundary_array", lambda op, t, precision: np.asarray(t, dtype=np.float64))
    with pytest.raises(AssertionError, match="differ"):
        run_in(duck_conn, "duckdb", model, data, unique_name)


def test_canary_null_side_disagrees(monkeypatch, duck_conn, unique_name):
    """Sending NULL to the other branch must fail the parity check."""
    from rulekit.exporters.sql import trees

    original = trees.TreeSQL.__init__

    def flipped(self, tree, cols):
        original(self, tree, cols)
        self.info = {n: (k, key, col, route, 1 - m if k == "n" else m)
                     for n, (k, key, col, route, m) in self.info.items()}

    monkeypatch.setattr(trees.TreeSQL, "__init__", flipped)
    model, data = zoo.get("sklearn_tree_binary")
    with pytest.raises(AssertionError, match="differ"):
        run_in(duck_conn, "duckdb", model, data, unique_name)


def test_export_errors_are_rulekit_errors():
    assert issubclass(ExportError, RulekitError)  # the CLI prints them on one line, exit 2


@pytest.mark.parametrize("k", [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 64, 129, 300])
def test_numpy_sum_order(k):
    """The softmax/vote denominators add like numpy's pairwise ``sum(axis=1)``, bit for bit."""
    rng = np.random.default_rng(k)
    A = np.exp(rng.normal(0, 8, size=(50, k)))
    text = sql_query.numpy_sum([f"a[{i}]" for i in range(k)])
    got = np.asarray([eval(text, {"a": [float(v) for v in row]}) for row in A])  # noqa: S307 - our own text
    assert np.array_equal(got, A.sum(axis=1))


def test_argmax_takes_the_first_maximum(sqlite_conn):
    labels = ["'a'", "'b'", "'c'", "'d'"]
    case = sql_query.argmax(["p0", "p1", "p2", "p3"], labels)
    rows = [(0.1, 0.4, 0.4, 0.1), (0.25, 0.25, 0.25, 0.25), (0.0, 0.0, 0.5, 0.5), (0.3, 0.2, 0.2, 0.3)]
    for r in rows:
        got = sqlite_conn.execute(f"SELECT {case} FROM (SELECT ? AS p0, ? AS p1, ? AS p2, ? AS p3)", r).fetchone()[0]
        assert got == "abcd"[int(np.argmax(r))]
