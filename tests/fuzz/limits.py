"""Running the CLI under limits: a child process with an address-space cap and a wall-clock
timeout, reporting exit code, stderr, seconds and peak RSS, so a hostile file that allocates or
loops shows up as a test failure instead of taking the machine down."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass
class Run:
    code: int
    stderr: str
    seconds: float
    max_rss_mb: float


def run_cli(args: list[str], *, mem_mb: int = 1500, timeout: float = 60.0) -> Run:
    """``python -m rulekit ARGS`` with RLIMIT_AS = ``mem_mb`` and a timeout (raises on timeout)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "rulekit", *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=cap)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest child so far: an upper bound for this one
    return Run(proc.returncode, proc.stderr, seconds, max(before, after) / 1024)


def assert_clear_refusal(run: Run, *needles: str) -> str:
    """Exit 2 with exactly one stderr line, no internal error, containing every needle."""
    lines = run.stderr.strip().splitlines()
    assert run.code == 2, run.stderr
    assert len(lines) == 1 and "internal error" not in run.stderr, run.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]
