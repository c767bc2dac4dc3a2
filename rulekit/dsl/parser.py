"""Parse rules text into a RuleBase, reporting every error it can find, in words.

lark's LALR(1) parser (grammar ``grammars/rules.lark``) runs with :class:`rulekit.dsl.lexer.RulesLexer`
and the :class:`rulekit.dsl.build.Builder` callbacks inline. On a syntax error the parser records it,
skips to the next line that starts a statement (a header word, ``if``, or ``ID:``) and parses on from
there, so one run reports every broken rule, plus every error of meaning in the rules that parse.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import gc
import hashlib
import importlib
import io
import os
import pickle
import re
import sys
import tempfile
import threading
import types
from dataclasses import dataclass, field

import lark
from lark import Lark
from lark.exceptions import UnexpectedInput, UnexpectedToken
from lark.parsers.lalr_analysis import Reduce, Shift

from rulekit.dsl import messages
from rulekit.dsl.build import MAX_ERRORS, Builder
from rulekit.dsl.diagnostics import DEFAULT_FILE, Diagnostic, RulesSyntaxError, source_lines
from rulekit.dsl.grammar import grammar_text
from rulekit.dsl.lexer import Comment, LexError, RulesLexer, Source
from rulekit.rules.base import RuleBase

# A line that starts a statement: a header word, `if`, or a rule id followed by ':'.
_STMT_START = re.compile(
    r"^[ \t\f\ufeff]*(?:(?:rulebase|target|feature|semantics|precision|combiner|default|group|if)"
    r"(?![\w.-])|(?:[^\W\d][\w.]*|[0-9]+|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')[ \t]*:)", re.M)


@dataclass
class Parsed:
    """The result of :func:`parse`: the rule base (None when there are errors) and where things are."""

    rulebase: RuleBase | None
    errors: list[Diagnostic]
    file: str
    text: str = ""
    rule_pos: list[tuple[int, int]] = field(default_factory=list)  # (line, column) of each rule
    #: per rule, per test in reading order: (line, column, width) of its feature name
    literal_pos: list[list[tuple[int, int, int]]] = field(default_factory=list)
    header_lines: dict[str, int] = field(default_factory=dict)  # header statement ('default', ...) -> line
    #: per rule, then the default: the one denominator its class shares are written over, or None
    #: (a formatting hint: ``fmt`` writes ``279/285`` again, not ``93/95``)
    share_rows: tuple = ()

    def lines_of(self) -> list[str]:
        return source_lines(self.text)


_LOCK = threading.Lock()


def analysis_cache() -> str | bool:
    """Where lark keeps its analysis of the grammar (the LALR tables: ~0.5 s to build, the bulk of
    a ``rulekit check``'s start-up), or False for no cache.

    lark names the file by the grammar, its options and its own version and rebuilds on any change.
    The cache is a pickle, so it lives only in a directory that this user alone owns and can write
    (``$XDG_CACHE_HOME/rulekit`` or ``~/.cache/rulekit``; ``RULEKIT_PARSER_CACHE=0`` turns it off),
    never in a shared temporary directory.
    """
    if os.environ.get("RULEKIT_PARSER_CACHE", "1") == "0":
        return False
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "rulekit")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.stat(folder)
    except OSError:
        return False
    if st.st_uid != os.getuid() or st.st_mode & 0o022:
        return False
    digest = hashlib.sha256(grammar_text().encode("utf-8")).hexdigest()[:16]
    return os.path.join(folder, f"rules-grammar-{digest}.lark")


@functools.lru_cache(maxsize=1)
def _machinery() -> tuple[Lark, Builder]:
    builder = Builder()
    cache = analysis_cache()
    fast = _fast_cache_path(cache) if cache else None
    parser = _load_fast(fast, builder) if fast else None
    if parser is None:
        parser = Lark(grammar_text(), parser="lalr", lexer=RulesLexer, transformer=builder,
                      maybe_placeholders=True, cache=cache)
        if fast:
            _save_fast(fast, parser, builder)
    return parser, builder


# --- the built parser, pickled whole ---------------------------------------------------------------
# lark's own cache (above) stores its analysis as plain data that lark turns back into objects in
# Python; the parser it builds, pickled as objects, loads faster (a fresh 'rulekit check': ~60 ->
# ~40 ms CPU under load, docs/house.md). The pickle leaves out what rulekit's code makes, so an
# upgrade never meets a stale copy: the callbacks (closures over the Builder, rebuilt by lark) and
# the lexer (built again from lark's terminals); lark's Shift/Reduce markers (compared by identity)
# and modules go by reference. Any failure to read or write it falls back to lark's cache; its name
# carries the grammar, lark's and Python's versions and this format's.

_FAST_FORMAT = 1


def _fast_cache_path(cache: str) -> str:
    tag = f"{_FAST_FORMAT}-{lark.__version__}-{sys.version_info[0]}.{sys.version_info[1]}-{pickle.HIGHEST_PROTOCOL}"
    digest = hashlib.sha256((grammar_text() + tag).encode("utf-8")).hexdigest()[:16]
    return os.path.join(os.path.dirname(cache), f"rules-parser-{digest}.pickle")


class _Pickler(pickle.Pickler):
    def __init__(self, file, builder: Builder):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.builder = builder

    def persistent_id(self, obj):
        return "builder" if obj is self.builder else None

    def reducer_override(self, obj):
        if obj is Shift:
            return "Shift"
        if obj is Reduce:
            return "Reduce"
        if isinstance(obj, types.ModuleType):
            return importlib.import_module, (obj.__name__,)
        if type(obj).__module__.startswith("rulekit."):  # rulekit's objects are made afresh on load
            raise pickle.PicklingError(f"{type(obj).__name__} is not cached")
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, builder: Builder):
        super().__init__(file)
        self.builder = builder

    def persistent_load(self, pid):
        if pid != "builder":  # pragma: no cover - only _Pickler writes these files
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self.builder


def _callback_slots(parser: Lark) -> tuple:
    """The objects that hold the parser's callbacks and lexer (lark's internals; AttributeError if
    they moved): the Lark object, lark's LALR parser, its configuration, the front end."""
    frontend = parser.parser
    return parser, frontend.parser.parser, frontend.parser_conf, frontend


