"""Running the CLI under limits: a child process with an address-space cap and a wall-clock
timeout, reporting exit code, stderr, seconds, CPU seconds and peak RSS, so a hostile file that
allocates or loops shows up as a test failure instead of taking the machine down. "Fast" is asserted
on ``cpu_seconds`` (the child's own user+system time): wall seconds on a shared, loaded 2-core
machine measure the other processes too."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass


@dataclass
class Run:
    code: int
    stderr: str
    seconds: float
    max_rss_mb: float
    cpu_seconds: float


# ``python -m rulekit`` under RLIMIT_AS = argv[2] MB, set by the child itself, that writes its own peak
# RSS (VmHWM, in kB) and CPU seconds (user+system) to argv[1] when it exits. The child caps itself:
# a preexec_fn would run Python between fork and exec, which can deadlock when the test process
# has other threads (a JPype JVM, onnxruntime's and OpenBLAS's pools) and then time out.
_LAUNCHER = """\
import atexit, resource, runpy, sys
out = sys.argv.pop(1)
cap = int(sys.argv.pop(1)) << 20
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
def peak():
    with open('/proc/self/status') as f:
        kb = [line.split()[1] for line in f if line.startswith('VmHWM:')]
    use = resource.getrusage(resource.RUSAGE_SELF)
    with open(out, 'w') as f:
        f.write((kb[0] if kb else '0') + ' ' + repr(use.ru_utime + use.ru_stime))
atexit.register(peak)
sys.argv[0] = 'rulekit'
runpy.run_module('rulekit', run_name='__main__', alter_sys=True)
"""


def run_cli(args: list[str], *, mem_mb: int = 1500, timeout: float = 60.0) -> Run:
    """``python -m rulekit ARGS`` with RLIMIT_AS = ``mem_mb`` and a timeout (raises on timeout).

    The peak RSS is the one the child reports of itself after exec (VmHWM). Neither
    ``RUSAGE_CHILDREN`` (the largest child ever reaped) nor the child's own ``ru_maxrss``
    will do: a forked child starts with the test process's resident pages, which grow over a
    long run. If the child dies before reporting, its ``ru_maxrss`` (an upper bound) is used, and
    for CPU the growth of ``RUSAGE_CHILDREN``'s user+system time (a sum over reaped children)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "hwm")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        # a session of its own, so that a timeout kills the child's children too (they would
        # otherwise hold stderr open and keep communicate() waiting)
        proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER, report, str(mem_mb), *args],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
        seconds = time.perf_counter() - t0
        try:
            with open(report) as f:
                kb, cpu = f.read().split()
            peak_mb, cpu_seconds = int(kb) / 1024, float(cpu)
        except (OSError, ValueError):
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            peak_mb = float(after.ru_maxrss) / 1024
            cpu_seconds = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if proc.returncode < 0:  # killed by a signal (a crash): say so instead of an empty stderr
        name = signal.Signals(-proc.returncode).name
        raise AssertionError(f"rulekit {' '.join(args)} died of {name}; "
                             f"stderr: {err.decode('utf-8', 'replace')!r}")
    return Run(proc.returncode, err.decode("utf-8", "replace"), seconds, peak_mb, cpu_seconds)


def assert_clear_refusal(run: Run, *needles: str) -> str:
    """Exit 2 with exactly one stderr line, no internal error, containing every needle."""
    lines = run.stderr.strip().splitlines()
    assert run.code == 2, run.stderr
    assert len(lines) == 1 and "internal error" not in run.stderr, run.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]
