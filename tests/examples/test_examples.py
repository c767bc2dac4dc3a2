"""Every script in examples/ runs as a user would run it (a subprocess, exit 0, the lines that show
its result), and the checks inside the scripts can fail: a wrong artefact makes them exit 1."""

from __future__ import annotations

import importlib.util
import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rulekit

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(script: str, *args: str, timeout: float = 300) -> str:
    """Run ``examples/<script>`` with this interpreter; assert exit 0; return its stdout."""
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=EXAMPLES.parent,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert proc.returncode == 0, f"{script} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc.stdout


def load(script: str) -> dict:
    """The example's functions, without running its main()."""
    return runpy.run_path(str(EXAMPLES / script), run_name="example_under_test")


def test_every_example_is_listed_in_the_readme_and_tested_here():
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    here = Path(__file__).read_text(encoding="utf-8")
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    assert {"edit_rules.py", "id3_nominal_to_sql.py", "onnx_serving.py", "sklearn_to_sql.py",
            "spark_sql.py"} <= set(scripts)
    for name in scripts:
        assert f"`{name}`" in readme, f"{name} is not in examples/README.md"
        assert f'run("{name}"' in here, f"{name} is not run by a test"


# --- sklearn_to_sql.py -------------------------------------------------------------------------

@pytest.mark.postgres
def test_sklearn_to_sql_in_duckdb_and_postgres(pg_conn, tmp_path):
    out = run("sklearn_to_sql.py", str(tmp_path), "--postgres", "require")
    lines = out.splitlines()
    duck = next(line for line in lines if line.startswith("DuckDB:"))
    pg = next(line for line in lines if line.startswith("PostgreSQL:"))
    for line in (duck, pg):
        assert "labels identical" in line and "max |proba diff| = 0 " in line and line.endswith("agrees")
    # the real rows plus threshold and missing-value rows were scored
    assert "569 real rows +" in out and "rows with missing values" in out
    assert "all engines agree with scikit-learn" in out
    assert {p.name for p in tmp_path.iterdir()} == {"forest.duckdb.sql", "forest.postgres.sql"}
    assert (tmp_path / "forest.duckdb.sql").read_text().lstrip().upper().startswith(("SELECT", "WITH"))


def test_sklearn_to_sql_compare_catches_a_difference(capsys):
    import pandas as pd

    compare = load("sklearn_to_sql.py")["compare"]
    labels = np.array(["a", "b"], dtype=object)
    proba = np.array([[0.75, 0.25], [0.5, 0.5]])
    good = pd.DataFrame({"prediction": labels, "proba:a": proba[:, 0], "proba:b": proba[:, 1]})
    assert compare("X", good, labels, proba)
    assert not compare("X", good.assign(prediction=["a", "a"]), labels, proba)
    assert not compare("X", good.assign(**{"proba:b": proba[:, 1] + 1e-9}), labels, proba)
    assert "DISAGREES" in capsys.readouterr().out


# --- onnx_serving.py ---------------------------------------------------------------------------

def test_onnx_serving(tmp_path):
    out = run("onnx_serving.py", str(tmp_path))
    assert out.count("-> agrees") == 4  # batch and single row, float and double models
    assert "DISAGREES" not in out
    assert "one request -> class_0" in out
    assert "(allowed 1e-06) -> agrees" in out and "(allowed 1e-12) -> agrees" in out
    assert "onnxruntime agrees with scikit-learn" in out
    assert {p.name for p in tmp_path.iterdir()} == {"wine.onnx", "wine.double.onnx"}


def test_onnx_serving_check_catches_a_difference(capsys):
    check = load("onnx_serving.py")["check"]
    labels, proba = np.array(["x", "y"]), np.array([[1.0, 0.0], [0.25, 0.75]], dtype=np.float32)
    assert check("t", labels, proba, labels, proba.astype(np.float64), 1e-6)
    assert not check("t", labels[::-1], proba, labels, proba.astype(np.float64), 1e-6)
    assert not check("t", labels, proba + np.float32(1e-3), labels, proba.astype(np.float64), 1e-6)


# --- id3_nominal_to_sql.py ---------------------------------------------------------------------

