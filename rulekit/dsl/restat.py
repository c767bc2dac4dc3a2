"""Rewrite only the statistics of a rules text, leaving every other byte where the person put it.

``rulekit stats`` recomputes statistics after an edit; reprinting the whole file (``dsl.dumps``) would
lose the person's layout. Instead the text is lexed once more with a recording lexer (the same
grammar and :class:`rulekit.dsl.lexer.RulesLexer`, so every token, ``with`` and ``,`` included, has
its offset), each rule's tokens are found from the parser's rule positions, and the span from the
rule's ``with`` to its last token is replaced (or `` with ...`` inserted after the rule's last token
when it had no statistics). The statistics text is the printer's own (:func:`stats_clause`), rounded
as ``dsl.dumps`` rounds it (:func:`rulekit.dsl.readable.readable`) unless ``exact``.
"""

from __future__ import annotations

import functools
import threading

from lark import Lark

from rulekit.dsl.diagnostics import RulesSyntaxError
from rulekit.dsl.grammar import grammar_text
from rulekit.dsl.lexer import RulesLexer, Source
from rulekit.dsl.parser import parse
from rulekit.dsl.readable import readable
from rulekit.dsl.stat_words import stats_text
from rulekit.rules.base import RuleBase


class _Recording(RulesLexer):
    """The rules lexer, also appending every token it yields to the source's ``tokens``."""

    def lex(self, lexer_state, parser_state):
        sink = lexer_state.text.tokens
        for tok in super().lex(lexer_state, parser_state):
            sink.append(tok)
            yield tok


class _TokenSource(Source):
    __slots__ = ("tokens",)

    def __init__(self, text: str):
        super().__init__(text)
        self.tokens: list = []


_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(grammar_text(), parser="lalr", lexer=_Recording, maybe_placeholders=True)


def tokens(text: str) -> tuple[list, list]:
    """Every token of a valid rules text, in order, and every comment (blanks excluded)."""
    src = _TokenSource(text)
    with _LOCK:
        _parser().parse(src)
    return src.tokens, src.comments


def stats_clause(stats: dict[str, float]) -> str:
    """``with 12 rows, 11 correct`` as the printer writes it (empty for no statistics)."""
    return stats_text(stats)


def rule_stat_spans(text: str, *, file: str | None = None) -> tuple[RuleBase, list[tuple]]:
    """The rule base of ``text`` and, per rule, ``(start, end, has_stats, comments)``: the offsets
    of its statistics clause (``with`` to its last token) and the comments inside it, or
    ``(end of rule, end of rule, False, ())``."""
    parsed = parse(text, file=file)
    if parsed.errors:
        raise RulesSyntaxError(parsed.errors)
    toks, comments = tokens(text)
    at = {(t.line, t.column): i for i, t in enumerate(toks)}
    starts = [at[pos] for pos in parsed.rule_pos]
    spans: list[tuple[int, int, bool]] = []
    for k, s in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(toks)
        for i in range(s, stop):
            if toks[i].type == "GROUP":  # a 'group N' line before the next rule
                stop = i
                break
        last = stop - 1
        w = None
        for i in range(last, s, -1):
            if toks[i].type == "WITH":
                w = i
                break
        end = toks[last].end_pos
        if w is None:
            spans.append((end, end, False, ()))
            continue
        start = toks[w].start_pos
        spans.append((start, end, True, tuple("#" + c.text for c in comments if start < c.pos < end)))
    return parsed.rulebase, spans


def replace_stats(text: str, new: RuleBase, spans: list[tuple], *, exact: bool = False) -> str:
    """``text`` with each rule's statistics clause replaced by ``new``'s (same rules, same order),
    rounded for reading as ``dsl.dumps`` rounds them unless ``exact``."""
    shown = new if exact else readable(new)
    out: list[str] = []
    pos = 0
    for (start, end, had, comments), rule in zip(spans, shown.rules):
        clause = stats_clause(rule.stats)
        out.append(text[pos:start])
        # comments inside the old clause (a list over several lines) end the new one, text kept
        kept = "".join("  " + c for c in comments)
        if clause or kept:
            out.append((clause if had else " " + clause) + kept)
        elif had:  # no statistics any more: drop the clause and the blank before it
            out[-1] = out[-1].rstrip(" \t")
        pos = end
    out.append(text[pos:])
    return "".join(out)
