"""Incremental diagnostics: the findings one edit can cause, from re-parsing only the rules it touched.

A text is split into its header (every line before the first rule) and rule chunks (a rule's first
line up to the next statement). Each chunk is parsed on its own behind the header, so its syntax
errors, errors of meaning (unknown feature, value outside a domain, class not known) and per-rule
lint (tests that exclude each other, implied or always-true tests, a condition that holds everywhere,
bad conclusions) are those ``rulekit check`` reports for it. Results are cached by chunk text, so an
edit re-parses only the chunks it changed. Whole-base findings (shadowed, duplicate, overlapping
rules, gaps, the default) need the full check (:func:`full`), which the server runs in a second pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from rulekit import dsl
from rulekit.dsl import lint
from rulekit.dsl.build import MAX_ERRORS
from rulekit.dsl.diagnostics import Diagnostic, make
from rulekit.dsl.parser import _STMT_START, Parsed
from rulekit.rules import boxes
from rulekit.rules.base import Rule
from rulekit.semantics import intervals

_HEADER_WORDS = ("rulebase", "target", "feature", "semantics", "precision", "combiner", "default", "group")


#: threshold bounds the rule algebra keeps between edits: :mod:`rulekit.semantics.intervals` keeps up to
#: 2**20 (~196 bytes each), one per threshold ever typed, in a server that lives for days
CANONICAL_KEPT = 1 << 16


def forget() -> None:
    """After a lint: drop the rule algebra's per-condition cache (keyed by objects of a parse that is
    gone) and, past :data:`CANONICAL_KEPT` entries, its per-threshold cache."""
    boxes.forget_boxes()
    if intervals.known() > CANONICAL_KEPT:
        intervals.forget()


@dataclass(frozen=True, slots=True)
class Chunk:
    line: int  # first line (from 1)
    text: str


@dataclass(frozen=True)
class ChunkResult:
    """A chunk's diagnostics with lines counted from the chunk's first line (0 = its first line).

    ``boundary``: errors the parse gave at the start of the next chunk's first line when it was read
    behind this one (an unfinished rule is reported where the next rule starts); those the next chunk
    does not give on its own belong to this one."""

    errors: tuple[Diagnostic, ...]
    findings: tuple[Diagnostic, ...]
    boundary: tuple[Diagnostic, ...] = ()
    #: the chunk's one rule as parsed (None when it has errors), where it starts and where each of
    #: its tests' feature names is written, lines counted as above: what hover, completion and
    #: rename read instead of a parse of the whole text (:meth:`Incremental.parsed`)
    rule: Rule | None = None
    rule_pos: tuple[int, int] | None = None
    literal_pos: tuple[tuple[int, int, int], ...] = ()


def split(text: str) -> tuple[str, int, list[Chunk]] | None:
    """(header text, header line count, rule chunks), or None when a header statement follows a rule
    (then only the full check is exact)."""
    starts: list[int] = []  # offsets of the lines that start rules
    for m in _STMT_START.finditer(text):
        if m.group(0).strip() in _HEADER_WORDS:  # the parser reads a header word first, as here
            if starts:
                return None
            continue
        starts.append(m.start())
    if not starts or starts[0] == 0:
        return None
    chunks, line, prev = [], text.count("\n", 0, starts[0]) + 1, starts[0]
    h = line - 1
    for s, e in zip(starts, starts[1:] + [len(text) + 1]):
        line += text.count("\n", prev, s)
        prev = s
        chunks.append(Chunk(line, text[s:e - 1]))
    return text[:starts[0] - 1], h, chunks


def header_errors(header: str, file: str) -> list[Diagnostic]:
    return list(dsl.parse(header, file=file).errors)


def chunk_result(header: str, h: int, chunk: Chunk, after: str | None, file: str) -> ChunkResult:
    """Parse ``chunk`` behind ``header`` (``h`` lines) and before the next chunk's text ``after``,
    and lint its one rule on its own."""
    n = chunk.text.count("\n") + 1
    first = None if after is None else after.split("\n", 1)[0]
    tail = "" if first is None else "\n" + first
    parsed = dsl.parse(header + "\n" + chunk.text + tail, file=file)
    errors = tuple(_shift(d, -h - 1) for d in parsed.errors if h < d.line <= h + n)
    start = 0 if first is None else len(first) - len(first.lstrip(" \t\f\ufeff")) + 1
    boundary = tuple(_shift(d, -h - 1 - n) for d in parsed.errors if d.line == h + n + 1 and d.column == start)
    alone = parsed if after is None else dsl.parse(header + "\n" + chunk.text, file=file)
    if errors or alone.rulebase is None or len(alone.rulebase.rules) != 1:
        return ChunkResult(errors, (), boundary)
    return _linted(alone.rulebase, 0, alone.rule_pos[0], alone.literal_pos[0], alone.lines_of(), h + 1, file,
                   boundary)


def _linted(rb, i: int, pos: tuple[int, int], lits, lines: list[str], first: int, file: str,
            boundary: tuple[Diagnostic, ...] = (), worded: tuple[int, int] | None = None) -> ChunkResult:
    """Rule ``i`` of ``rb`` linted on its own (a base of that one rule), as a chunk whose first line is
    line ``first`` of ``lines``; ``pos``/``lits`` are the rule's positions in ``lines``; ``worded``:
    its position as the chunk parsed behind the header has it (lint words messages with it)."""
    one = rb if len(rb.rules) == 1 else rb.model_copy(update={"rules": (rb.rules[i],)})
    out = []
    for f in lint.lint(one, [worded or pos]):
        if f.rule != 0 or f.code in lint.WHOLE_BASE_CODES:  # about the rule's place in the whole base
            continue
        if f.literal is not None and f.literal < len(lits):
            line, col, width = lits[f.literal]
        else:
            (line, col), width = pos, 1
        out.append(_shift(make(lines, file, line, col, f.message, width=width, severity=f.severity), -first))
    return ChunkResult((), tuple(out), boundary, rb.rules[i], (pos[0] - first, pos[1]),
                       tuple((ln - first, c, w) for ln, c, w in lits))


def from_parse(parsed: Parsed) -> tuple[str, dict[tuple[str, str | None], ChunkResult]] | None:
    """Every chunk's :class:`ChunkResult` from one parse of the whole (valid) text: the results
    :func:`chunk_result` gives chunk by chunk (tested), for one parse instead of one per rule
    (5,000 rules: ~6x less time). None when the text has errors or does not split into rule chunks."""
    rb = parsed.rulebase
    if parsed.errors or rb is None:
        return None
    cut = split(parsed.text)
    if cut is None:
        return None
    header, h, chunks = cut
    if len(chunks) != len(rb.rules) or len(parsed.rule_pos) != len(chunks) \
            or any(p[0] != c.line for p, c in zip(parsed.rule_pos, chunks)):
        return None
    lines = parsed.lines_of()
    known: dict[tuple[str, str | None], ChunkResult] = {}
    try:
        for i, (c, k) in enumerate(zip(chunks, _keys(chunks))):
            if k not in known:
                line, col = parsed.rule_pos[i]
                known[k] = _linted(rb, i, (line, col), parsed.literal_pos[i], lines, c.line, parsed.file,
                                   worded=(h + 1 + line - c.line, col))
    finally:
        forget()
    return header, known


def _keys(chunks: list[Chunk]) -> list[tuple[str, str | None]]:
    return [(c.text, chunks[i + 1].text if i + 1 < len(chunks) else None) for i, c in enumerate(chunks)]


def _key(d: Diagnostic) -> tuple:
    return d.line, d.column, d.width, d.message, d.severity


def _shift(d: Diagnostic, by: int) -> Diagnostic:
    return d.model_copy(update={"line": d.line + by})


class Incremental:
    """One document's chunk cache; :meth:`local` answers the diagnostics of a new text from it.

    The cache holds only the chunks of the latest text (memory stays bounded over any number of
    edits) and is dropped when the header or file name changes."""

    def __init__(self, file: str, max_new: int = 64):
        self.file = file
        self.max_new = max_new
        self.header: str | None = None
        self.known: dict[tuple[str, str | None], ChunkResult] = {}
        self._head: tuple[str, Parsed] | None = None  # the header's own parse
        self._last: tuple | None = None  # (text, header, chunks, keys) of the latest local() answer

    def seed(self, header: str, known: dict[tuple[str, str | None], ChunkResult]) -> None:
        if header != self.header:
            self.header, self.known = header, {}
        self.known.update(known)

    def seed_parse(self, parsed: Parsed) -> bool:
        """Seed every chunk from a parse of the whole text (:func:`from_parse`); False when it cannot."""
        got = from_parse(parsed)
        if got is not None:
            self.seed(*got)
        return got is not None

    def _header_parse(self, header: str) -> Parsed:
        if self._head is None or self._head[0] != header:
            self._head = (header, dsl.parse(header, file=self.file))
        return self._head[1]

    def header_rulebase(self):
        """The latest header's rule base (its features and classes, no rules), or None."""
        if self._last is None:
            return None
        return self._header_parse(self._last[1]).rulebase

    def parsed(self, text: str) -> Parsed | None:
        """``dsl.parse(text)``'s rule base and positions, assembled from the header's parse and the
        cached chunks (no parse of the whole text; equal to the full parse, tested); None unless
        ``text`` is the one :meth:`local` last answered for, without errors."""
        last = self._last
        if last is None or last[0] is not text and last[0] != text:
            return None
        _, header, chunks, keys = last
        head = self._header_parse(header)
        results = [self.known.get(k) for k in keys]
        if head.errors or head.rulebase is None or any(r is None or r.rule is None for r in results):
            return None
        rule_pos = [(r.rule_pos[0] + c.line, r.rule_pos[1]) for c, r in zip(chunks, results)]
        literal_pos = [[(ln + c.line, col, w) for ln, col, w in r.literal_pos] for c, r in zip(chunks, results)]
        rb = head.rulebase.model_copy(update={"rules": tuple(r.rule for r in results)})
        return Parsed(rb, [], self.file, text, rule_pos, literal_pos, dict(head.header_lines))

    def local(self, text: str) -> list[Diagnostic] | None:
        """Errors (all of them, as the full check gives them) or else the per-rule findings; None
        when this text needs more than ``max_new`` chunks parsed (then only the full check answers)."""
        cut = split(text)
        if cut is None:
            return None
        header, h, chunks = cut
        if header != self.header:
            self.header, self.known = header, {}
        keys = _keys(chunks)
        if sum(k not in self.known for k in keys) > self.max_new:
            return None
        try:
            for c, k in zip(chunks, keys):
                if k not in self.known:
                    self.known[k] = chunk_result(header, h, c, k[1], self.file)
        finally:
            forget()
        if len(self.known) > 2 * len(keys) + 64:  # stale chunks: keep memory bounded, rarely rebuilt
            self.known = {k: self.known[k] for k in keys}
        self._last = (text, header, chunks, keys)
        errors = list(self._header_parse(header).errors)
        findings: list[Diagnostic] = []
        for i, (c, k) in enumerate(zip(chunks, keys)):
            r = self.known[k]
            if r.errors:
                errors.extend(_shift(d, c.line) for d in r.errors)
            if r.findings and len(findings) < lint.MAX_FINDINGS:  # the check keeps as many, by line
                findings.extend(_shift(d, c.line) for d in r.findings)
            if r.boundary:
                own = {_key(d) for d in self.known[keys[i + 1]].errors}
                nxt = chunks[i + 1].line
                errors.extend(_shift(d, nxt) for d in r.boundary if _key(d) not in own)
        if errors:
            errors.sort(key=lambda d: (d.line, d.column))
            return errors[:MAX_ERRORS]
        return findings[:lint.MAX_FINDINGS]


def full(text: str, file: str) -> list[Diagnostic]:
    """Exactly ``rulekit check``'s diagnostics for ``text``."""
    parsed = dsl.parse(text, file=file)
    return list(parsed.errors) or lint.diagnostics(parsed)


def full_and_chunks(text: str, file: str, chunks_too: bool = True) -> tuple[list[Diagnostic], str | None, dict[tuple[str, str | None], ChunkResult]]:
    """The full check and (``chunks_too``) every chunk's result (run in a worker process: it seeds
    the first pass's cache)."""
    parsed = dsl.parse(text, file=file)
    try:
        found = list(parsed.errors) or lint.diagnostics(parsed)
    finally:
        forget()
    cut = split(text) if chunks_too else None
    if cut is None:
        return found, None, {}
    seeded = from_parse(parsed)  # a valid text: one lint per rule, no parse per rule
    if seeded is not None:
        return found, *seeded
    header, h, chunks = cut
    known = {}
    for c, k in zip(chunks, _keys(chunks)):
        if k not in known:
            known[k] = chunk_result(header, h, c, k[1], file)
    forget()
    return found, header, known

