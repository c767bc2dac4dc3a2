"""pytest plugin that finds the test leaving a busy thread behind: after each test the process sleeps
briefly and every thread's CPU over that sleep is read from its Linux per-thread clock (native threads
of onnxruntime, OpenMP or a JVM too, not only Python's).

    python -m pytest -n 2 -p tests.threadspy tests/importers

One log per process in $THREADSPY_DIR (default /tmp/threadspy/<xdist worker>.log): a line per test
with the idle share of a core the other threads used, the threads a test started, and the busiest
threads whenever that share reaches $THREADSPY_LOUD (default 0.5); "!! FIRST LOUD after" names the
first such test. BLAS and OpenMP pools spin for about 0.1 s after work: one loud test alone is that.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

SLEEP = float(os.environ.get("THREADSPY_SLEEP", "0.05"))
LOUD = float(os.environ.get("THREADSPY_LOUD", "0.5"))
DURING = float(os.environ.get("THREADSPY_DURING", "0.5"))  # other threads' CPU seconds during a test
DIR = os.environ.get("THREADSPY_DIR", "/tmp/threadspy")


def thread_clock(tid: int) -> int:
    """Linux's clock id for one thread's CPU time (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED))."""
    return (~tid << 3) | 6


def cpu_by_thread() -> dict[int, float]:
    """CPU seconds of every thread of this process, by native thread id."""
    out = {}
    for name in os.listdir("/proc/self/task"):
        try:
            out[int(name)] = time.clock_gettime(thread_clock(int(name)))
        except OSError:  # the thread ended meanwhile
            pass
    return out


def describe(tid: int) -> str:
    """A Python thread's name and innermost frames, or a native thread's kernel name."""
    frames = sys._current_frames()
    for t in threading.enumerate():
        if t.native_id == tid:
            f, stack = frames.get(t.ident), []
            while f is not None and len(stack) < 4:
                stack.append(f"{os.path.basename(f.f_code.co_filename)}:{f.f_code.co_name}:{f.f_lineno}")
                f = f.f_back
            return f"py:{t.name}{'(daemon)' if t.daemon else ''} [{' <- '.join(stack)}]"
    try:
        with open(f"/proc/self/task/{tid}/comm") as fh:
            return "native:" + fh.read().strip()
    except OSError:
        return "native:?"


class Spy:
    """The per-process log and the measurements around each test."""

    def __init__(self, worker: str):
        os.makedirs(DIR, exist_ok=True)
        self.fh = open(os.path.join(DIR, f"{worker}.log"), "a", buffering=1)
        self.fh.write(f"# start pid {os.getpid()} {time.strftime('%H:%M:%S')}\n")
        self.known = set(cpu_by_thread())
        self.started = (time.monotonic(), cpu_by_thread())
        self.total = 0.0
        self.first_loud: str | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self, nodeid, location):
        self.started = (time.monotonic(), cpu_by_thread())

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self, nodeid, location):
        me = threading.get_native_id()
        self._during(nodeid, me)
        self._idle(nodeid, me)

    def _during(self, nodeid: str, me: int) -> None:
        t0, before = self.started
        after = cpu_by_thread()
        per = sorted(((after[t] - before.get(t, 0.0), t) for t in after if t != me), reverse=True)
        others = sum(c for c, _ in per)
        if others >= DURING:
            self.fh.write(f"DURING wall={time.monotonic() - t0:.2f} main={after[me] - before.get(me, 0.0):.2f} "
                          f"others={others:.2f} {nodeid} "
                          + "; ".join(f"{t}:{c:.2f}:{describe(t)}" for c, t in per[:4] if c > 0.01) + "\n")

    def _idle(self, nodeid: str, me: int) -> None:
        before = cpu_by_thread()
        t0, p0, th0 = time.monotonic(), time.process_time(), time.thread_time()
        time.sleep(SLEEP)
        wall, after = time.monotonic() - t0, cpu_by_thread()
        others = (time.process_time() - p0) - (time.thread_time() - th0)
        share = others / wall
        self.total += others
        new = [t for t in after if t not in self.known]
        gone = len(self.known - set(after))
        self.known = set(after)
        line = f"{time.strftime('%H:%M:%S')} idle={share:.3f} tasks={len(after)} {nodeid}"
        if new or gone:
            line += f" new={[(t, describe(t)) for t in new]} gone={gone}"
        if share >= LOUD:
            if self.first_loud is None:
                self.first_loud = nodeid
                self.fh.write(f"!! FIRST LOUD after {nodeid}\n")
            per = sorted(((after[t] - before.get(t, after[t]), t) for t in after if t != me), reverse=True)
            line += " busy=" + "; ".join(f"{t}:{c / wall:.2f}:{describe(t)}" for c, t in per[:4] if c > 0.001)
        self.fh.write(line + "\n")

    def pytest_unconfigure(self, config):
        left = "; ".join(describe(t) for t in cpu_by_thread() if t != threading.get_native_id())
        self.fh.write(f"# end: idle CPU of other threads {self.total:.2f} s in all; first loud {self.first_loud};"
                      f" threads left: {left}\n")
        self.fh.close()


def pytest_configure(config):
    if not hasattr(config, "workerinput") and (config.getoption("numprocesses", None) or 0):
        return  # the xdist controller runs no tests
    config.pluginmanager.register(Spy(os.environ.get("PYTEST_XDIST_WORKER", "main")), "threadspy-spy")
