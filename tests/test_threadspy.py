"""tests/threadspy.py names the test after which a thread left behind burns CPU, and stays quiet when
no thread does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SUITE = '''
import os, threading

def test_quiet():
    pass

def test_leaves_a_spinner():
    if os.environ.get("SPIN"):
        stop = threading.Event()
        threading.Thread(target=lambda: [None for _ in iter(stop.is_set, True)], name="spinner", daemon=True).start()

def test_after():
    pass
'''


def _log(tmp_path: Path, spin: bool) -> str:
    (tmp_path / "test_suite.py").write_text(SUITE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), THREADSPY_DIR=str(tmp_path / "logs"), PYTHONDONTWRITEBYTECODE="1",
               THREADSPY_LOUD="0.2", THREADSPY_SLEEP="0.2")  # a spinner on a loaded 2-core CI box may get well under a core
    for name in ("SPIN", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        env.pop(name, None)  # under xdist the child would name its log after the parent's worker
    if spin:
        env["SPIN"] = "1"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tests.threadspy", "-p", "no:cacheprovider",
                          "-p", "no:randomly", "--rootdir", str(tmp_path), "test_suite.py"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    return (tmp_path / "logs" / "main.log").read_text()


@pytest.mark.slow
def test_names_the_test_that_leaves_a_busy_thread(tmp_path):
    log = _log(tmp_path, spin=True)
    assert "!! FIRST LOUD after test_suite.py::test_leaves_a_spinner" in log
    assert "py:spinner(daemon)" in log


def test_quiet_suite_has_no_loud_test(tmp_path):
    log = _log(tmp_path, spin=False)
    assert "LOUD" not in log and "first loud None" in log
