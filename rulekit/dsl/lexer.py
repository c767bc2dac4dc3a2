"""A fast contextual lexer for the rule DSL, plugged into lark's LALR parser.

It reads its patterns from the grammar's terminals (``grammars/rules.lark``), so the grammar stays the
one definition of the language, and behaves like lark's contextual lexer: a word is a keyword only
when the parser, in its current state, accepts that keyword (soft keywords), and ``-3`` is a signed
number only where a number may start (after ``a`` in ``a -3*b`` it is a minus). It is several times
faster than lark's own lexer because it runs one master regex and makes light tokens; a 1 MB rules
file must parse in well under a second.
"""

from __future__ import annotations

import re

from lark.lexer import Lexer

WORD_RE = None  # set by build(): the NAME pattern of the grammar


class Tok:
    """A token: what lark's parser needs (``type`` and positions) and nothing more."""

    __slots__ = ("type", "value", "start_pos", "end_pos", "line", "column")

    def __init__(self, type_: str, value: str, start_pos: int, end_pos: int, line: int, column: int):
        self.type = type_
        self.value = value
        self.start_pos = start_pos
        self.end_pos = end_pos
        self.line = line
        self.column = column

    @property
    def end_line(self) -> int:
        return self.line

    @property
    def end_column(self) -> int:
        return self.column + (self.end_pos - self.start_pos)

    def __repr__(self) -> str:
        return f"Tok({self.type}, {self.value!r}, {self.line}:{self.column})"


class Comment:
    """A ``#`` comment: where it stands and the code tokens around it (for attaching it)."""

    __slots__ = ("text", "line", "column", "pos", "prev_line", "prev_pos", "next_pos")

    def __init__(self, text: str, line: int, column: int, pos: int, prev_line: int, prev_pos: int):
        self.text = text
        self.line = line
        self.column = column
        self.pos = pos
        self.prev_line = prev_line  # line of the code token before it (0: none)
        self.prev_pos = prev_pos  # position of that token (-1: none)
        self.next_pos: int | None = None  # position of the code token after it (None: end of input)


class Source:
    """What the parser is given: a slice of the text plus a sink for comments.

    ``line`` and ``line_start`` are the line number and offset of the line holding ``start``, so a
    slice (error recovery parses statement by statement) reports positions in the whole file.
    """

    __slots__ = ("text", "start", "end", "line", "line_start", "comments", "last", "before")

    def __init__(self, text: str, start: int = 0, end: int | None = None, line: int = 1, line_start: int = 0):
        self.text = text
        self.start = start
        self.end = len(text) if end is None else end
        self.line = line
        self.line_start = line_start
        self.comments: list[Comment] = []
        self.last: Tok | None = None  # the last token handed to the parser
        self.before: Tok | None = None  # the one before it (what an error message says came "after")


class LexError(Exception):
    """A character that starts no token. Caught by the parser and turned into a diagnostic."""

    def __init__(self, message: str, pos: int, line: int, column: int, width: int = 1):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.line = line
        self.column = column
        self.width = width


_PUNCT_NAMES = {"<=": ("COMP",), ">=": ("COMP",), "!=": ("COMP",), "<": ("COMP",), ">": ("COMP",),
                "=": ("EQUAL", "COMP"), "+": ("ADDOP",), "-": ("ADDOP",)}