def test_id3_nominal_to_sql(tmp_path):
    out = run("id3_nominal_to_sql.py", str(tmp_path))
    assert "playgolf: 14 rows, 4 nominal features ->" in out
    assert "mushrooms: 5 rows, 3 nominal features ->" in out
    assert "SQLite vs ID3 on 18 rows: labels identical, max |proba diff| = 0 -> agrees" in out
    assert "SQLite vs ID3 on 7 rows: labels identical, max |proba diff| = 0 -> agrees" in out
    # the value the tree never saw falls to the default; the text columns hold the values
    assert "'outlook': 'foggy'" in out and "default -> yes" in out
    assert "SQLite agrees with the ID3 trees" in out
    assert "'sunny'" in (tmp_path / "playgolf.sqlite.sql").read_text()
    assert rulekit.dsl.loads((tmp_path / "playgolf.rules").read_text()).rules


def test_id3_example_exits_1_when_the_sql_is_wrong(tmp_path, monkeypatch, capsys):
    """Run the example in-process with an SQL exporter that swaps one label: it must notice."""
    real = rulekit.export.to_sql
    monkeypatch.setattr(rulekit.export, "to_sql",
                        lambda *a, **k: real(*a, **k).replace("THEN 'yes'", "THEN 'no'", 1))
    assert load("id3_nominal_to_sql.py")["main"]([str(tmp_path)]) == 1
    assert "DISAGREEMENT" in capsys.readouterr().out


# --- edit_rules.py -----------------------------------------------------------------------------

def test_edit_rules(tmp_path):
    out = run("edit_rules.py", str(tmp_path))
    assert "predictions changed" in out and "exactly as edited" in out
    for backend in ("Python", "SQLite", "onnxruntime"):
        line = next(line for line in out.splitlines() if line.strip().startswith(backend + " "))
        assert "labels identical" in line and line.endswith("-> agrees"), line
    assert "-> 'virginica' (before the edits: 'versicolor')" in out
    assert "the exports follow the edited rules" in out
    edited = (tmp_path / "iris.edited.rules").read_text()
    assert "versicolour" in edited and "versicolor," not in edited and "petal_width <= 1.55" in edited
    assert "manual: if" in edited
    written = {p.name for p in tmp_path.iterdir()}
    assert {"iris.rules", "iris_rules.py", "iris.sqlite.sql", "iris.onnx"} <= written


def test_edit_rules_edits_must_apply():
    edit = load("edit_rules.py")["edit"]
    with pytest.raises(SystemExit, match="edit failed"):
        edit("r1: if petal_width <= 2 then setosa\n")


def test_edit_rules_agree_catches_a_difference(capsys):
    agree = load("edit_rules.py")["agree"]
    labels, proba = np.array(["a", "b"], dtype=object), np.array([[1.0, 0.0], [0.0, 1.0]])
    assert agree("t", labels, proba, labels, proba, 0.0)
    assert not agree("t", labels, proba, np.array(["a", "a"], dtype=object), proba, 0.0)
    assert not agree("t", labels, proba + 1e-6, labels, proba, 1e-12)


# --- spark_sql.py ------------------------------------------------------------------------------

@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="pyspark is not installed")
def test_spark_sql(tmp_path):
    out = run("spark_sql.py", str(tmp_path), timeout=600)
    line = next(line for line in out.splitlines() if line.startswith("Spark SQL:"))
    assert "labels identical" in line and line.endswith("-> agrees"), line
    assert "569 real" in out and "Spark SQL agrees with LightGBM" in out
    assert (tmp_path / "lightgbm.spark.sql").exists()


def test_spark_sql_skips_cleanly_without_pyspark():
    code = ("import runpy, sys; sys.modules['pyspark'] = None; sys.argv = ['spark_sql.py'];"
            f"runpy.run_path({str(EXAMPLES / 'spark_sql.py')!r}, run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("skipped: pyspark is not installed")


def test_spark_compare_catches_a_difference(capsys):
    compare = load("spark_sql.py")["compare"]
    rows = [(1, "b", 0.5, 0.5), (0, "a", 1.0, 0.0)]          # out of order, as Spark may return them
    labels, proba = np.array(["a", "b"], dtype=object), np.array([[1.0, 0.0], [0.5, 0.5]])
    assert compare(rows, labels, proba)
    assert not compare(rows[:1] + [(0, "b", 1.0, 0.0)], labels, proba)
    assert not compare(rows, labels, proba + 1e-9)
