"""What every grammar callback of the rules parser shares: the state of one parse (header read so far,
rules, positions, diagnostics) and reading tokens (quoted names, signed numbers, typed literals,
feature references). :class:`rulekit.dsl.build.RuleBaseBuilder` is made of this and the callbacks
for the header, conditions and conclusions (``build_header``, ``build_conditions``,
``build_conclusions``), which read and write this state.
"""

from __future__ import annotations

import difflib

from rulekit.dsl import literals
from rulekit.dsl.diagnostics import Diagnostic, make, source_lines
from rulekit.ir.schema import Combiner, Feature
from rulekit.rules.base import Rule

MAX_ERRORS = 100
NAME_TOKENS = frozenset({"NAME", "STRING"})


def typed_key(v):
    """Membership that tells ``1``, ``1.0``, ``True`` and ``"1"`` apart."""
    return (type(v), v)


def show_value(v) -> str:
    """A value or label for a message: 'red', 3, true, or "with \"quotes\"" when it needs them."""
    text = literals.typed(v, frozenset())
    return f"'{text}'" if isinstance(v, str) and not text.startswith('"') else text


def show_name(name: str) -> str:
    """A feature or target name for a message."""
    text = literals.name(name, frozenset())
    return text if text.startswith('"') else f"'{text}'"


class BuildState:
    """State for one parse (see :meth:`reset`), its diagnostics and token reading."""

    def reset(self, text: str, file: str) -> None:
        self.text = text
        self.file = file
        self._lines: list[str] | None = None
        self.errors: list[Diagnostic] = []
        self.name: str | None = None
        self.task: str | None = None
        self.target: str | None = None
        self.classes: tuple | None = None
        self.class_keys: frozenset | None = None
        self.features: dict[str, Feature] = {}
        self.feature_list: list[Feature] = []
        self.domains: dict[str, frozenset] = {}
        self.semantics: str | None = None
        self.precision: str | None = None
        self.combiner: Combiner | None = None
        self.default_raw = None
        self.missing_as: dict = {}  # feature -> the value a missing value counts as ('missing' lines)
        self.unseen_as: dict = {}  # nominal feature -> the value an unseen value counts as ('unseen' lines)
        self.seen: dict[str, int] = {}  # header statement -> line
        self.rules: list[Rule] = []
        self.rule_pos: list[tuple[int, int]] = []
        self.share_rows: list[int | None] = []  # per rule: the denominator its shares are written over
        self.lit_pos: list[list[tuple[int, int, int]]] = []
        self.lits: list[tuple[int, int, int]] = []
        self.stmts: list[tuple[int, str, int]] = []  # (start offset, kind, rule index or -1)
        self.cur_group = 0
        self.first_rule_line: int | None = None
        self.too_deep = False
        self.warned_no_target = False
        self.syntax_errors = 0  # counted by the parser: a broken line may be the missing header line
        # tokens already reported (a bad escape): no second error on them (kept alive: ids stay unique)
        self.bad: dict[int, object] = {}

    def release(self) -> None:
        """Drop everything the last parse built (the result owns what it needs)."""
        self.reset("", "")

    # --- diagnostics ------------------------------------------------------------------------------
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = source_lines(self.text)
        return self._lines

    def error_at(self, line: int, column: int, message: str, width: int = 1) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(make(self.lines(), self.file, line, column, message, width=width))

    def err(self, tok, message: str) -> None:
        self.error_at(tok.line, tok.column, message, max(1, tok.end_pos - tok.start_pos))

    def abandon(self) -> None:
        """Forget the half-read statement after a syntax error."""
        self.lits = []

    # --- tokens -----------------------------------------------------------------------------------
    def text_of(self, tok) -> str:
        if tok.type == "STRING":
            try:
                return literals.unquote(tok.value)
            except literals.EscapeError as e:
                if id(tok) not in self.bad:
                    self.bad[id(tok)] = tok
                    self.error_at(tok.line, tok.column + e.offset, str(e), e.width)
                return tok.value[1:-1]
        return tok.value

    def _signed(self, sign, tok) -> float:
        v = literals.read_number(tok.value)
        return -v if sign is not None and sign.value == "-" else v

    def numbers(self, items) -> list[tuple[float, object]]:
        out, sign = [], None
        for t in items:
            if t is None:
                continue
            if t.type == "ADDOP":
                sign = t
                continue
            out.append((self._signed(sign, t), sign or t))
            sign = None
        return out

    def typed_literals(self, items) -> list[tuple[object, object]]:
        """(value, token) for NAME/STRING (str), true/false (bool), numbers (int or float)."""
        out, sign = [], None
        for t in items:
            if t is None:
                continue
            ty = t.type
            if ty == "ADDOP":
                sign = t
                continue
            if ty in NAME_TOKENS:
                out.append((self.text_of(t), t))
            elif ty == "TRUE" or ty == "FALSE":
                out.append((ty == "TRUE", t))
            else:
                try:
                    v = literals.read_typed_number(t.value)
                except ValueError:
                    self.err(t, "this number has too many digits")
                    v = 0
                if sign is not None and sign.value == "-":
                    v = -v
                out.append((v, sign or t))
            sign = None
        return out

    # --- features and values ----------------------------------------------------------------------
    def _feature(self, tok):
        """The feature a name token refers to (None with an error when there is none)."""
        name = self.text_of(tok)
        f = self.features.get(name)
        if f is None and id(tok) not in self.bad:
            near = difflib.get_close_matches(name, list(self.features), n=1)
            hint = f"; did you mean {show_name(near[0])}?" if near else \
                "; declare it in the header ('feature NAME: numeric')"
            self.err(tok, f"unknown feature {show_name(name)}{hint}")
        return name, f

    def _check_value(self, name, v, tok) -> None:
        if typed_key(v) not in self.domains[name] and id(tok) not in self.bad:
            f = self.features[name]
            dom = ", ".join(show_value(x) for x in f.domain[:8]) + (", ..." if len(f.domain) > 8 else "")
            what = "a number" if isinstance(v, (int, float)) and not isinstance(v, bool) else show_value(v)
            as_text = [x for x in f.domain if str(x) == str(v)]
            hint = f" (did you mean {show_value(as_text[0])}?)" if as_text else ""
            self.err(tok, f"{show_value(v)} is not a value of the nominal feature "
                          f"{show_name(name)} (values: {dom}){hint}"
                     if what != "a number" or as_text or any(isinstance(x, int) for x in f.domain) else
                     f"{show_name(name)} is nominal (values: {dom}): it cannot be "
                     f"compared with the number {show_value(v)}")
