"""Every rulekit module imports on its own, first (issue 23): a cycle among module-level imports
breaks the import of whichever of its modules is loaded first, so each module is imported in a
fresh rulekit (all ``rulekit.*`` entries dropped from ``sys.modules``; numpy and friends stay
loaded, which keeps this to a few seconds) in one child interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.test_imports_graph import ROOTS, module_files

# Not imported: running __main__ runs the CLI; _runtime.py is text pasted into generated modules.
SKIP = {"rulekit.__main__", "rulekit.exporters.python._runtime"}

PROBE = textwrap.dedent("""
    import importlib, json, sys, traceback
    failures = {}
    missing = {}
    for name in json.loads(sys.argv[1]):
        for loaded in [m for m in sys.modules if m == "rulekit" or m.startswith("rulekit.")]:
            del sys.modules[loaded]
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:  # an optional library that is not installed here
            if (err.name or "").split(".")[0] == "rulekit":
                failures[name] = traceback.format_exc(limit=-3)
            else:
                missing[name] = err.name
        except Exception:  # noqa: BLE001 - reported with its traceback
            failures[name] = traceback.format_exc(limit=-3)
    print(json.dumps({"failures": failures, "missing": missing}))
""")


def fresh_imports(names: list[str]) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(names)], capture_output=True,
                         text=True, check=True, timeout=600)
    return json.loads(out.stdout.splitlines()[-1])


def _assert_all_import(names: list[str]) -> None:
    result = fresh_imports(names)
    assert not result["failures"], "\n".join(f"{n}:\n{tb}" for n, tb in result["failures"].items())
    assert len(result["missing"]) < max(1, len(names) // 4), result["missing"]  # really imported


# Both ends of every cycle cut so far (issue 23), and the packages whose exports became lazy.
CUT = {"rulekit.ir.model", "rulekit.ir.modelfile", "rulekit.ir.modelfile_format", "rulekit.cli",
       "rulekit.importers.sklearn", "rulekit.importers.sklearn_gb", "rulekit.importers.sklearn_hist",
       "rulekit.importers.sklearn_tree", "rulekit.rules", "rulekit.rules.base", "rulekit.rules.conditions",
       "rulekit.rules.engine", "rulekit.dsl", "rulekit.dsl.lint", "rulekit.dsl.printer"}


def test_the_modules_next_to_a_cut_cycle_import_first():
    """The fast slice: both ends of every cycle cut so far."""
    _assert_all_import(sorted(CUT))


@pytest.mark.slow  # ~8 s: 185 modules
def test_every_module_imports_first_in_a_fresh_rulekit():
    _assert_all_import(sorted(set(module_files(ROOTS)) - SKIP))


def test_the_probe_reports_a_module_that_fails_to_import(tmp_path, monkeypatch):
    pkg = tmp_path / "rulekit_probe_check"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from rulekit_probe_check.b import f\nX = 1\n")
    (pkg / "b.py").write_text("from rulekit_probe_check.a import X\ndef f(): pass\n")  # a cycle
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    result = fresh_imports(["rulekit_probe_check.a", "rulekit.errors"])
    assert "ImportError" in result["failures"]["rulekit_probe_check.a"]
    assert "rulekit.errors" not in result["failures"]
