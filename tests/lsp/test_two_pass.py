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
        c.wait("textDocument/publishDiagnostics", version=1)  # the open's first pass (in the server)
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


def _big_with_findings() -> str:
    """A big document with a per-rule finding (an implied test, r5) and a whole-base one (r9 can
    never fire after r8)."""
    text = _big()
    text = text.replace("r5: if x >", "r5: if x > 1 and x > 2 and x >", 1)
    return text.replace("r8: if", "r8: if x > 60 or", 1).replace("r9: if", "r9: if x > 70 and", 1)


@pytest.mark.slow
@pytest.mark.asyncio
async def test_open_publishes_the_first_pass_at_once_then_the_check(client: LanguageClient):
    text = _big_with_findings()
    want = _check_findings(text)
    assert any("comes first" in m for *_, m in want) and any("implied" in m for *_, m in want)
    _open(client, text, uri=URI)
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    first = _as_tuples(client.diagnostics[URI])
    # the open's own pass: every per-rule finding, none of the whole base's (the worker's)
    assert any("implied" in m for *_, m in first) and not any("comes first" in m for *_, m in first)
    assert set(first) < set(want)
    assert await _until(client, want) == want


@pytest.mark.slow
@pytest.mark.asyncio
async def test_rename_and_hover_on_a_big_document_equal_the_full_parse(client: LanguageClient):
    from rulekit.lsp import edits
    from rulekit.lsp.analysis import analyse
    from rulekit.lsp.hover import hover_text
    from tests.lsp.test_lsp import _apply

    text = _big_with_findings()
    _open(client, text, uri=URI)
    edited = text.replace("r3: if", "r3: if z > 0.5 and", 1)
    _change(client, edited, 2)
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    full = analyse(edited)
    line = next(i for i, ln in enumerate(edited.split("\n")) if ln.startswith("r3: if z"))
    res = await client.text_document_rename_async(lsp.RenameParams(
        text_document=lsp.TextDocumentIdentifier(uri=URI), position=lsp.Position(line=line, character=8),
        new_name="zed z"))
    want = edits.apply(full.lines, edits.rename(full, line + 1, 9, "zed z"))
    assert _apply(edited, res.changes[URI]) == want
    assert len(res.changes[URI]) == 1 + sum(1 for _, n in full.uses if n == "z") > 1000
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=URI), position=lsp.Position(line=line, character=1)))
    assert h.contents.value == hover_text(full, line + 1, 2)
