"""SQL export of hand-built rule bases (first-hit, vote, weighted-sum, with and without a default),
conditions with NOT/OR/IN/is missing/oblique terms in three-valued logic, float32 and float64
precision, against the rule engine in SQLite, DuckDB and PostgreSQL."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.ir.model import Combiner, Feature
from rulekit.probe import threshold_values
from rulekit.rules.base import (And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or, Rule,
                                RuleBase)
from tests.exporters.test_sql_engines import run_bare, run_bare_snowflake_transpiled, run_in
from tests.exporters.test_sql_engines import duck_conn, sqlite_conn  # noqa: F401 (fixtures)

FEATURES = (Feature(name="it's x"), Feature(name="y"),
            Feature(name="colour", kind="nominal", domain=("red", "green", "blue", 'say "hi"')),
            Feature(name="grade", kind="nominal", domain=(1, 2, 5)))
CLASSES = ("yes", "it's", "ünï")


def _data(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(1.0, 2.0, n), 1)
    y = np.round(rng.normal(0.0, 3.0, n), 2)
    # rows on and next to the thresholds used below, in both precisions
    edges = [v for t in (0.1, 1.5, -2.0, 3.3, 0.7) for v in threshold_values(t)]
    x[: len(edges)] = edges
    y[len(edges): 2 * len(edges)] = edges
    colour = rng.choice(["red", "green", "blue", 'say "hi"', "mauve"], n).astype(object)
    grade = rng.choice([1.0, 2.0, 5.0, 2.5, -1.0, 7.0], n).astype(object)
    for arr in (x, y):
        arr[rng.random(n) < 0.12] = np.nan
    colour[rng.random(n) < 0.12] = None
    grade[rng.random(n) < 0.12] = None
    return pd.DataFrame({"it's x": x, "y": y, "colour": colour, "grade": grade})


def _rules(task: str) -> list[Rule]:
    def c(label, value):
        return Conclusion(label=label) if task == "classification" else Conclusion(value=value)

    return [
        Rule(id="a", condition=And(items=(Compare(feature="it's x", op="<=", value=0.1),
                                          Or(items=(Compare(feature="y", op=">", value=1.5),
                                                    IsMissing(feature="y"))))), conclusion=c("yes", 1.25), weight=2.0),
        Rule(id="b", condition=Not(item=And(items=(InSet(feature="colour", values=("red", 'say "hi"')),
                                                   Compare(feature="y", op="<", value=-2.0)))),
             conclusion=c("it's", -3.5), weight=0.5),
        Rule(id="c", condition=Or(items=(Compare(feature="grade", op="=", value=2),
                                         InSet(feature="colour", values=("green",), negated=True))),
             conclusion=c("ünï", 0.75), weight=1.5),
        Rule(id="d", condition=Linear(terms=((0.3, "it's x"), (-1.2, "y")), op=">=", value=0.7),
             conclusion=c("yes", 2.0)),
        Rule(id="e", condition=And(items=(Compare(feature="it's x", op="=", value=3.3),)),
             conclusion=c("it's", 9.0), weight=4.0),
        Rule(id="f", condition=Not(item=IsMissing(feature="colour", negated=True)),
             conclusion=c("ünï", -1.0), weight=0.25),
        Rule(id="g", condition=And(items=(Compare(feature="colour", op="!=", value="blue"),
                                          Compare(feature="it's x", op=">", value=1e308 * 10))),
             conclusion=c("yes", 5.0)),
    ]


def _rb(task="classification", semantics="first-hit", precision="float32", default=True, **kw) -> RuleBase:
    d = None
    if default:
        d = Conclusion(label="it's", distribution=(0.25, 0.5, 0.25)) if task == "classification" \
            else Conclusion(value=0.5)
    return RuleBase(task=task, classes=CLASSES if task == "classification" else None, features=FEATURES,
                    semantics=semantics, precision=precision, rules=tuple(_rules(task)), default=d, **kw)


CASES = {
    "first-hit-f32": lambda: _rb(),
    "first-hit-f64-no-default": lambda: _rb(precision="float64", default=False),
    "first-hit-regression": lambda: _rb(task="regression"),
    "vote": lambda: _rb(semantics="vote"),
    "vote-no-default": lambda: _rb(semantics="vote", default=False),
    "vote-regression": lambda: _rb(task="regression", semantics="vote"),
    "weighted-sum": lambda: _rb(semantics="weighted-sum"),
    "weighted-sum-regression": lambda: _rb(task="regression", semantics="weighted-sum"),
}


@pytest.fixture(params=["sqlite", "duckdb", "postgres"])
def engine(request):
    fixture = {"sqlite": "sqlite_conn", "duckdb": "duck_conn", "postgres": "pg_conn"}[request.param]
    return request.param, request.getfixturevalue(fixture)


@pytest.mark.parametrize("case", list(CASES))
def test_rule_base(engine, case, unique_name):
    eng, conn = engine
    rb = CASES[case]()
    run_in(conn, eng, rb, _data(), unique_name)


def _groups_rb() -> RuleBase:
    """Groups are trees: first hit inside each, then the combiner (average of distributions)."""
    rules = []
    for g, shift in enumerate((0.0, 1.0, -1.0)):
        rules += [Rule(condition=Compare(feature="it's x", op="<=", value=0.1 + shift),
                       conclusion=Conclusion(distribution=(0.5, 0.25, 0.25)), group=g),
                  Rule(condition=Or(items=(Compare(feature="y", op=">", value=shift), IsMissing(feature="y"))),
                       conclusion=Conclusion(distribution=(0.125, 0.75, 0.125)), group=g)]
    return RuleBase(task="classification", classes=CLASSES, features=FEATURES, rules=tuple(rules),
                    default=Conclusion(distribution=(0.0, 0.0, 1.0)), combiner=Combiner(kind="average"))


def _softmax_rb() -> RuleBase:
    rules = []
    for g in range(6):
        rules += [Rule(condition=Compare(feature="y", op="<", value=0.5 * g - 1.0),
                       conclusion=Conclusion(value=0.3 * (g + 1)), group=g),
                  Rule(condition=InSet(feature="colour", values=("red", "blue")),
                       conclusion=Conclusion(value=-0.7 + g), group=g)]
    return RuleBase(task="classification", classes=CLASSES, features=FEATURES, rules=tuple(rules),
                    default=Conclusion(value=0.125), precision="float32",
                    combiner=Combiner(kind="sum", base_score=(0.1, -0.2, 0.3), link="softmax",
                                      tree_output=(0, 1, 2, 0, 1, 2)))


def test_rule_ensemble_groups(engine, unique_name):
    eng, conn = engine
    run_in(conn, eng, _groups_rb(), _data(), unique_name)


def test_rule_ensemble_softmax(engine, unique_name):
    eng, conn = engine
    run_in(conn, eng, _softmax_rb(), _data(), unique_name)


# --- the bare expression where derived tables cannot see the outer row ------------------------------

BARE = {**CASES, "groups-average": _groups_rb, "groups-softmax": _softmax_rb}


@pytest.mark.parametrize("case", list(BARE))
def test_rule_base_bare_mysql(case, mysql_conn, unique_name):
    """Every kind of rule base as one expression in MariaDB (vote and weighted-sum accumulators bound
    through JSON_TABLE), against the rule engine."""
    run_bare(mysql_conn, "mysql", BARE[case](), _data(), unique_name)


@pytest.mark.parametrize("case", list(BARE))
def test_rule_base_bare_snowflake_transpiled(case, duck_conn, unique_name):
    """Snowflake's spelling (TRANSFORM over a one-element array, VARIANT values read back with
    ::FLOAT) transpiled by sqlglot and run in DuckDB."""
    run_bare_snowflake_transpiled(duck_conn, BARE[case](), _data(), unique_name)


def _long_rb(task: str, semantics: str, copies: int) -> RuleBase:
    """The seven rules ``copies`` times over, each copy with its own weights (sums of ~1,000 terms)."""
    rules = [r.model_copy(update={"id": f"{r.id}{j}", "weight": (r.weight or 1.0) * (1.0 + j / 7.0)})
             for j in range(copies) for r in _rules(task)]
    return RuleBase(task=task, classes=CLASSES if task == "classification" else None, features=FEATURES,
                    semantics=semantics, precision="float32", rules=tuple(rules),
                    default=Conclusion(value=0.5) if task == "regression" else None)


LONG = {"vote": lambda: _long_rb("classification", "vote", 150),
        "weighted-sum-regression": lambda: _long_rb("regression", "weighted-sum", 150)}


@pytest.mark.parametrize("case", list(LONG))
@pytest.mark.slow
def test_long_rule_base_bare(case, mysql_conn, duck_conn, unique_name):
    """1,050 rules in one expression: MariaDB overran its thread stack on a 1,000-term sum, so
    running sums are bound every 300 terms (Snowflake: every 100), the same additions in order."""
    rb = LONG[case]()
    run_bare(mysql_conn, "mysql", rb, _data(150), unique_name)
    run_bare_snowflake_transpiled(duck_conn, rb, _data(150), unique_name)


@pytest.mark.parametrize("semantics", ["vote", "weighted-sum"])
@pytest.mark.slow
def test_huge_rule_base_postgres_mariadb(semantics, pg_conn, mysql_conn, unique_name):
    """Thousands of rules, both forms. PostgreSQL's bare form nested 98 derived tables and ran out
    of stack (``max_stack_depth``): its stages are correlated CTEs now. MariaDB takes 64 WITH
    elements at most: 15,400 rules are summed 300 per stage (and bound every 300 in the bare form)."""
    task = "classification" if semantics == "vote" else "regression"
    rb, data = _long_rb(task, semantics, 700), _data(60)
    run_in(pg_conn, "postgres", rb, data, unique_name)
    run_bare(pg_conn, "postgres", rb, data, unique_name)
    rb = _long_rb(task, semantics, 2200)
    run_in(mysql_conn, "mysql", rb, data, unique_name)
    run_bare(mysql_conn, "mysql", rb, data, unique_name)


def test_too_big_for_mariadb_is_refused():
    """Beyond the 63 subqueries MariaDB nests and the 64 WITH elements it takes, export is refused
    with a clear error (a 15,400-rule base fits; the limits are scaled down here to stay fast)."""
    import dataclasses

    from rulekit.errors import ExportError
    from rulekit.exporters.sql import dialect
    from rulekit.exporters.sql.query import build

    rb = _long_rb("regression", "weighted-sum", 20)  # 140 rules
    small = dataclasses.replace(dialect.get("mysql"), _cache={}, bare_sum=2, batch=1, max_batch=1)
    with pytest.raises(ExportError, match=r"nest 70 subqueries .*allows 60.*--table"):
        build(rb, small, table=None, key=None, proba=False)
    with pytest.raises(ExportError, match=r"needs \d+ stages and mysql takes at most 64 in one query"):
        build(rb, small, table="t", key=None, proba=False)
    assert build(rb, dialect.get("mysql"), table=None, key=None, proba=False)


def test_too_many_stages_for_spark_is_refused():
    """Spark's analyzer spends iterations on each stage: more than 25 (over ~10,000 units at 500 per
    stage) is refused at export (scaled down here: one rule per stage)."""
    import dataclasses

    from rulekit.errors import ExportError
    from rulekit.exporters.sql import dialect
    from rulekit.exporters.sql.query import build

    small = dataclasses.replace(dialect.get("spark"), _cache={}, batch=1, max_batch=1)
    with pytest.raises(ExportError, match=r"needs \d+ stages and spark takes at most 25"):
        build(_long_rb("regression", "weighted-sum", 4), small, table="t", key=None, proba=False)


@pytest.mark.slow
def test_too_deep_for_sql_server_bare_is_refused():
    """SQL Server nests subqueries 32 deep: a bare form of more than 30 nested stages is refused;
    the table form (CTEs) is still written."""
    from rulekit.errors import ExportError
    from rulekit.exporters.sql import to_sql

    rb = _long_rb("regression", "weighted-sum", 250)  # 1,750 rules: 35 stages of 50
    with pytest.raises(ExportError, match=r"bare tsql expression would nest 35 subqueries .*allows 30"):
        to_sql(rb, dialect="tsql")
    assert to_sql(rb, dialect="tsql", table="t").count(" AS (SELECT ") == 35
    assert to_sql(_long_rb("regression", "weighted-sum", 200), dialect="tsql").startswith("(SELECT ")


@pytest.mark.parametrize("semantics", ["first-hit", "vote", "weighted-sum"])
def test_rule_base_without_rules(semantics, sqlite_conn, unique_name):
    rb = RuleBase(task="classification", classes=CLASSES, features=FEATURES, semantics=semantics,
                  default=Conclusion(label="ünï", distribution=(0.25, 0.25, 0.5)))
    run_in(sqlite_conn, "sqlite", rb, _data(80), unique_name)
