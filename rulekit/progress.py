"""Progress for steps that can take more than a moment: a spinner naming the phase, or a bar when the
work is counted (trees, backends, rows).

Drawn with rich (:mod:`rulekit.progress_draw`, loaded only when something is drawn) on **stderr**
only, and only when stderr is a terminal (``RULEKIT_PROGRESS=1`` forces
it, ``RULEKIT_PROGRESS=0`` turns it off), never with ``--quiet``. stdout stays exactly the command's
output, so ``rulekit predict m.json d.csv > out.csv`` or ``rulekit export ... -o - | psql`` never see
a progress line. Code deep inside a command reports through the module functions (``phase``, ``bar``,
``note``), which do nothing when no reporter is active: library calls stay silent.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_active: ContextVar[Reporter | None] = ContextVar("rulekit_progress", default=None)


class Task:
    """One line of progress: ``advance``/``update`` move its bar, ``describe`` renames it."""

    def __init__(self, reporter: Reporter | None = None, task_id: Any = None):
        self._reporter = reporter
        self._id = task_id

    def advance(self, n: float = 1) -> None:
        if self._reporter is not None:
            self._reporter._progress.update(self._id, advance=n)

    def update(self, completed: float, total: float | None = None) -> None:
        if self._reporter is not None:
            self._reporter._progress.update(self._id, completed=completed, total=total)

    def describe(self, text: str) -> None:
        if self._reporter is not None:
            self._reporter._progress.update(self._id, description=text)


def _forced() -> bool | None:
    """RULEKIT_PROGRESS=1 forces progress on, =0 off; unset (or anything else) leaves it to the tty."""
    value = os.environ.get("RULEKIT_PROGRESS", "").strip().lower()
    if value in ("1", "yes", "always", "on", "true"):
        return True
    if value in ("0", "no", "never", "off", "false"):
        return False
    return None


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


class Reporter:
    """Draws the active tasks; the rich display runs only while at least one task is open, so
    whatever a command prints between tasks never interleaves with a live display."""

    def __init__(self, *, quiet: bool = False, console: Any = None):
        forced = _forced()
        if console is not None:
            self.enabled = not quiet
        else:
            self.enabled = not quiet and (forced if forced is not None else _stderr_is_terminal())
        self._progress = None
        self._open: list[tuple[int, Any]] = []  # (thread, task id), oldest first
        self._lock = threading.RLock()
        self._token = None
        if self.enabled:  # rich loads only here: a run that draws nothing never pays for it
            from rulekit.progress_draw import display  # noqa: PLC0415 - start-up time, not a cycle

            self._progress = display(console, force_terminal=True if forced else None)

    def __enter__(self) -> Reporter:
        self._token = _active.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            if self._open and self._progress is not None:
                self._open.clear()
                self._progress.stop()
        _active.reset(self._token)

    @contextmanager
    def task(self, text: str, total: float | None = None) -> Iterator[Task]:
        """A line shown while the block runs: a spinner (``total`` None) or a bar to ``total``.
        Threads may open tasks side by side (verify runs backends concurrently)."""
        if not self.enabled:
            yield Task()
            return
        key = threading.get_ident()
        with self._lock:
            if not self._open:
                self._progress.start()
            task_id = self._progress.add_task(text, total=total)
            self._open.append((key, task_id))
        try:
            yield Task(self, task_id)
        finally:
            with self._lock:
                self._progress.remove_task(task_id)
                if (key, task_id) in self._open:
                    self._open.remove((key, task_id))
                    if not self._open:
                        self._progress.stop()

    def note(self, text: str) -> None:
        """Rename the innermost task this thread opened (or the innermost of all): for code that
        does not hold the task."""
        if not self.enabled:
            return
        key = threading.get_ident()
        with self._lock:
            mine = [t for k, t in self._open if k == key] or [t for _, t in self._open]
            if mine:
                self._progress.update(mine[-1], description=text)


def reporter(*, quiet: bool = False, console: Any = None) -> Reporter:
    """A reporter for one command run: ``with progress.reporter(quiet=q): ...``."""
    return Reporter(quiet=quiet, console=console)


def current() -> Reporter | None:
    return _active.get()


@contextmanager
def phase(text: str) -> Iterator[Task]:
    """A spinner naming what is happening, when a reporter is active; nothing otherwise."""
    rep = _active.get()
    if rep is None:
        yield Task()
        return
    with rep.task(text) as t:
        yield t


@contextmanager
def bar(text: str, total: float) -> Iterator[Task]:
    """A bar to ``total`` (trees, backends, rows) when a reporter is active; nothing otherwise."""
    rep = _active.get()
    if rep is None:
        yield Task()
        return
    with rep.task(text, total=total) as t:
        yield t


def note(text: str) -> None:
    """Say what the innermost open task is doing now (no-op without a reporter)."""
    rep = _active.get()
    if rep is not None:
        rep.note(text)
