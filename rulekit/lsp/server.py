"""The pygls server: protocol handlers that call :mod:`rulekit.lsp.analysis` and the feature modules.

Documents live in pygls's workspace (one text per document: changes are applied, not kept); the
server keeps one :class:`Analysis` per open document, for its latest text only, and drops it on
close. Every handler answers from that analysis; any failure inside a handler is logged and answered
with nothing, so no input can stop the server.
"""

from __future__ import annotations

import functools
import logging
import sys
from importlib.metadata import version

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from rulekit.lsp import completion, edits
from rulekit.lsp.passes import SMALL_CHARS, TwoPass
from rulekit.lsp.analysis import Analysis, Span, analyse, feature_at
from rulekit.lsp.hover import hover_text
from rulekit.lsp.positions import line_column, position, span_range
from rulekit.dsl.diagnostics import source_lines

log = logging.getLogger(__name__)


class _Protocol(LanguageServerProtocol):
    """pygls 2.1 keeps the future of every notification whose built-in handler is a generator
    (didOpen, didChange, didClose) in ``_request_futures`` for good: it removes only requests'
    futures. That was one Future, Condition and deque (~760 bytes) per change, most of the server's
    growth over 10,000 changes (tracemalloc, docs/lsp.md). Here each is dropped once done."""

    def _handle_notification(self, method_name, params):
        futures = self._request_futures
        before = set(futures)
        try:
            super()._handle_notification(method_name, params)
        finally:
            for k in set(futures) - before:
                futures[k].add_done_callback(lambda _f, k=k: futures.pop(k, None))


class RulesServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rulekit", _version(), protocol_cls=_Protocol)
        self.analyses: dict[str, Analysis] = {}
        self.last_good: dict = {}  # uri -> the last rule base that parsed (completion while typing)
        self.two_pass = TwoPass(self.publish_found)

    def publish_found(self, uri: str, text: str, found, version: int | None = None) -> None:
        lines = source_lines(text)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, diagnostics=[_diagnostic_at(lines, d) for d in found], version=version))

    def analysis(self, uri: str) -> Analysis | None:
        """The analysis of a document's latest text (None for a document the client never opened)."""
        try:
            doc = self.workspace.get_text_document(uri)
            text = doc.source
        except Exception:  # an unknown URI pygls cannot read
            return None
        a = self.analyses.get(uri)
        if a is None or a.text is not text and a.text != text:
            if len(text) >= SMALL_CHARS:  # the first pass's parse, else a parse alone: never the full check
                a = self.two_pass.analysis(uri, text) or analyse(text, file=uri, with_lint=False)
            else:
                a = analyse(text, file=uri)
            self.analyses[uri] = a
            if a.rulebase is not None:
                self.last_good[uri] = a.rulebase
        return a


def _version() -> str:
    return version("rulekit")


def _safe(default=None):
    """Answer ``default`` (and log) when a handler fails: a bad request never stops the server."""
    def wrap(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception:
                log.exception("rulekit lsp: %s failed", fn.__name__)
                return default
        return run
    return wrap


server = RulesServer()


def _diagnostic(a: Analysis, d) -> lsp.Diagnostic:
    return _diagnostic_at(a.lines, d)


def _diagnostic_at(lines: list[str], d) -> lsp.Diagnostic:
    sev = (lsp.DiagnosticSeverity.Error if d.severity == "error" else lsp.DiagnosticSeverity.Warning
           if d.severity == "warning" else lsp.DiagnosticSeverity.Information)
    return lsp.Diagnostic(range=span_range(lines, Span(d.line, d.column, d.width)), message=d.message,
                          severity=sev, source="rulekit")


def _publish(ls: RulesServer, uri: str, opened: bool = False) -> None:
    """Small documents: the full check now. Big ones: the edit's own findings now (when the first
    pass can answer; always on open), the full check when the document has been quiet
    (:mod:`rulekit.lsp.passes`)."""
    try:
        doc = ls.workspace.get_text_document(uri)
        text, version = doc.source, doc.version
    except Exception:
        return
    if len(text) >= SMALL_CHARS:
        quick = ls.two_pass.changed(uri, text, version, opened=opened)
        if quick is not None:
            ls.publish_found(uri, text, quick, version)
        return
    a = ls.analysis(uri)
    if a is None:
        return
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
        uri=uri, diagnostics=[_diagnostic(a, d) for d in a.diagnostics]))


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
@_safe()
def did_open(ls: RulesServer, params: lsp.DidOpenTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, opened=True)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
@_safe()
def did_change(ls: RulesServer, params: lsp.DidChangeTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
@_safe()
def did_close(ls: RulesServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.analyses.pop(uri, None)
    ls.last_good.pop(uri, None)
    ls.two_pass.closed(uri)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
@_safe(default=None)
def formatting(ls: RulesServer, params: lsp.DocumentFormattingParams):
    a = ls.analysis(params.text_document.uri)
    new = edits.formatted(a) if a is not None else None
    if new is None:
        return []
    end = position(a.lines, len(a.lines), len(a.lines[-1]) + 1)
    return [lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=0, character=0), end=end), new_text=new)]


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@_safe()
def hover(ls: RulesServer, params: lsp.HoverParams):
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return None
    text = hover_text(a, *line_column(a.lines, params.position))
    if text is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))


