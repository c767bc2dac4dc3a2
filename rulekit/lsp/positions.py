"""Character columns (the DSL's, from 1) to LSP positions (UTF-16 code units, from 0) and back."""

from __future__ import annotations

from lsprotocol import types as lsp

from rulekit.lsp.analysis import Span


def _units(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def position(lines: list[str], line: int, column: int) -> lsp.Position:
    """LSP position of the DSL's (line, column); clamped to the text."""
    n = min(max(line, 1), max(len(lines), 1))
    text = lines[n - 1] if lines else ""
    return lsp.Position(line=n - 1, character=_units(text[:max(column - 1, 0)]))


def span_range(lines: list[str], span: Span) -> lsp.Range:
    return lsp.Range(start=position(lines, span.line, span.column),
                     end=position(lines, span.line, span.column + span.width))


def line_column(lines: list[str], pos: lsp.Position) -> tuple[int, int]:
    """The DSL's (line, column) of an LSP position (past the end clamps to the end of the line)."""
    line = pos.line + 1
    text = lines[pos.line] if 0 <= pos.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(text):
        if units >= pos.character:
            return line, i + 1
        units += 2 if ord(ch) > 0xFFFF else 1
    return line, len(text) + 1
