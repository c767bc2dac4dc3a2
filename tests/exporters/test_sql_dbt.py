"""The dbt form (``--form dbt``) checked with dbt itself: ``dbt parse`` and ``dbt build`` (run + the
schema tests: not_null on the key, accepted_values on the label) on DuckDB, then the built view
compared with the source model (hostile names and labels, NaN -> NULL and threshold rows)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rulekit.exporters.sql import to_sql
from tests import zoo
from tests.exporters.test_sql_engines import KEY, compare, load, query

pytestmark = pytest.mark.slow

CASES = [("sklearn_tree_multiclass_hostile", "raw"), ("xgboost_binary_nan_hostile", "src.raw"),
         ("learned_regressor_oblique", "raw")]


def _dbt(project: Path, *args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("dbt") or str(Path(sys.executable).with_name("dbt"))
    return subprocess.run([exe, *args, "--project-dir", str(project), "--profiles-dir", str(project)],
                          capture_output=True, text=True, timeout=300, cwd=project)


@pytest.mark.parametrize(("name", "table"), CASES)
def test_dbt_build_duckdb(tmp_path, name, table):
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("dbt.adapters.duckdb", reason="pip install 'dbt-core>=1.8,<1.11' 'dbt-duckdb>=1.8,<1.10'")
    model, data = zoo.get(name)
    db = tmp_path / "w.duckdb"
    conn = duckdb.connect(str(db))
    if "." in table:
        conn.execute("CREATE SCHEMA src")
        load(conn, "duckdb", model, data, "rk_tmp")
        conn.execute('CREATE TABLE src.raw AS SELECT * FROM "rk_tmp"; DROP TABLE "rk_tmp"')
    else:
        load(conn, "duckdb", model, data, "rk_raw")
    conn.close()
    (tmp_path / "dbt_project.yml").write_text("name: rk\nversion: '1.0'\nprofile: rk\nmodel-paths: [models]\n")
    (tmp_path / "profiles.yml").write_text(f"rk:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
                                           f"      path: '{db}'\n      schema: main\n")
    proba = model.task == "classification"
    files = to_sql(model, dialect="duckdb", form="dbt", table=table, key=KEY, proba=proba, name="scored")
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    if "." not in table:
        (tmp_path / "models" / "raw.sql").write_text("select * from main.rk_raw\n")
    r = _dbt(tmp_path, "parse")
    assert r.returncode == 0, r.stdout[-2000:]
    r = _dbt(tmp_path, "build")
    assert r.returncode == 0, r.stdout[-3000:]
    assert "PASS=" in r.stdout and "ERROR=0" in r.stdout
    conn = duckdb.connect(str(db))
    try:
        compare(model, data, query(conn, "duckdb", "SELECT * FROM main.scored"), proba=proba, where="dbt duckdb")
    finally:
        conn.close()
