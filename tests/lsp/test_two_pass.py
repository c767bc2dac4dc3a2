"""Big documents over a real client: the edit's own error arrives in the first publish, and the last
publish is exactly ``rulekit check`` (the second pass runs in a worker once the text is quiet)."""

from __future__ import annotations

import asyncio
import random

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (the test extra)")
from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import LanguageClient  # noqa: E402

from rulekit.lsp.passes import SMALL_CHARS  # noqa: E402
from tests.lsp.test_lsp import _as_tuples, _check_findings, _open, client  # noqa: E402,F401

URI = "file:///tmp/big.rules"


def _big() -> str:
    rnd = random.Random(3)
    head = "rulebase big\ntarget y: classes {a, b}\nfeature x: numeric\nfeature z: numeric\ndefault a\n\n"
    rules = [f"r{i}: if x > {rnd.uniform(-50, 50):.3f} and z <= {rnd.uniform(-50, 50):.3f} then {'ab'[i % 2]}"
             for i in range(SMALL_CHARS // 40)]
    return head + "\n".join(rules) + "\n"


def _change(client: LanguageClient, text: str, version: int) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=version),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))


async def _until(client: LanguageClient, want, seconds: float = 60.0):
    """Publishes until one equals ``want``; the last one seen when time runs out."""
    got = None
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        try:
            await asyncio.wait_for(client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS),
                                   end - loop.time())
        except asyncio.TimeoutError:
            break
        got = _as_tuples(client.diagnostics[URI])
        if got == want:
            break
    return got


@pytest.mark.slow
@pytest.mark.asyncio
async def test_big_document_first_pass_then_the_full_check(client: LanguageClient):
    text = _big()
    assert len(text) >= SMALL_CHARS
    _open(client, text, uri=URI)
    assert await _until(client, _check_findings(text)) == _check_findings(text)
    # a broken rule: the first publish after the change already shows the error, as check does
    broken = text.replace("r7: if x >", "r7: if x >> ", 1)
    _change(client, broken, 2)
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert _as_tuples(client.diagnostics[URI]) == _check_findings(broken) != []
    # a rule shadowed by an earlier one (a whole-base finding): only the second pass knows it
    shadow = text.replace("r9: if", "r9: if x > 1e9 and x > 1e10 or", 1).replace(
        "r8: if", "r8: if x > 60 or", 1) + "r_last: if x > 70 then b\n"
    _change(client, shadow, 3)
    want = _check_findings(shadow)
    assert any("comes first" in m for *_, m in want)
    assert await _until(client, want) == want


@pytest.mark.slow
def test_the_worker_leaves_when_the_server_is_killed():
    import os
    import sys
    import time
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import bench_lsp

    c = bench_lsp.Client()
    try:
        c.send("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, request=True)
        c.wait(id_=c.next_id)
        c.send("initialized", {})
        c.send("textDocument/didOpen", {"textDocument": {"uri": bench_lsp.URI, "languageId": "rules",
                                                         "version": 1, "text": bench_lsp.make_text(500)}})
        c.wait("textDocument/publishDiagnostics", version=1)  # the worker ran the full check
        kids = bench_lsp._children(c.proc.pid)
        assert kids
    finally:
        c.proc.kill()
        c.proc.wait()

    def alive(pid):
        try:
            return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
        except OSError:
            return False

    end = time.monotonic() + 10
    while time.monotonic() < end and any(alive(k) for k in kids):
        time.sleep(0.2)
    assert not any(alive(k) for k in kids), [os.getpid(), kids]
