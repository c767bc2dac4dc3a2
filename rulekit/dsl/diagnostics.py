"""Diagnostics: ``FILE:LINE:COL: error: message``, the offending line and a caret under the spot."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from rulekit.errors import RulekitError

DEFAULT_FILE = "<string>"
_WINDOW = 60  # characters shown each side of the spot on a long line


class Diagnostic(BaseModel):
    """One finding in a rules file. ``column`` counts characters from 1; ``width`` is the span."""

    model_config = ConfigDict(frozen=True)
    file: str = DEFAULT_FILE
    line: int
    column: int
    message: str
    severity: Literal["error", "warning", "note"] = "error"
    width: int = 1
    source_line: str = ""

    def headline(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"

    def render(self) -> str:
        """The headline, then the line of source and a caret (``^~~~``) under the spot."""
        if not self.source_line and self.column <= 1:
            return self.headline()
        line, col = self.source_line, self.column
        if len(line) > _WINDOW * 2:  # a very long line: show the part around the spot
            start = max(0, col - 1 - _WINDOW)
            head = "..." if start else ""
            line = head + line[start:col - 1 + _WINDOW] + ("..." if col - 1 + _WINDOW < len(line) else "")
            col = col - start + len(head)
        shown = "".join(c if c.isprintable() or c == "\t" else "?" for c in line)
        pad = "".join("\t" if c == "\t" else " " for c in shown[: col - 1])
        width = max(1, min(self.width, len(shown) - col + 1))
        return f"{self.headline()}\n    {shown}\n    {pad}^{'~' * (width - 1)}"


def make(lines: list[str], file: str, line: int, column: int, message: str, *, width: int = 1,
         severity: str = "error") -> Diagnostic:
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    return Diagnostic(file=file, line=line, column=column, message=message, width=max(1, width),
                      severity=severity, source_line=src)


def source_lines(text: str) -> list[str]:
    """Lines as the lexer counts them (only ``\\n`` ends a line; a trailing ``\\r`` is dropped)."""
    return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]


class RulesSyntaxError(RulekitError):
    """A rules file that does not parse or does not make sense; carries every diagnostic found.

    ``str(err)`` is one line (the first error, and how many more); :meth:`render` shows them all
    with their source lines and carets.
    """

    def __init__(self, diagnostics: list[Diagnostic]):
        if not diagnostics:
            raise ValueError("RulesSyntaxError needs at least one diagnostic")
        self.diagnostics = list(diagnostics)
        first = self.diagnostics[0]
        more = len(self.diagnostics) - 1
        msg = first.message + (f" (and {more} more error{'s' if more > 1 else ''}: run 'rulekit check')"
                               if more else "")
        super().__init__(msg, file=first.file, line=first.line, column=first.column)

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)
