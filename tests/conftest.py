"""Shared fixtures: database connections (skip with a reason, or fail under RULEKIT_REQUIRE_SERVERS=1)."""

from __future__ import annotations

import os
import uuid

import pytest

from tests import marks

# every Spark session the tests start (tests/exporters, tests/importers) keeps its traffic on loopback
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

REQUIRE = os.environ.get("RULEKIT_REQUIRE_SERVERS") == "1"
PG_DSN = os.environ.get("RULEKIT_PG_DSN", "host=127.0.0.1 port=5432 dbname=test user=postgres")
MYSQL = dict(host=os.environ.get("RULEKIT_MYSQL_HOST", "127.0.0.1"),
             port=int(os.environ.get("RULEKIT_MYSQL_PORT", "3306")),
             user=os.environ.get("RULEKIT_MYSQL_USER", "root"),
             password=os.environ.get("RULEKIT_MYSQL_PASSWORD", ""),
             database=os.environ.get("RULEKIT_MYSQL_DB", "test"))
STATEMENT_TIMEOUT_S = 600
STATEMENT_TIMEOUT_PG = f"-c statement_timeout={STATEMENT_TIMEOUT_S * 1000}"


def pytest_configure(config):
    """Pick the lane before any test module is imported: under ``-m "not slow"`` (the README's
    everyday command) property tests run ``marks.lane_examples(n)``, a tenth of their examples."""
    marks.select_lane(config.getoption("markexpr", ""))


def _unavailable(what: str, err: Exception):
    msg = f"{what} not available: {type(err).__name__}: {err}"
    if REQUIRE:
        pytest.fail(msg + " (RULEKIT_REQUIRE_SERVERS=1: CI must run this test)")
    pytest.skip(msg)


@pytest.fixture(scope="session")
def pg_conn():
    """An autocommit psycopg connection to the local PostgreSQL test database."""
    try:
        import psycopg

        # a statement_timeout so that no query a test starts outlives the run (one left by a script
        # once held a core for 1 h 47 min); the slowest legitimate test query takes seconds
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=30, options=STATEMENT_TIMEOUT_PG)
    except Exception as err:  # noqa: BLE001
        _unavailable("PostgreSQL", err)
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def mysql_conn():
    """An autocommit PyMySQL connection to the local MariaDB/MySQL test database."""
    try:
        import pymysql

        conn = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=30,
                               init_command=f"SET SESSION max_statement_time = {STATEMENT_TIMEOUT_S}")
    except Exception as err:  # noqa: BLE001
        _unavailable("MariaDB/MySQL", err)
    yield conn
    conn.close()


@pytest.fixture
def unique_name():
    """A table name no other test (or xdist worker) uses."""
    return "t_" + uuid.uuid4().hex[:12]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (RULEKIT_REQUIRE_SERVERS=1) a skipped server/Spark test is a failure, not a skip."""
    outcome = yield
    report = outcome.get_result()
    if REQUIRE and report.skipped and any(item.get_closest_marker(m) for m in ("spark", "postgres", "mysql")):
        report.outcome = "failed"
        report.longrepr = f"required in CI but skipped: {report.longrepr}"


@pytest.fixture(scope="session")
def spark():
    """One local Spark session per test process (its JVM starts once), on loopback only; skipped
    with the reason when pyspark or Java is missing (a failure under RULEKIT_REQUIRE_SERVERS=1)."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'rulekit[spark]')")
    from pyspark.sql import SparkSession

    try:
        session = (SparkSession.builder.master("local[2]").appName("rulekit-tests")
                   .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
                   .config("spark.driver.host", "127.0.0.1").config("spark.driver.memory", "1g")
                   .getOrCreate())
    except Exception as err:  # noqa: BLE001 - no Java, no Spark
        _unavailable("Spark", err)
    yield session
    session.stop()