def _save_fast(path: str, parser: Lark, builder: Builder) -> None:
    try:
        # the table's ~11k (action, target) pairs are ~2.7k distinct tuples: one object each
        # loads faster (the pickle refers back to it); equal tuples, so the parser is unchanged
        shared: dict = {}
        for actions in parser.parser.parser._parse_table.states.values():
            for token, pair in actions.items():
                actions[token] = shared.setdefault(pair, pair)
        owner, inner, conf, frontend = _callback_slots(parser)
        held = (owner._callbacks, owner._parse_tree_builder, inner.callbacks, conf.callbacks, frontend.lexer)
        owner._callbacks = owner._parse_tree_builder = inner.callbacks = conf.callbacks = frontend.lexer = None
        try:
            buf = io.BytesIO()
            _Pickler(buf, builder).dump(parser)
        finally:
            owner._callbacks, owner._parse_tree_builder, inner.callbacks, conf.callbacks, frontend.lexer = held
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".rules-parser-")
    except Exception:  # noqa: BLE001 - the fast cache is an optimisation: lark's cache still works
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(buf.getvalue())
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _load_fast(path: str, builder: Builder) -> Lark | None:
    try:
        with open(path, "rb") as f:
            parser = _Unpickler(f, builder).load()
        if not isinstance(parser, Lark) or parser.options.transformer is not builder:
            return None
        owner, inner, conf, frontend = _callback_slots(parser)
        if frontend.lexer_conf.postlex is not None or frontend.lexer is not None:
            return None
        if any(action is not Shift and action is not Reduce
               for actions in inner.parse_table.states.values() for action, _ in actions.values()):
            return None  # lark compares its markers by identity: they must be lark's own
        owner._prepare_callbacks()
        inner.callbacks = conf.callbacks = owner._callbacks
        frontend.lexer = RulesLexer(frontend.lexer_conf)  # as lark builds it: today's lexer code
        return parser
    except Exception:  # noqa: BLE001 - missing, old or damaged: lark's own cache builds the parser
        return None


def tree_parser() -> Lark:
    """The same grammar and lexer building a lark Tree (for tests and tools; slower)."""
    return Lark(grammar_text(), parser="lalr", lexer=RulesLexer, maybe_placeholders=True)


def parse(text: str, *, file: str | None = None) -> Parsed:
    """Parse ``text``; never raises for bad input (errors are in ``Parsed.errors``)."""
    file = file or DEFAULT_FILE
    with _LOCK:
        parser, b = _machinery()
        b.reset(text, file)
        gc_was_on = gc.isenabled()
        gc.disable()  # the parse allocates many small objects and no cycles: ~15% faster without it
        try:
            comments = _run(parser, b, text)
            rb = b.finish()
            if rb is not None and comments:
                rb = _attach(rb, b, comments)
            errors = sorted(b.errors, key=lambda d: (d.line, d.column))
            share_rows = (*b.share_rows, b.written_rows(b.default_raw))
            return Parsed(rb if not errors else None, errors, file, text, b.rule_pos, b.lit_pos, dict(b.seen),
                          share_rows)
        finally:
            if gc_was_on:
                gc.enable()
            b.release()


def loads(text: str, *, file: str | None = None) -> RuleBase:
    """The RuleBase written in ``text``; :class:`RulesSyntaxError` listing every error otherwise."""
    p = parse(text, file=file)
    if p.errors:
        raise RulesSyntaxError(p.errors)
    return p.rulebase