_KINDS = {"value": lsp.CompletionItemKind.EnumMember, "feature": lsp.CompletionItemKind.Variable,
          "keyword": lsp.CompletionItemKind.Keyword}


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["{", "=", " "]))
@_safe()
def complete(ls: RulesServer, params: lsp.CompletionParams):
    uri = params.text_document.uri
    a = ls.analysis(uri)
    if a is None:
        return None
    line, col = line_column(a.lines, params.position)
    before = a.lines[line - 1][:col - 1] if 0 < line <= len(a.lines) else ""
    rb = a.rulebase or ls.last_good.get(uri)
    if rb is None and len(a.text) >= SMALL_CHARS:  # a big file: its header names what completes
        rb = ls.two_pass.header_rulebase(uri)
    if rb is None and 0 < line <= len(a.lines):  # the line being typed breaks the file: read the rest
        rb = analyse("\n".join(a.lines[:line - 1] + a.lines[line:]), with_lint=False).rulebase
    items = [lsp.CompletionItem(label=t, kind=_KINDS[k]) for t, k in completion.candidates(rb, before)]
    return lsp.CompletionList(is_incomplete=False, items=items)


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
@_safe()
def definition(ls: RulesServer, params: lsp.DefinitionParams):
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return None
    hit = feature_at(a, *line_column(a.lines, params.position))
    if hit is None or hit[0] not in a.declarations:
        return None
    return lsp.Location(uri=params.text_document.uri, range=span_range(a.lines, a.declarations[hit[0]]))


def _workspace_edit(a: Analysis, uri: str, changes) -> lsp.WorkspaceEdit:
    return lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=span_range(a.lines, s), new_text=t)
                                            for s, t in changes]})


@server.feature(lsp.TEXT_DOCUMENT_RENAME)
def rename(ls: RulesServer, params: lsp.RenameParams):
    """A refused rename is an error answer with one line (clients show it), not a crash."""
    uri = params.text_document.uri
    a = ls.analysis(uri)
    if a is None:
        raise edits.RenameRefused(f"unknown document {uri}")
    return _workspace_edit(a, uri, edits.rename(a, *line_column(a.lines, params.position), params.new_name))


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION)
@_safe()
def code_action(ls: RulesServer, params: lsp.CodeActionParams):
    uri = params.text_document.uri
    a = ls.analysis(uri)
    if a is None:
        return None
    want = params.range
    out = []
    for d in a.diagnostics:
        r = span_range(a.lines, Span(d.line, d.column, d.width))
        if r.end.line < want.start.line or r.start.line > want.end.line:
            continue
        for title, changes in edits.quick_fixes(a, d):
            out.append(lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix,
                                      diagnostics=[_diagnostic(a, d)],
                                      edit=_workspace_edit(a, uri, changes)))
    return out


def main() -> int:
    """Serve on stdin/stdout until the client says exit."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        server.start_io()
    finally:
        server.two_pass.shutdown()
    return 0
