"""Diagnostics in two passes for big documents: what the edit itself causes at once, then the full check.

The first pass (:class:`rulekit.dsl.incremental.Incremental`, in the server) re-parses only the rules
an edit changed and publishes their syntax errors, errors of meaning and per-rule lint. The second
pass is exactly ``rulekit check`` (whole-base findings: shadowed rules, duplicates, gaps); it runs in
one worker process once the document has been quiet for ``DEBOUNCE`` seconds, at most one at a time,
and its result is published only if the text is still the one it checked. The worker also returns
every chunk's result, which seeds the first pass's cache (by chunk text, so stale answers still help).
Small documents skip all this: their full check is already fast.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Callable

from rulekit.dsl import incremental
from rulekit.dsl.diagnostics import Diagnostic

log = logging.getLogger(__name__)

#: documents shorter than this get one synchronous full check (a 500-rule file is ~60,000 characters)
SMALL_CHARS = 40_000
DEBOUNCE = 0.25

Publish = Callable[[str, str, list[Diagnostic], int | None], None]  # (uri, text checked, found, version)


def _leave_with_parent(parent: int) -> None:
    """In the worker: exit when the server is gone (an editor may kill it without a shutdown)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


class TwoPass:
    """Per-document first-pass caches and the one worker that runs full checks."""

    def __init__(self, publish: Publish):
        self.publish = publish
        self.caches: dict[str, incremental.Incremental] = {}
        self.latest: dict[str, str] = {}
        self.versions: dict[str, int | None] = {}
        self.unseeded: set[str] = set()  # documents whose first pass could not answer: seed them
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.running: set[str] = set()
        self._pool: ProcessPoolExecutor | None = None

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_leave_with_parent, initargs=(os.getpid(),))
        return self._pool

    def changed(self, uri: str, text: str, version: int | None = None) -> list[Diagnostic] | None:
        """The first pass's diagnostics for ``text`` (None when it cannot answer), and the full check
        scheduled."""
        self.latest[uri] = text
        self.versions[uri] = version
        cache = self.caches.setdefault(uri, incremental.Incremental(uri))
        quick = cache.local(text)
        if quick is None:
            self.unseeded.add(uri)
        self._schedule(uri)
        return quick

    def closed(self, uri: str) -> None:
        self.caches.pop(uri, None)
        self.latest.pop(uri, None)
        self.versions.pop(uri, None)
        self.unseeded.discard(uri)
        t = self.timers.pop(uri, None)
        if t is not None:
            t.cancel()

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _schedule(self, uri: str) -> None:
        t = self.timers.pop(uri, None)
        if t is not None:
            t.cancel()
        self.timers[uri] = asyncio.get_event_loop().call_later(DEBOUNCE, self._start, uri)

    def _start(self, uri: str) -> None:
        self.timers.pop(uri, None)
        text = self.latest.get(uri)
        if text is None or uri in self.running:
            return  # a check is under way: its end starts the next one when the text moved on
        self.running.add(uri)
        seed = uri in self.unseeded
        self.unseeded.discard(uri)
        fut = asyncio.get_event_loop().run_in_executor(self.pool(), incremental.full_and_chunks, text, uri, seed)
        fut.add_done_callback(lambda f: self._done(uri, text, f))

    def _done(self, uri: str, text: str, fut) -> None:
        self.running.discard(uri)
        try:
            found, header, known = fut.result()
        except Exception:  # a dead worker: start afresh next time
            log.exception("rulekit lsp: full check failed")
            self._pool = None
            self.unseeded.add(uri)
            return
        cache = self.caches.get(uri)
        if cache is None:
            return  # closed meanwhile
        if header is not None:
            cache.seed(header, known)
        if self.latest.get(uri) == text:
            self.publish(uri, text, found, self.versions.get(uri))
        elif uri not in self.timers:
            self._start(uri)