def _run(parser: Lark, b: Builder, text: str) -> list[Comment]:
    comments: list[Comment] = []
    pos, line, line_start = 0, 1, 0
    while True:
        src = Source(text, pos, len(text), line, line_start)
        try:
            parser.parse(src)
            comments.extend(src.comments)
            return comments
        except LexError as e:
            b.error_at(e.line, e.column, e.message, e.width)
            stuck_line = e.line
        except UnexpectedToken as e:
            prev = src.before if e.token is src.last else src.last
            header_colon = messages.colon_after_header_word(prev, e.token, text) \
                if e.token.type == "COLON" and prev is not None and _starts_line(text, prev) else None
            if header_colon is not None:  # `default: no`: not an unfinished rule; resume after the line
                b.err(e.token, header_colon)
                stuck_line = prev.line
            elif e.token.type == "COLON" and prev is not None and _starts_line(text, prev):
                b.err(prev, f"{prev.value}: starts a new rule, but the rule before it is not finished "
                            "(a conclusion after 'then' is missing?)")
                stuck_line = prev.line - 1
            else:
                msg, where = messages.syntax_message(e, prev, text)
                b.error_at(where[0], where[1], msg, where[2])
                stuck_line = e.token.line if e.token.type != "$END" else None
                if stuck_line is not None and prev is not None and e.token.line > prev.line:
                    stuck_line = prev.line  # the offending token starts a later line: retry from it
        except UnexpectedInput as e:  # pragma: no cover - the custom lexer raises LexError instead
            b.error_at(getattr(e, "line", 1), getattr(e, "column", 1), "cannot read this")
            stuck_line = getattr(e, "line", None)
        comments.extend(src.comments)
        b.syntax_errors += 1
        b.abandon()
        if stuck_line is None or len(b.errors) >= MAX_ERRORS:
            return comments
        # resume at the first statement line after the line where parsing got stuck
        after_line = max(line, stuck_line) if stuck_line >= line else line
        nxt = _next_statement(text, after_line, line_start, line)
        if nxt is None:
            return comments
        pos, line, line_start = nxt


def _starts_line(text: str, tok) -> bool:
    start = text.rfind("\n", 0, tok.start_pos) + 1
    return not text[start:tok.start_pos].strip()


def _next_statement(text: str, after_line: int, line_start: int, line: int):
    """(offset, line, line start) of the first statement line after line ``after_line``."""
    i = line_start
    while line <= after_line:
        j = text.find("\n", i)
        if j < 0:
            return None
        i, line = j + 1, line + 1
    m = _STMT_START.search(text, i)
    if m is None:
        return None
    start = m.start()
    return start, line + text.count("\n", i, start), start


def _attach(rb: RuleBase, b: Builder, comments: list[Comment]) -> RuleBase:
    """Put each comment where the printer will write it back (see the module docstring of printer)."""
    starts = [s[0] for s in b.stmts]
    header: list[str] = []
    footer: list[str] = []
    leading: dict[int, list[str]] = {}
    trailing: dict[int, str] = {}
    n = len(b.stmts)
    for c in comments:
        text = _clean(c.text)
        if c.prev_pos < 0:  # before any statement
            k = 0
        else:
            k = bisect.bisect_right(starts, c.prev_pos) - 1  # the statement holding the previous token
            nxt_start = starts[k + 1] if k + 1 < n else None
            inside = c.next_pos is not None and (nxt_start is None or c.next_pos < nxt_start)
            if inside:
                pass  # a comment inside statement k stays with it
            elif c.prev_line == c.line and b.stmts[k][1] == "rule" and b.stmts[k][2] not in trailing:
                trailing[b.stmts[k][2]] = text
                continue
            elif c.prev_line == c.line:
                pass  # trailing a header or group line: goes with that line's statement
            else:
                k += 1  # on its own line after statement k: leads the next statement
        # a comment belongs to statement k (or after the last one)
        while k < n and b.stmts[k][1] == "group":
            k += 1  # comments above a 'group' line lead its first rule
        if k >= n:
            footer.append(text)
        elif b.stmts[k][1] == "rule":
            leading.setdefault(b.stmts[k][2], []).append(text)
        else:
            header.append(text)
    rules = list(rb.rules)
    for i in set(leading) | set(trailing):
        upd = {}
        if i in leading:
            upd["comments"] = tuple(leading[i])
        if i in trailing:
            upd["trailing_comment"] = trailing[i]
        rules[i] = rules[i].model_copy(update=upd)
    return rb.model_copy(update={"rules": tuple(rules), "comments": tuple(header),
                                 "footer_comments": tuple(footer)})


def _clean(text: str) -> str:
    """The text after ``#``: one separating space dropped, trailing blanks dropped."""
    text = text.rstrip()
    return text[1:] if text.startswith(" ") else text


__all__ = ["Parsed", "parse", "loads", "tree_parser", "RulesSyntaxError"]
