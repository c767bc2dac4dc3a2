"""Diagnostics in two passes for big documents: what the edit itself causes at once, then the full check.

The first pass (:class:`rulekit.dsl.incremental.Incremental`, in the server) re-parses only the rules
an edit changed and publishes their syntax errors, errors of meaning and per-rule lint. The second
pass is exactly ``rulekit check`` (whole-base findings: shadowed rules, duplicates, gaps); it runs in
one worker process once the document has been quiet for ``DEBOUNCE`` seconds, at most one at a time,
and its result is published only if the text is still the one it checked. The worker also returns
every chunk's result, which seeds the first pass's cache (by chunk text, so stale answers still help).
Small documents skip all this: their full check is already fast.

Opening a big document (the first pass has nothing cached) parses it once in the server and lints
each rule on its own (:func:`rulekit.dsl.incremental.from_parse`): its errors or per-rule findings
are published at once, and the chunk cache is full for the next edit. Hover, completion, rename and
formatting read the parse the chunks assemble (:meth:`TwoPass.analysis`), never a full check.
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

from rulekit import dsl
from rulekit.dsl import incremental
from rulekit.dsl.diagnostics import Diagnostic, source_lines
from rulekit.lsp.analysis import Analysis, from_parsed

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
        self.found: dict[str, tuple[str, list[Diagnostic]]] = {}  # uri -> (text, what was published for it)
        self._pool: ProcessPoolExecutor | None = None

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_leave_with_parent, initargs=(os.getpid(),))
        return self._pool

    def changed(self, uri: str, text: str, version: int | None = None, *,
                opened: bool = False) -> list[Diagnostic] | None:
        """The first pass's diagnostics for ``text`` (None when it cannot answer), and the full check
        scheduled. ``opened``: a document just opened, whose first pass parses the whole text once
        when the cache cannot answer (an edit leaves that to the worker)."""
        self.latest[uri] = text
        self.versions[uri] = version
        cache = self.caches.setdefault(uri, incremental.Incremental(uri))
        quick = cache.local(text)
        if quick is None and opened:
            parsed = dsl.parse(text, file=uri)
            if parsed.errors:  # exactly the check's answer; the worker seeds the chunks
                quick = list(parsed.errors)
            elif cache.seed_parse(parsed):
                quick = cache.local(text)
        if quick is None:
            self.unseeded.add(uri)
        else:
            self.found[uri] = (text, quick)
        self._schedule(uri)
        return quick

    def analysis(self, uri: str, text: str) -> Analysis | None:
        """``text``'s analysis from the first pass's cache (the parse the chunks assemble, the
        diagnostics last published for it), or None when the cache does not hold it."""
        cache = self.caches.get(uri)
        if cache is None:
            return None
        found = self.found.get(uri)
        diags = found[1] if found is not None and found[0] == text else []
        parsed = cache.parsed(text)
        if parsed is not None:
            return from_parsed(parsed, diags)
        if any(d.severity == "error" for d in diags):  # the first pass's errors are the check's
            return Analysis(text, None, diags, source_lines(text))
        return None

    def header_rulebase(self, uri: str):
        """The rule base of the document's header alone (features, classes; no rules), or None."""
        cache = self.caches.get(uri)
        return cache.header_rulebase() if cache is not None else None

    def closed(self, uri: str) -> None:
        self.caches.pop(uri, None)
        self.found.pop(uri, None)
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
            self.found[uri] = (text, found)
            self.publish(uri, text, found, self.versions.get(uri))
        elif uri not in self.timers:
            self._start(uri)