class RulesLexer(Lexer):
    """lark custom lexer (``__future_interface__ = 2``: called with the lexer and parser states)."""

    __future_interface__ = 2

    def __init__(self, lexer_conf):
        terms = {t.name: t for t in lexer_conf.terminals}
        rx = {name: terms[name].pattern.to_regexp() for name in ("WS", "COMMENT", "NUMBER", "NAME", "STRING")}
        self.word_re = re.compile(rx["NAME"])
        self.keywords: dict[str, str] = {}  # word -> terminal name
        self.hyphenated: dict[str, list[tuple[str, str]]] = {}  # first part -> [(whole word, terminal)]
        punct: dict[str, list[str]] = {}
        for t in lexer_conf.terminals:
            if t.pattern.type != "str":
                continue
            v = t.pattern.value
            if self.word_re.fullmatch(v):
                self.keywords[v] = t.name
            elif self.word_re.match(v):
                self.hyphenated.setdefault(self.word_re.match(v).group(), []).append((v, t.name))
            else:
                punct.setdefault(v, []).append(t.name)
        for v, names in _PUNCT_NAMES.items():
            for n in names:
                if n in terms and n not in punct.get(v, ()):
                    punct.setdefault(v, []).append(n)
        self.punct = {v: tuple(ns) for v, ns in punct.items()}
        ops = sorted(self.punct, key=len, reverse=True)
        self.master = re.compile(
            "(?P<WS>%s)|(?P<COMMENT>%s)|(?P<NUMBER>%s)|(?P<NAME>%s)|(?P<STRING>%s)|(?P<PUNCT>%s)" % (
                rx["WS"], rx["COMMENT"], rx["NUMBER"], rx["NAME"], rx["STRING"],
                "|".join(re.escape(o) for o in ops)))
        self.number_re = re.compile(rx["NUMBER"])

    def lex(self, lexer_state, parser_state):
        src: Source = lexer_state.text
        text, pos, end = src.text, src.start, src.end
        line, line_start = src.line, src.line_start
        comments = src.comments
        pending: list[Comment] = []
        stack = parser_state.state_stack
        states = parser_state.parse_conf.states
        match = self.master.match
        keywords, punct = self.keywords, self.punct
        while pos < end:
            m = match(text, pos, end)
            if m is None:
                raise self._error(text, pos, end, line, line_start)
            kind = m.lastgroup
            v = m.group()
            nxt = m.end()
            if kind == "WS":
                n = v.count("\n")
                if n:
                    line += n
                    line_start = pos + v.rindex("\n") + 1
                pos = nxt
                continue
            if kind == "COMMENT":
                last = src.last
                c = Comment(v[1:], line, pos - line_start + 1, pos, last.line if last else 0,
                            last.start_pos if last else -1)
                comments.append(c)
                pending.append(c)
                pos = nxt
                continue
            if kind == "NAME":
                kw = keywords.get(v)
                if kw is not None and kw in states[stack[-1]]:
                    kind = kw
                elif nxt < end and text[nxt] == "-" and v in self.hyphenated:
                    accepts = states[stack[-1]]
                    for whole, name in self.hyphenated[v]:
                        if name in accepts and text.startswith(whole, pos):
                            after = pos + len(whole)
                            if after >= end or not (text[after].isalnum() or text[after] == "_"):
                                kind, v, nxt = name, whole, after
                                break
            elif kind == "NUMBER":
                if v[0] in "+-":
                    accepts = states[stack[-1]]
                    if "NUMBER" not in accepts and "ADDOP" in accepts:
                        kind, v, nxt = "ADDOP", v[0], pos + 1
            elif kind == "PUNCT":
                names = punct[v]
                kind = names[0]
                if len(names) > 1:
                    accepts = states[stack[-1]]
                    for n in names:
                        if n in accepts:
                            kind = n
                            break
            if pending:
                for c in pending:
                    c.next_pos = pos
                pending.clear()
            tok = Tok(kind, v, pos, nxt, line, pos - line_start + 1)
            src.before = src.last
            src.last = tok
            yield tok
            pos = nxt

    def _error(self, text: str, pos: int, end: int, line: int, line_start: int) -> LexError:
        ch = text[pos]
        col = pos - line_start + 1
        if ch in "\"'":
            stop = pos + 1
            while stop < end and text[stop] not in "\n\r":
                stop += 1
            return LexError(f"this quoted name is not closed: add a closing {ch} on the same line "
                            f"(write a line break inside quotes as \\n)", pos, line, col, stop - pos)
        shown = ch if ch.isprintable() else "\\u{%x}" % ord(ch)
        hint = {"&": " (write 'and')", "|": " (write 'or')", "!": " (write 'not', or != for not equal)",
                "\n": ""}.get(ch, " (a name with this character must be written in quotes)"
                             if ch.isalpha() or ch.isprintable() and ch not in "\"'" else "")
        return LexError(f"unexpected character '{shown}'{hint}", pos, line, col)
