"""`rulekit lsp` driven by a real LSP client over stdio (pytest-lsp): every feature, a broken file,
a file with lint findings, hostile names and bad requests the server must survive."""

from __future__ import annotations

import sys

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (the test extra)")
from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from rulekit import dsl  # noqa: E402
from rulekit.dsl import lint  # noqa: E402

GOOD = """\
rulebase demo
target play: classes {no, yes}
feature outlook: nominal {sunny, overcast, rain}
feature "hum idity": numeric
default yes

r1: if outlook = sunny and "hum idity" > 75 then no
r2: if outlook in {rain} then no
"""
BROKEN = GOOD.replace("then no\nr2", "then\nr2").replace("outlook in", "outlok in")
LINTED = GOOD + "r3: if outlook = sunny and \"hum idity\" > 80 then no\n"
URI = "file:///tmp/demo.rules"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "rulekit", "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=client_capabilities("neovim")))
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, text: str, uri: str = URI) -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="rules", version=1, text=text)))


async def _diagnostics(client: LanguageClient, uri: str = URI):
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


def _check_findings(text: str):
    """What `rulekit check` reports: (line, column, severity, message), 0-based like LSP."""
    parsed = dsl.parse(text)
    found = list(parsed.errors) or lint.diagnostics(parsed)
    return [(d.line - 1, d.column - 1, d.severity, d.message) for d in found]


def _as_tuples(diags):
    sev = {lsp.DiagnosticSeverity.Error: "error", lsp.DiagnosticSeverity.Warning: "warning"}
    return [(d.range.start.line, d.range.start.character, sev[d.severity], d.message) for d in diags]


@pytest.mark.asyncio
async def test_clean_file_has_no_diagnostics(client: LanguageClient):
    _open(client, GOOD)
    assert await _diagnostics(client) == []


@pytest.mark.asyncio
async def test_broken_file_reports_what_check_reports(client: LanguageClient):
    _open(client, BROKEN)
    got = _as_tuples(await _diagnostics(client))
    assert got == _check_findings(BROKEN) and len(got) >= 2
    assert all(s == "error" for _, _, s, _ in got)


@pytest.mark.slow  # a server start each
@pytest.mark.asyncio
async def test_lint_warnings_on_change(client: LanguageClient):
    _open(client, GOOD)
    await _diagnostics(client)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=LINTED)]))
    got = _as_tuples(await _diagnostics(client))
    assert got == _check_findings(LINTED)
    assert got and {s for _, _, s, _ in got} == {"warning"}
    assert got[0][0] == 8  # r3's line


@pytest.mark.slow  # a server start each
@pytest.mark.asyncio
async def test_formatting_is_rulekit_fmt(client: LanguageClient):
    messy = GOOD.replace("r1: if outlook = sunny", "r1:   if   outlook=sunny")
    _open(client, messy)
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=URI), options=lsp.FormattingOptions(tab_size=4,
                                                                                          insert_spaces=True)))
    assert len(edits) == 1 and edits[0].range.start == lsp.Position(line=0, character=0)
    assert edits[0].new_text == dsl.dumps(dsl.loads(messy))


@pytest.mark.slow  # a server start each
@pytest.mark.asyncio
async def test_hover_feature_value_rule(client: LanguageClient):
    _open(client, GOOD)

    async def at(line, ch):
        h = await client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=URI), position=lsp.Position(line=line, character=ch)))
        return h.contents.value if h else None

    assert "nominal" in await at(6, 9) and "overcast" in await at(6, 9)
    assert "numeric" in await at(6, 30)
    assert "value `sunny`" in await at(6, 19)
    assert "rule `r2`" in await at(7, 30)


