"""Edits the server proposes: whole-document formatting, renames and quick fixes.

Formatting is ``rulekit fmt``'s (``dsl.dumps``). A rename is checked by parsing the renamed text
(its header and the rules it touches): a new name that would break the file (clash, reserved word, empty) is refused with one message.
Quick fixes read the parser's own 'unknown feature' finding: its 'did you mean' name, or a
declaration to add.
"""

from __future__ import annotations

import bisect
import re

from rulekit import dsl
from rulekit.dsl import incremental, literals
from rulekit.dsl.diagnostics import Diagnostic
from rulekit.dsl.grammar import CONDITION_WORDS, all_words
from rulekit.lsp.analysis import Analysis, Span, feature_at

_UNKNOWN = re.compile(r"^unknown feature (\S+|\"(?:[^\"\\]|\\.)*\"); (?:did you mean (.+)\?|declare it)")


class RenameRefused(ValueError):
    """A rename that would make the file wrong; the message says why in one line."""


def formatted(a: Analysis) -> str | None:
    """The canonical text, or None when the file does not parse or is already canonical."""
    if a.rulebase is None:
        return None
    # the denominators shares are written over (279/285, not 93/95), as `rulekit fmt` keeps them;
    # an incremental parse does not record them, a full one does
    rows = a.parsed.share_rows or dsl.parse(a.text, file=a.parsed.file).share_rows
    new = dsl.dumps(a.rulebase, share_rows=rows)
    return None if new == a.text else new


def rename(a: Analysis, line: int, column: int, new_name: str) -> list[tuple[Span, str]]:
    """(span, text) replacements renaming the feature or rule id at (line, column)."""
    if a.rulebase is None:
        raise RenameRefused("the file has errors: fix them before renaming")
    if not new_name or "\n" in new_name or "\r" in new_name:
        raise RenameRefused(f"{new_name!r} is not a name")
    hit = feature_at(a, line, column)
    if hit is not None:
        old = hit[0]
        if new_name != old and (any(f.name == new_name for f in a.rulebase.features)
                                or new_name == a.rulebase.target):
            raise RenameRefused(f"{new_name!r} is already a name in this file")
        text = literals.name(new_name, CONDITION_WORDS)
        spans = ([a.declarations[old]] if old in a.declarations else []) + \
                [s for s, n in a.uses if n == old]
    else:
        spans, text = _rule_id_spans(a, line, column, new_name)
    edits = [(s, text) for s in spans]
    _check(a, edits)
    return edits


def _rule_id_spans(a: Analysis, line: int, column: int, new_name: str):
    for rule, span in zip(a.rulebase.rules, a.rule_ids):
        if span is not None and span.line == line and span.column <= column <= span.column + span.width:
            if new_name != rule.id and any(r.id == new_name for r in a.rulebase.rules):
                raise RenameRefused(f"rule id {new_name!r} is already taken")
            return [span], literals.rule_id(new_name, all_words())
    raise RenameRefused("put the cursor on a feature name or a rule id to rename it")


def apply(lines: list[str], edits: list[tuple[Span, str]]) -> str:
    """The text with each (span, text) replaced (spans do not overlap)."""
    out = list(lines)
    for span, text in sorted(edits, key=lambda e: (e[0].line, e[0].column), reverse=True):
        s = out[span.line - 1]
        out[span.line - 1] = s[:span.column - 1] + text + s[span.column - 1 + span.width:]
    return "\n".join(out)


def _check(a: Analysis, edits) -> None:
    """Refuse ``edits`` when the text they make does not parse. ``a`` parses, so only the header
    and the rule chunks the edits touch are parsed (a rule chunk's meaning depends on the header
    alone): a 5,000-rule file is not parsed whole for a rename of a rule id (tested against the
    whole text's parse)."""
    text = apply(a.lines, edits)
    cut = incremental.split(text)
    if cut is not None:
        header, h, chunks = cut
        starts = [c.line for c in chunks]
        touched = sorted({bisect.bisect_right(starts, s.line) - 1 for s, _ in edits} - {-1})
        text = "\n".join([header] + [chunks[i].text for i in touched])
    parsed = dsl.parse(text)
    if parsed.errors:
        raise RenameRefused(f"the renamed file would not be valid: {parsed.errors[0].message}")


def quick_fixes(a: Analysis, d: Diagnostic) -> list[tuple[str, list[tuple[Span, str]]]]:
    """(title, edits) fixes for one of ``a``'s diagnostics."""
    m = _UNKNOWN.match(d.message)
    if m is None:
        return []
    span = Span(d.line, d.column, d.width)
    if m.group(2) is not None:
        return [(f"change to {m.group(2)}", [(span, m.group(2).strip("'"))])]
    after = max((n for n, ln in enumerate(a.lines, start=1) if ln.lstrip().startswith("feature ")),
                default=_header_end(a))
    name = m.group(1).strip("'")
    line = a.lines[after - 1] if 0 < after <= len(a.lines) else ""
    decl = Span(after, len(line) + 1, 0)
    return [(f"declare {name} as a numeric feature", [(decl, f"\nfeature {name}: numeric")])]


def _header_end(a: Analysis) -> int:
    return max((n for n, ln in enumerate(a.lines, start=1) if ln.lstrip().startswith("target ")), default=1)
