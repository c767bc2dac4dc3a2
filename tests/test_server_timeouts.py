"""The test sessions of PostgreSQL and MariaDB carry a statement timeout (tests/conftest.py), so no
query a test starts can outlive the run and hold a core (one left by a script ran for 1 h 47 min)."""

import pytest


@pytest.mark.postgres
def test_postgres_session_has_a_statement_timeout(pg_conn):
    assert pg_conn.execute("SHOW statement_timeout").fetchone()[0] == "10min"


@pytest.mark.mysql
def test_mariadb_session_has_a_statement_timeout(mysql_conn):
    cur = mysql_conn.cursor()
    cur.execute("SELECT @@max_statement_time")
    assert float(cur.fetchone()[0]) == 600