@pytest.mark.asyncio
async def test_completion_values_features_keywords(client: LanguageClient):
    text = GOOD + "r3: if outlook = "
    _open(client, text)

    _open(client, GOOD, uri="file:///tmp/good.rules")

    async def labels(line, ch, uri=URI):
        res = await client.text_document_completion_async(lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=line, character=ch)))
        return [i.label for i in res.items]

    assert await labels(8, 17) == ["sunny", "overcast", "rain"]  # the line being typed does not parse
    assert await labels(7, 22, "file:///tmp/good.rules") == ["sunny", "overcast", "rain"]  # in {rai
    got = await labels(8, 7)
    assert "outlook" in got and '"hum idity"' in got and "then" in got and "missing" in got


@pytest.mark.slow  # a server start each
@pytest.mark.asyncio
async def test_definition_of_a_feature(client: LanguageClient):
    _open(client, GOOD)
    loc = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=URI), position=lsp.Position(line=6, character=30)))
    assert loc.range.start == lsp.Position(line=3, character=8)
    assert loc.range.end == lsp.Position(line=3, character=19)


async def _rename(client, line, ch, new):
    return await client.text_document_rename_async(lsp.RenameParams(
        text_document=lsp.TextDocumentIdentifier(uri=URI), position=lsp.Position(line=line, character=ch),
        new_name=new))


def _apply(text: str, edits) -> str:
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        s = lines[e.range.start.line]
        lines[e.range.start.line] = s[:e.range.start.character] + e.new_text + s[e.range.end.character:]
    return "\n".join(lines)


@pytest.mark.slow  # a server start each
@pytest.mark.asyncio
async def test_rename_feature_and_rule(client: LanguageClient):
    _open(client, GOOD)
    res = await _rename(client, 7, 8, "sky and")  # needs quotes; 3 places
    new = _apply(GOOD, res.changes[URI])
    assert len(res.changes[URI]) == 3
    rb = dsl.loads(new)
    assert [f.name for f in rb.features] == ["sky and", "hum idity"]
    assert dsl.loads(GOOD).rules[0].conclusion == rb.rules[0].conclusion
    res = await _rename(client, 7, 0, "rain check")
    assert [r.id for r in dsl.loads(_apply(GOOD, res.changes[URI])).rules] == ["r1", "rain check"]


@pytest.mark.slow  # a server start each
@pytest.mark.asyncio
async def test_rename_refuses_a_clash(client: LanguageClient):
    _open(client, GOOD)
    with pytest.raises(Exception, match="already"):
        await _rename(client, 6, 9, "hum idity")
    with pytest.raises(Exception, match="already"):
        await _rename(client, 7, 0, "r1")


@pytest.mark.slow  # a server start each
@pytest.mark.asyncio
async def test_quick_fixes_for_unknown_feature(client: LanguageClient):
    typo = GOOD.replace("r2: if outlook in", "r2: if outlok in")
    _open(client, typo)
    diags = await _diagnostics(client)
    acts = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=URI), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=diags)))
    fixed = _apply(typo, acts[0].edit.changes[URI])
    assert "change to" in acts[0].title and dsl.loads(fixed) == dsl.loads(GOOD)
    undeclared = GOOD.replace("r2: if outlook in {rain}", "r2: if wind > 3")
    _open(client, undeclared, uri="file:///tmp/two.rules")
    diags = await _diagnostics(client, "file:///tmp/two.rules")
    acts = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri="file:///tmp/two.rules"), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=diags)))
    assert "declare" in acts[0].title
    rb = dsl.loads(_apply(undeclared, acts[0].edit.changes["file:///tmp/two.rules"]))
    assert rb.feature("wind").kind == "numeric"


@pytest.mark.asyncio
async def test_survives_bad_input(client: LanguageClient):
    for junk in ["", "\x00\ufeff{{{", "if if if then then", "rulebase x\n" * 50_000]:
        _open(client, junk, uri="file:///tmp/junk.rules")
        await _diagnostics(client, "file:///tmp/junk.rules")
    res = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri="file:///nowhere.rules"),
        position=lsp.Position(line=99, character=99)))
    assert res is None
    _open(client, GOOD)
    assert await _diagnostics(client) == []  # still answering
