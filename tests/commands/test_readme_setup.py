"""The README's set-up (issue 25): exactly two set-up commands (CI runs the second), clone/cd/venv
guidance, the suite's duration, a [bench] extra holding every peer bench/*.py imports, a
checkout folder name that cannot shadow the package, and a fast lane (issue #23) that still runs
every backend and importer on the zoo's slice."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests import marks

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SETUP = README[README.index("## Set up"):README.index("\n## ", README.index("## Set up") + 1)]

# import name -> distribution name, for the optional peers of bench/*.py
PEERS = {"chefboost": "chefboost", "m2cgen": "m2cgen", "skl2onnx": "skl2onnx",
         "onnxmltools": "onnxmltools", "wittgenstein": "wittgenstein", "imodels": "imodels",
         "orbital": "orbital"}


def test_two_setup_commands_and_the_marker():
    blocks = re.findall(r"```sh\n(.*?)\n```", SETUP, flags=re.S)
    assert len(blocks) == 2 and all("\n" not in b for b in blocks), blocks
    assert blocks[0].startswith("pip install -e '.[all]'") and "rulekit demo" in blocks[0]
    after_marker = SETUP.split("<!-- test-command -->\n", 1)[1].splitlines()
    assert after_marker[0] == "```sh" and after_marker[1] == blocks[1]


def test_fresh_machine_guidance():
    for needle in ("git clone", "cd rulekit-src", "python3 -m venv", "activate", "about 8 minutes",
                   'python -m pytest -m "not slow" -n 2 -q', "under 3 minutes", "'.[bench]'"):
        assert needle in SETUP, needle
    clone = re.search(r"git clone \S+ (\S+)", SETUP)
    assert clone and clone.group(1) != "rulekit"  # a 'rulekit' folder would shadow the package


def test_bench_extra_holds_every_peer_the_benchmarks_import():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    bench = " ".join(extras["bench"])
    imported = set()
    for path in (ROOT / "bench").glob("*.py"):
        imported |= set(re.findall(r"^\s*(?:import|from) (\w+)", path.read_text(), flags=re.M))
    peers = imported & set(PEERS)
    assert peers == set(PEERS), imported  # a new peer: add it to PEERS and to the extra
    for name in peers:
        assert re.search(rf'(^|[" ]){PEERS[name]}([<>=~!]|"|$)', bench), name
    assert "rulekit[all,spark]" in bench


def test_a_checkout_named_otherwise_does_not_shadow(tmp_path):
    """From the parent folder of a checkout named as the README says, `import rulekit` is the
    package (a folder named `rulekit` there would be an empty namespace package)."""
    (tmp_path / "rulekit-src").symlink_to(ROOT)
    res = subprocess.run([sys.executable, "-c", "import rulekit; print(callable(rulekit.load))"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "True", res.stderr


# the README's fast lane keeps, per backend and per importer, at least one of these (node id prefixes)
FAST_LANE_KEEPS = {
    "exec/Python": "tests/exporters/test_python.py::test_zoo_model_module_equals_model[",
    "SQLite": "tests/exporters/test_sql_engines.py::test_zoo_model[sqlite-",
    "DuckDB": "tests/exporters/test_sql_engines.py::test_zoo_model[duckdb-",
    "PostgreSQL": "tests/exporters/test_sql_engines.py::test_zoo_model[postgres-",
    "MariaDB": "tests/exporters/test_sql_engines.py::test_zoo_model[mysql-",
    "Spark": "tests/exporters/test_sql_spark.py::test_spark_zoo[",
    "onnxruntime": "tests/exporters/test_onnx.py::test_zoo_parity[",
    "PMML/JPMML": "tests/exporters/test_pmml_export.py::test_model_pmml_is_valid_and_the_engine_agrees[",
    "LSP": "tests/lsp/test_lsp.py::",
    "studio": "tests/studio/test_session.py::test_export_writes_rulekit_exports_bytes[",
    "rule DSL": "tests/dsl/test_roundtrip.py::test_every_rule_base_round_trips",
    "sklearn import": "tests/importers/test_sklearn.py::test_parity_on_probe_and_nan_rows[",
    "pipeline import": "tests/importers/test_pipeline.py::test_folded_model_equals_pipeline[",
    "xgboost import": "tests/importers/test_xgboost.py::",
    "lightgbm import": "tests/importers/test_lightgbm.py::",
    "catboost import": "tests/importers/test_catboost.py::test_every_kind_equals_catboost_on_border_nan_and_category_rows[",
    "ONNX import": "tests/importers/test_onnx_import.py::",
    "PMML import": "tests/importers/test_pmml_import.py::test_sklearn2pmml_models_import_exactly[",
    "Spark import": "tests/importers/test_spark_import_files.py::test_rules_python_and_onnx_agree_with_the_import",
}


def test_fast_lane_examples_follow_the_mark_expression():
    """``-m "not slow"`` (and only it) gives property tests a tenth of their examples."""
    was = marks.FAST_LANE
    try:
        assert [marks.select_lane(e) for e in ("not slow", "not  slow and not spark", "slow", "", "snot slow")] \
            == [True, True, False, False, False]
        marks.select_lane("not slow")
        assert [marks.lane_examples(n) for n in (5, 40, 150, 800)] == [5, 10, 15, 80]
        marks.select_lane("")
        assert [marks.lane_examples(n) for n in (5, 40, 150, 800)] == [5, 40, 150, 800]
    finally:
        marks.FAST_LANE = was


@pytest.mark.slow  # collects the suite twice (~15 s): CI's full run checks the everyday lane
def test_the_fast_lane_keeps_every_backend_on_the_zoo_slice_and_the_full_suite_keeps_all():
    def collect(*args):
        res = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                              *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
        return [line for line in res.stdout.splitlines() if "::" in line]

    fast, full = collect("-m", "not slow"), collect()
    missing = [what for what, prefix in FAST_LANE_KEEPS.items() if not any(t.startswith(prefix) for t in fast)]
    assert not missing, f"the fast lane runs nothing of: {missing}"
    for engine in ("sqlite", "duckdb", "postgres", "mysql"):
        kept = {t.split(f"[{engine}-", 1)[1][:-1] for t in fast
                if t.startswith(f"tests/exporters/test_sql_engines.py::test_zoo_model[{engine}-")}
        assert kept == set(marks.ZOO_FAST), (engine, kept)
    assert set(fast) < set(full) and len(fast) < 0.8 * len(full)
