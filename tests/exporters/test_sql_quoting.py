"""Identifier quoting in every dialect: feature names holding every dialect's quote character,
backslashes, ``'''``, line breaks, ``--``, ``/*`` and ``#`` come out of sqlglot's parser of that
dialect as exactly the columns the model reads (no comment swallowing the rest, no name split), and
run exactly in SQLite, DuckDB, PostgreSQL and MariaDB. BigQuery reads a backtick name with ``.`` as
a path: such names are refused there with one clear line."""

from __future__ import annotations

import numpy as np
import pytest
import sqlglot
from sqlglot import exp

from rulekit.errors import ExportError
from rulekit.exporters.sql import DIALECTS, to_sql
from rulekit.exporters.sql.names import PROBA_PREFIX
from rulekit.ir.model import Feature, Model
from rulekit.ir.tree import TreeBuilder
from rulekit.probe import probe_rows
from tests.exporters.test_sql_engines import KEY, duck_conn, engine, run_bare, run_in, sqlite_conn  # noqa: F401
from tests.zoo import _frame

NAMES = ['dq"uote', "bt`ick", "br]ack[et", "back\\slash", "end\\", "tri'''ple", "new\nli\rne",
         "da -- sh", "sl /* ash", "# hash", "sq'uote"]
ATTACK = "'''; import os; os.system('x') #"
CLASSES = ["it's \"a\" `b`", "c]\\ -- /* #"]


def _model(names: list[str]) -> Model:
    """A chain: each feature in turn decides one leaf, so every name is read by the query."""
    b = TreeBuilder()
    node = b.numeric(0, 0.5, missing=0)
    for i in range(1, len(names)):
        b.connect(node, b.leaf((float(i % 2), float(1 - i % 2))), 0)
        nxt = b.numeric(i, 0.5, missing=i % 2)
        b.connect(node, nxt, 1)
        node = nxt
    b.connect(node, b.leaf((1.0, 0.0)), 0)
    b.connect(node, b.leaf((0.0, 1.0)), 1)
    return Model([b.graph], [Feature(name=n) for n in names], task="classification", classes=CLASSES)


def _names(dialect: str) -> list[str]:
    return NAMES + ([] if dialect == "bigquery" else [ATTACK])


def _read_columns(sql: str, dialect: str) -> set[tuple[str, str]]:
    """(qualifier, name) of every column sqlglot's parser of ``dialect`` reads, internal ones left out."""
    tree = sqlglot.parse_one(sql, read=dialect)
    return {(c.table, c.name) for c in tree.find_all(exp.Column) if not c.name.startswith("rk")}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_parsed_columns_are_the_feature_names(dialect):
    names = _names(dialect)
    model = _model(names)
    sql = to_sql(model, dialect=dialect, table="t", key=KEY, proba=True)
    cols = _read_columns(sql, dialect)
    assert {n for _, n in cols} == set(names) | {KEY}
    assert all(q == "" or q.startswith("rk") for q, _ in cols), cols  # no name split into table.column
    aliases = {a.alias for a in sqlglot.parse_one(sql, read=dialect).expressions if isinstance(a, exp.Alias)}
    assert {PROBA_PREFIX + c for c in CLASSES} <= aliases
    tree = sqlglot.parse_one(sql, read=dialect)
    strings = {s.name for s in tree.find_all(exp.Literal, exp.National)  # N'' in T-SQL
               if isinstance(s, exp.National) or s.is_string}
    assert set(CLASSES) <= strings, strings  # labels with quotes, backslashes, -- and /* read back whole
    try:
        bare = to_sql(model, dialect=dialect)
    except ExportError:
        return  # dialects without a bare form for this model say so (tested elsewhere)
    cols = _read_columns(f"SELECT {bare} AS p FROM t", dialect)
    assert {n for _, n in cols} == set(names) and all(q == "" for q, _ in cols), cols


def test_bigquery_refuses_a_dotted_column_name_with_one_line():
    """sqlglot read `'''; import os; os.system('x') #` as table `'''; import os; os` column
    `system('x') #`; BigQuery reads a dotted backtick name as a path too."""
    model = _model(NAMES + [ATTACK])
    with pytest.raises(ExportError) as err:
        to_sql(model, dialect="bigquery", table="t", key=KEY)
    assert "'.'" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ExportError):
        to_sql(_model(["a.b"]), dialect="bigquery")
    to_sql(_model(["a.b"]), dialect="duckdb")  # elsewhere a dot is just a character


@pytest.mark.parametrize("name", ["end ", "end\n", "end\t", "end\r"])
def test_mysql_refuses_names_ending_in_white_space(name):
    """MariaDB cannot create such a column (error 1166, Incorrect column name)."""
    with pytest.raises(ExportError, match="ends with white space"):
        to_sql(_model(["a", name]), dialect="mysql")
    to_sql(_model(["a", name]), dialect="postgres")


@pytest.fixture(scope="module")
def case():
    names = NAMES + [ATTACK]
    model = _model(names)
    rng = np.random.default_rng(5)
    M = probe_rows(model, rng.choice([0.0, 0.5, 1.0, np.nan], size=(40, len(names))), n_missing=10)
    return model, _frame(model, M)


def test_runs_exactly_in_every_engine(engine, case, unique_name):
    eng, conn = engine
    model, data = case
    run_in(conn, eng, model, data, unique_name)
    run_bare(conn, eng, model, data, unique_name)
