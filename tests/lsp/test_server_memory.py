"""The server keeps nothing per notification: pygls 2.1 kept the future of every didOpen/didChange/
didClose (its built-in handlers are generators) in ``_request_futures`` for good, ~760 bytes a change."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="pygls is not installed (the lsp extra)")
from lsprotocol import types as lsp  # noqa: E402

from rulekit.lsp.server import server  # noqa: E402
from tests.lsp.test_lsp import GOOD  # noqa: E402


def test_no_future_is_kept_per_change():
    p = server.protocol
    for _ in p.lsp_initialize(lsp.InitializeParams(capabilities=lsp.ClientCapabilities())):
        pass
    uri = "file:///memory.rules"
    p._handle_notification(lsp.TEXT_DOCUMENT_DID_OPEN, lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="rules", version=1, text=GOOD)))
    for k in range(30):
        p._handle_notification(lsp.TEXT_DOCUMENT_DID_CHANGE, lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=k + 2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=GOOD + f"# {k}\n")]))
    p._handle_notification(lsp.TEXT_DOCUMENT_DID_CLOSE, lsp.DidCloseTextDocumentParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert server.analyses == {}  # the changes were handled (and the close dropped the analysis)
    assert len(p._request_futures) == 0
