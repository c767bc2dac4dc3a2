"""One document's analysis: the parse, ``rulekit check``'s diagnostics and where names are written.

Plain data and functions, no LSP types: the feature modules turn this into protocol answers. Lines
and columns count characters from 1, as :class:`rulekit.dsl.Diagnostic` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rulekit import dsl
from rulekit.dsl import incremental, lint, literals
from rulekit.dsl.diagnostics import Diagnostic, source_lines

#: texts above this size get one diagnostic instead of a parse (the server must stay responsive)
MAX_CHARS = 20_000_000

_NAME = r'(?:"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|[^\s:"\'{}(),=<>!#]+)'
_FEATURE_DECL = re.compile(rf"^[ \t\f\ufeff]*feature[ \t]+({_NAME})[ \t]*:")
_RULE_ID = re.compile(rf"({_NAME})[ \t]*:")


@dataclass(frozen=True)
class Span:
    line: int
    column: int
    width: int


@dataclass
class Analysis:
    """What the server knows about one text: its parse, diagnostics and name spans."""

    text: str
    parsed: dsl.Parsed | None
    diagnostics: list[Diagnostic]
    lines: list[str]
    #: feature name -> span of its name in its ``feature NAME:`` declaration
    declarations: dict[str, Span] = field(default_factory=dict)
    #: (span, feature name) of every test of a feature, in reading order
    uses: list[tuple[Span, str]] = field(default_factory=list)
    #: per rule: span of its id (None when the rule has no id)
    rule_ids: list[Span | None] = field(default_factory=list)

    @property
    def rulebase(self):
        return self.parsed.rulebase if self.parsed is not None else None


def analyse(text: str, file: str = "<editor>", *, with_lint: bool = True) -> Analysis:
    """Parse and (``with_lint``) lint ``text``; never raises for bad input. Without the lint the
    diagnostics are the parse's errors only."""
    lines = source_lines(text)
    if len(text) > MAX_CHARS:
        msg = f"file too large for the language server ({len(text):,} characters; limit {MAX_CHARS:,})"
        return Analysis(text, None, [Diagnostic(file=file, line=1, column=1, message=msg)], lines)
    parsed = dsl.parse(text, file=file)
    found = list(parsed.errors)
    if not found and with_lint:
        try:
            found = lint.diagnostics(parsed)
        finally:
            incremental.forget()  # the cache is keyed by condition objects this text's parse owns
    return from_parsed(parsed, found, lines, text)


def from_parsed(parsed: dsl.Parsed, diagnostics: list[Diagnostic], lines: list[str] | None = None,
                text: str | None = None) -> Analysis:
    """The analysis of a parse already made (of ``text``, default ``parsed.text``) with these diagnostics."""
    text = parsed.text if text is None else text
    a = Analysis(text, parsed, diagnostics, lines if lines is not None else source_lines(text))
    if parsed.rulebase is not None:
        _locate(a)
    return a


def _locate(a: Analysis) -> None:
    rb, parsed = a.rulebase, a.parsed
    names = {f.name for f in rb.features}
    for n, line in enumerate(a.lines, start=1):
        m = _FEATURE_DECL.match(line)
        if m is not None:
            name = literals.unquote(m.group(1)) if m.group(1)[0] in "\"'" else m.group(1)
            if name in names and name not in a.declarations:
                a.declarations[name] = Span(n, m.start(1) + 1, len(m.group(1)))
    for spans in parsed.literal_pos:
        for line, col, width in spans:
            name = _name_text(a.lines, line, col, width)
            if name in names:
                a.uses.append((Span(line, col, width), name))
    for rule, (line, col) in zip(rb.rules, parsed.rule_pos):
        span = None
        if rule.id is not None and 0 < line <= len(a.lines):
            m = _RULE_ID.match(a.lines[line - 1], col - 1)
            if m is not None:
                span = Span(line, col, len(m.group(1)))
        a.rule_ids.append(span)


def _name_text(lines: list[str], line: int, col: int, width: int) -> str | None:
    """The name written in a span (unquoted), or None when the span is not on a line."""
    if not 0 < line <= len(lines):
        return None
    tok = lines[line - 1][col - 1:col - 1 + width]
    return literals.unquote(tok) if tok[:1] in ("\"", "'") else tok


def feature_at(a: Analysis, line: int, column: int) -> tuple[str, Span] | None:
    """The feature whose name is written at (line, column), with that span."""
    for name, span in a.declarations.items():
        if _inside(span, line, column):
            return name, span
    for span, name in a.uses:
        if _inside(span, line, column):
            return name, span
    return None


def rule_at(a: Analysis, line: int) -> int | None:
    """Index of the rule written on ``line`` (a rule runs to the line before the next rule)."""
    if a.parsed is None or not a.parsed.rule_pos:
        return None
    best = None
    for i, (start, _) in enumerate(a.parsed.rule_pos):
        if start <= line:
            best = i
        else:
            break
    return best


def _inside(span: Span, line: int, column: int) -> bool:
    return span.line == line and span.column <= column <= span.column + span.width
