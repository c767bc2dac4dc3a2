"""From parse to RuleBase: one callback per grammar rule, checking meaning as it goes.

:class:`Builder` is a :class:`lark.Transformer_NonRecursive`. The parser runs it *inline* (lark calls
each method when LALR reduces its rule, so no tree is built and nothing recurses: the LALR stack is
explicit); it transforms an already built tree just the same (the tests check both agree). The
header comes before the rules, so when a rule is reduced every feature and class is known and each
comparison is checked in place: unknown feature, value outside a nominal domain, number against a
nominal feature, label that is not a class... Each problem becomes a diagnostic with the position of
its token; parsing goes on to find the others.
"""

from __future__ import annotations

import difflib
import math

from lark import Transformer_NonRecursive
from pydantic import ValidationError

from rulekit.dsl import literals, missing, stat_words, unseen
from rulekit.dsl.diagnostics import Diagnostic, make, source_lines
from rulekit.dsl.grammar import CONDITION_WORDS, MAX_DEPTH
from rulekit.dsl.lexer import Tok
from rulekit.ir.schema import Combiner, Feature
from rulekit.rules.base import (TRUE, And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or, Rule,
                                RuleBase)

MAX_ERRORS = 100

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}
_NUM_OPS = frozenset({"<", "<=", ">", ">="})
_UP = frozenset({"<", "<="})
_NUMBERS = frozenset({"NUMBER", "INF", "NAN"})
_NAMES = frozenset({"NAME", "STRING"})
_HEADER = ("rulebase", "target", "semantics", "precision", "combiner", "default")


class _Chain(tuple):
    """``20 < age <= 40``: two comparisons that splice into an enclosing ``and``."""


class _Sum:
    __slots__ = ("terms", "tok")

    def __init__(self, terms, tok):
        self.terms = terms  # [(coefficient, feature name, token)]
        self.tok = tok


class _Dist(list):
    tok = None  # the '[' ... first number, for errors


class _Fraction:
    """A probability written ``a/b`` (its float64 quotient)."""

    __slots__ = ("value",)

    def __init__(self, value: float):
        self.value = value


class _Val:
    __slots__ = ("value", "tok")

    def __init__(self, value, tok):
        self.value = value
        self.tok = tok


def _typed_key(v):
    """Membership that tells ``1``, ``1.0``, ``True`` and ``"1"`` apart."""
    return (type(v), v)


def _show(v) -> str:
    """A value or label for a message: 'red', 3, true, or "with \"quotes\"" when it needs them."""
    text = literals.typed(v, frozenset())
    return f"'{text}'" if isinstance(v, str) and not text.startswith('"') else text


def _nm(name: str) -> str:
    """A feature or target name for a message."""
    text = literals.name(name, frozenset())
    return text if text.startswith('"') else f"'{text}'"


class Builder(Transformer_NonRecursive):
    """Grammar callbacks building the IR; state for one parse (see :meth:`reset`)."""

    __visit_tokens__ = False

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
            if ty in _NAMES:
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

    # --- header -----------------------------------------------------------------------------------
    def _header(self, kind: str, kw) -> bool:
        """Record a header statement; False (with an error) when it repeats or follows the rules."""
        self.stmts.append((kw.start_pos, "header", -1))
        ok = True
        if self.first_rule_line is not None:
            self.err(kw, f"header lines come before the rules: move this '{kw.value}' line above the "
                         f"first rule (line {self.first_rule_line})")
            ok = False
        if kind in self.seen:
            self.err(kw, f"a second '{kw.value}' line (the first is on line {self.seen[kind]})")
            return False
        self.seen[kind] = kw.line
        return ok

    def rulebase_stmt(self, c):
        if self._header("rulebase", c[0]):
            self.name = self.text_of(c[1])

    def target_stmt(self, c):
        if not self._header("target", c[0]):
            return
        self.target = self.text_of(c[1])
        task_tok = c[2]
        self.task = task_tok.value if task_tok is not None else "classification"
        if len(c) > 3:
            classes, keys = [], set()
            for v, tok in c[3]:
                k = _typed_key(v)
                if k in keys:
                    self.err(tok, f"class {_show(v)} is listed twice")
                    continue
                keys.add(k)
                classes.append(v)
            self.classes = tuple(classes)
            self.class_keys = frozenset(keys)

    def feature_stmt(self, c):
        kw, name_tok, kind_tok = c[0], c[1], c[2]
        self.stmts.append((kw.start_pos, "header", -1))
        if self.first_rule_line is not None:
            self.err(kw, "header lines come before the rules: move this 'feature' line above the first "
                         f"rule (line {self.first_rule_line})")
        name = self.text_of(name_tok)
        if name in self.features:
            self.err(name_tok, f"feature {_nm(name)} is declared twice")
            return
        domain = None
        if kind_tok.type == "NOMINAL":
            values, keys = [], set()
            for v, tok in c[3]:
                if isinstance(v, (bool, float)):
                    self.err(tok, f"a nominal value is a name or a whole number, not {_show(v)}")
                    continue
                k = _typed_key(v)
                if k in keys:
                    self.err(tok, f"value {_show(v)} is listed twice")
                    continue
                keys.add(k)
                values.append(v)
            domain = tuple(values)
            self.domains[name] = frozenset(keys)
        kw = {}
        if len(c) > 4 and c[4] is not None:
            kw["match"] = c[4]
        try:
            f = Feature(name=name, kind="nominal" if domain is not None else "numeric", domain=domain, **kw)
        except ValidationError as e:  # pragma: no cover - the checks above come first
            self.err(name_tok, e.errors()[0]["msg"])
            return
        self.features[name] = f
        self.feature_list.append(f)

    def missing_stmt(self, c):
        name_tok = c[0]
        self.stmts.append((name_tok.start_pos, "header", -1))
        if self.first_rule_line is not None:
            self.err(name_tok, "header lines come before the rules: move this 'missing' line above the "
                               f"first rule (line {self.first_rule_line})")
        name, f = self._feature(name_tok)
        (v, tok), = self.typed_literals(c[1:])
        if f is None:
            return
        if name in self.missing_as:
            self.err(name_tok, f"missing values of {_nm(name)} are declared twice")
        elif f.kind == "nominal":
            self._check_value(name, v, tok)
            self.missing_as[name] = v
        elif isinstance(v, (str, bool)) or v != v:
            self.err(tok, f"{_nm(name)} is numeric: a missing value counts as a number (or -inf, inf), "
                          f"not {_show(v)}")
        else:
            self.missing_as[name] = float(v)

    def unseen_stmt(self, c):
        name_tok = c[0]
        self.stmts.append((name_tok.start_pos, "header", -1))
        if self.first_rule_line is not None:
            self.err(name_tok, "header lines come before the rules: move this 'unseen' line above the "
                               f"first rule (line {self.first_rule_line})")
        name, f = self._feature(name_tok)
        (v, tok), = self.typed_literals(c[1:])
        if f is None:
            return
        if name in self.unseen_as:
            self.err(name_tok, f"unseen values of {_nm(name)} are declared twice")
        elif f.kind != "nominal" or not f.domain:
            self.err(name_tok, f"{_nm(name)} has no domain: 'unseen' is said of a nominal feature's values")
        else:
            self._check_value(name, v, tok)
            self.unseen_as[name] = v

    def semantics_stmt(self, c):
        if self._header("semantics", c[0]):
            self.semantics = c[1].value

    def precision_stmt(self, c):
        if self._header("precision", c[0]):
            self.precision = c[1].value

    def link(self, c):
        return c[0].value

    def arithmetic(self, c):
        return c[0]

    def match(self, c):
        return c[0].value

    def decision(self, c):
        op, num = c
        if op.value not in (">=", ">") or num.value not in ("0", "0.0"):
            self.err(op, "a boosted classifier's decision is 'raw >= 0' or 'raw > 0'")
            return None
        return "raw" + op.value + "0"

    def base_score(self, c):
        return tuple(v for v, _ in self.numbers(c[0]))

    def tree_output(self, c):
        out = []
        for v, tok in self.typed_literals(c[0]):
            if type(v) is not int:
                self.err(tok, "tree_output lists whole numbers (the output of each tree)")
                continue
            out.append(v)
        return tuple(out)

    def number_list(self, c):
        return c

    def combiner_stmt(self, c):
        if not self._header("combiner", c[0]):
            return
        kw = dict(kind=c[1].value)
        if c[2] is not None:
            kw["link"] = c[2]
        if c[3] is not None:
            kw["base_score"] = c[3]
        if c[4] is not None:
            kw["tree_output"] = c[4]
        if c[5] is not None:
            kw["decision"] = c[5]
        if c[6] is not None:
            if kw["kind"] not in ("sum", "average"):
                self.err(c[6], "'arithmetic float32' applies to sum and average combiners only")
            else:
                kw["arithmetic"] = "float32"
        self.combiner = Combiner(**kw)

    def default_stmt(self, c):
        if self._header("default", c[0]):
            self.default_raw = c[1]

    def group_stmt(self, c):
        kw = c[0]
        self.stmts.append((kw.start_pos, "group", -1))
        vals = self.typed_literals(c[1:])
        v, tok = vals[0]
        if type(v) is not int:
            self.err(tok, "a group number is a whole number")
            return
        self.cur_group = v

    def start(self, c):
        return None

    # --- rules ------------------------------------------------------------------------------------
    def rule(self, c):
        id_tok, if_tok, cond, concl, weight, stats = c
        first = id_tok or if_tok
        index = len(self.rules)
        self.stmts.append((first.start_pos, "rule", index))
        if self.first_rule_line is None:
            self.first_rule_line = first.line
            if self.target is None and not self.warned_no_target and not self.syntax_errors:
                self.warned_no_target = True
                self.err(first, "the header needs a 'target' line before the first rule "
                                "(e.g. 'target species: classes {a, b}' or 'target price: regression')")
        rid = None
        if id_tok is not None:
            if id_tok.type == "NUMBER" and not literals.DIGITS_RE.fullmatch(id_tok.value):
                self.err(id_tok, "a rule id is a name, digits, or text in quotes")
            rid = self.text_of(id_tok)
        if type(cond) is _Chain:
            node, depth = And(items=tuple(cond)), 1
        else:
            node, depth = cond
        if depth > MAX_DEPTH:
            self.err(if_tok, f"this condition nests {depth} groups deep; at most {MAX_DEPTH} are allowed "
                             "(write it as several rules, or flatten the parentheses)")
        kw = {"condition": node, "conclusion": self.conclusion_of(concl), "group": self.cur_group}
        if rid is not None:
            kw["id"] = rid
        if weight is not None:
            kw["weight"] = weight
        if stats is not None:
            kw["stats"] = stats
        self.rules.append(Rule(**kw))
        self.rule_pos.append((first.line, first.column))
        self.lit_pos.append(self.lits)
        self.lits = []

    def weight(self, c):
        return self.numbers(c)[0][0]

    def stats(self, c):
        out = {}
        shares = []
        for key, value, tok, pct in c:
            if pct is not None:
                shares.append((key, value, pct))
            if key is None:
                continue
            if key in out:
                self.err(tok, f"statistic {_nm(key)} is given twice")
            out[key] = value
        for key, value, pct in shares:  # `622 correct (87.1%)`: checked, not kept
            problem = ("a percentage follows only 'correct' (e.g. 'with 10 rows, 9 correct (90%)')"
                       if key != "correct" else stat_words.percent_problem(pct.value, value, out.get("n")))
            if problem is not None and (key != "correct" or "n" in out):  # no rows: resolve says so
                self.err(pct, problem)
        problem = stat_words.resolve(out)
        if problem is not None:  # at the word 'correct'
            self.err(next(tok for key, _, tok, _ in c if key == "correct"), problem)
        return out

    def stat(self, c):
        return self.text_of(c[0]), self.numbers(c[1:])[0][0], c[0], None

    def stat_word(self, c):
        key = stat_words.word_key(c[1].value)
        if key is None:
            self.err(c[1], f"unknown statistic word {c[1].value!r}; the words are "
                           + ", ".join(repr(w) for w in stat_words.WORDS) + " (or write 'name = number')")
        return key, self.numbers(c[:1])[0][0], c[1], c[2] if len(c) > 2 else None

    def percent(self, c):
        return c[0]  # the NUMBER token (checked by stats against the counts)

    # --- conditions: each returns (node, depth), or a _Chain -------------------------------------
    def _depth(self, items):
        d = 0
        for x in items:
            if type(x) is not _Chain and x[1] > d:
                d = x[1]
        return d + 1

    def or_expr(self, c):
        items = tuple(And(items=tuple(x)) if type(x) is _Chain else x[0] for x in c)
        return Or(items=items), self._depth(c)

    def and_expr(self, c):
        items = []
        for x in c:
            if type(x) is _Chain:
                items.extend(x)
            else:
                items.append(x[0])
        return And(items=tuple(items)), self._depth(c)

    def _one(self, x):
        return (And(items=tuple(x)), 1) if type(x) is _Chain else x

    def not_expr(self, c):
        node, d = self._one(c[0])
        return Not(item=node), d + 1

    def group(self, c):
        return self._one(c[0])

    def and_one(self, c):
        node, d = self._one(c[0])
        return And(items=(node,)), d + 1

    def or_one(self, c):
        node, d = self._one(c[0])
        return Or(items=(node,)), d + 1

    def true_cond(self, c):
        return TRUE, 1

    def false_cond(self, c):
        return Or(items=()), 1

    def _feature(self, tok):
        """The feature a name token refers to (None with an error when there is none)."""
        name = self.text_of(tok)
        f = self.features.get(name)
        if f is None and id(tok) not in self.bad:
            near = difflib.get_close_matches(name, list(self.features), n=1)
            hint = f"; did you mean {_nm(near[0])}?" if near else \
                "; declare it in the header ('feature NAME: numeric')"
            self.err(tok, f"unknown feature {_nm(name)}{hint}")
        return name, f

    def missing_test(self, c):
        tok = c[0]
        name, _ = self._feature(tok)
        self.lits.append((tok.line, tok.column, tok.end_pos - tok.start_pos))
        return IsMissing(feature=name, negated=c[1] is not None), 0

    def set_test(self, c):
        tok = c[0]
        name, f = self._feature(tok)
        values = c[2]
        if f is not None and f.kind != "nominal":
            self.err(tok, f"{_nm(name)} is numeric: 'in {{...}}' tests a nominal "
                          "feature (use < <= > >= for a number)")
        elif f is not None:
            for v, vt in values:
                self._check_value(name, v, vt)
        self.lits.append((tok.line, tok.column, tok.end_pos - tok.start_pos))
        # a float is never a nominal value (reported above); keep the node well-formed regardless
        vals = tuple(v for v, _ in values if not isinstance(v, float))
        return InSet(feature=name, values=vals, negated=c[1] is not None), 0

    def _check_value(self, name, v, tok) -> None:
        if _typed_key(v) not in self.domains[name] and id(tok) not in self.bad:
            f = self.features[name]
            dom = ", ".join(_show(x) for x in f.domain[:8]) + (", ..." if len(f.domain) > 8 else "")
            what = "a number" if isinstance(v, (int, float)) and not isinstance(v, bool) else _show(v)
            as_text = [x for x in f.domain if str(x) == str(v)]
            hint = f" (did you mean {_show(as_text[0])}?)" if as_text else ""
            self.err(tok, f"{_show(v)} is not a value of the nominal feature "
                          f"{_nm(name)} (values: {dom}){hint}"
                     if what != "a number" or as_text or any(isinstance(x, int) for x in f.domain) else
                     f"{_nm(name)} is nominal (values: {dom}): it cannot be "
                     f"compared with the number {_show(v)}")

    def sum(self, c):
        terms, neg, coef = [], False, None
        for t in c:
            ty = t.type
            if ty == "ADDOP":
                neg = t.value == "-"
            elif ty in _NUMBERS:
                coef = literals.read_number(t.value)
            else:
                k = 1.0 if coef is None else coef
                terms.append((-k if neg else k, t))
                neg, coef = False, None
        return _Sum(terms, c[0])

    def _side(self, toks):
        """('name', tok) | ('sum', _Sum) | ('number', float, first tok, number tok) | ('bool', b, tok)."""
        t = toks[0]
        if type(t) is _Sum:
            return ("sum", t)
        ty = t.type
        if ty in _NAMES:
            return ("name", t)
        if ty == "TRUE" or ty == "FALSE":
            return ("bool", ty == "TRUE", t)
        if ty == "ADDOP":
            return ("number", self._signed(t, toks[1]), t, toks[1])
        return ("number", literals.read_number(t.value), t, t)

    def comparison(self, c):
        n = len(c)
        if n == 6 and c[3] is None:  # the common `name op number`: straight through
            a, op, b = c[0], c[1], c[2]
            if type(a) is Tok and a.type == "NAME" and type(b) is Tok and b.type == "NUMBER":
                f = self.features.get(a.value)
                if f is not None and f.kind == "numeric":
                    self.lits.append((a.line, a.column, a.end_pos - a.start_pos))
                    return Compare(feature=a.value, op=op.value, value=float(b.value)), 0
        elif n == 5:  # `number < name <= number`
            lo, o1, a, o2, hi = c
            if type(a) is Tok and a.type == "NAME" and type(lo) is Tok and lo.type == "NUMBER" \
                    and type(hi) is Tok and hi.type == "NUMBER" and o1.value in _UP \
                    and o2.value in _UP:  # any side may be an oblique _Sum: check before .type
                f = self.features.get(a.value)
                if f is not None and f.kind == "numeric":
                    pos = (a.line, a.column, a.end_pos - a.start_pos)
                    self.lits.append(pos)
                    self.lits.append(pos)
                    return _Chain((Compare(feature=a.value, op=_FLIP[o1.value], value=float(lo.value)),
                                   Compare(feature=a.value, op=o2.value, value=float(hi.value))))
        sides, ops, cur = [], [], []
        for t in c:
            if t is None:
                continue
            if type(t) is not _Sum and t.type == "COMP":
                sides.append(cur)
                ops.append(t)
                cur = []
            else:
                cur.append(t)
        sides.append(cur)
        parts = [self._side(s) for s in sides]
        if len(parts) == 2:
            a, b = parts
            op = ops[0]
            if a[0] in ("name", "sum"):
                return self._make_literal(a, op, op.value, b), 0
            if b[0] in ("name", "sum"):
                return self._make_literal(b, op, _FLIP[op.value], a), 0
            self.err(op, "a comparison needs a feature on one side (like 'age > 30')")
            return TRUE, 0
        lo, mid, hi = parts
        o1, o2 = ops
        if mid[0] not in ("name", "sum") or lo[0] != "number" or hi[0] != "number":
            self.err(o1, "a chained comparison is 'number < feature <= number' (like '20 < age <= 40')")
            return TRUE, 0
        up = o1.value in ("<", "<=") and o2.value in ("<", "<=")
        down = o1.value in (">", ">=") and o2.value in (">", ">=")
        if not (up or down):
            self.err(o2, "both comparisons of a chain point the same way (like '20 < age <= 40' or "
                         "'40 >= age > 20')")
            return TRUE, 0
        return _Chain((self._make_literal(mid, o1, _FLIP[o1.value], lo), self._make_literal(mid, o2, o2.value, hi)))

    def _make_literal(self, subject, op_tok, op, value):
        """``subject op value`` with the subject a feature name or a linear sum."""
        if subject[0] == "sum":
            return self._linear(subject[1], op_tok, op, value)
        tok = subject[1]
        name, f = self._feature(tok)
        self.lits.append((tok.line, tok.column, tok.end_pos - tok.start_pos))
        kind = value[0]
        if f is None:
            return Compare(feature=name, op=op, value=0.0)
        if f.kind == "numeric":
            if kind == "number":
                v = value[1]
                if v != v:
                    self.err(value[3], "a comparison with nan is never true: compare with a number")
                return Compare(feature=name, op=op, value=v)
            if kind == "name" and self.text_of(value[1]) in self.features:
                a = literals.name(name, CONDITION_WORDS)
                b = literals.name(self.text_of(value[1]), CONDITION_WORDS)
                self.err(value[1], f"comparing two features needs an oblique test, like "
                                   f"'{a} - {b} {op} 0'")
            elif kind == "sum":
                self.err(value[1].tok, f"{_nm(name)} is numeric: compare it with a number (or write the "
                                       "whole oblique test on one side)")
            else:
                bad = value[1] if kind == "name" else value[2]
                self.err(bad, f"{_nm(name)} is numeric: compare it with a number, not '{bad.value}'")
            return Compare(feature=name, op=op, value=0.0)
        # nominal
        if op not in ("=", "!="):
            self.err(op_tok, f"{_nm(name)} is nominal: compare it with = or != or 'in {{...}}', not {op}")
            op = "="
        if kind == "name":
            v, vt = self.text_of(value[1]), value[1]
        elif kind == "bool":
            v, vt = value[1], value[2]
        elif kind == "number":
            v, vt = self.typed_literals([value[2], value[3]] if value[2] is not value[3] else [value[3]])[0]
        else:
            self.err(value[1].tok, f"{_nm(name)} is nominal: compare it with one of its values")
            return Compare(feature=name, op=op, value="")
        self._check_value(name, v, vt)
        return Compare(feature=name, op=op, value=v)

    def _linear(self, s: _Sum, op_tok, op, value):
        for _, tok in s.terms:
            name, f = self._feature(tok)
            if f is not None and f.kind != "numeric":
                self.err(tok, f"{_nm(name)} is nominal: an oblique test sums "
                              "numeric features")
        self.lits.append((s.tok.line, s.tok.column, s.tok.end_pos - s.tok.start_pos))
        if op not in _NUM_OPS:
            self.err(op_tok, f"an oblique test compares with <, <=, > or >=, not {op}")
            op = "<="
        if value[0] != "number":
            self.err(value[-1] if value[0] != "sum" else value[1].tok,
                     "an oblique test compares its sum with a number")
            v = 0.0
        else:
            v = value[1]
        terms = tuple((k, self.text_of(tok)) for k, tok in s.terms)
        return Linear(terms=terms, op=op, value=v)

    # --- conclusions ------------------------------------------------------------------------------
    def conclusion(self, c):
        t = c[0]
        if type(t) is _Dist or type(t) is _Val:
            return ("parts", None, None, t if type(t) is _Dist else None,
                    c[-1] if type(c[-1]) is _Val else None, ())
        if t.type == "NOTHING":
            return ("nothing", t)
        lit = self.typed_literals(c[:-2])
        return ("parts", lit[0], False, c[-2], c[-1], c[:-2])

    def explicit_label(self, c):
        lit = self.typed_literals(c[:-2])
        return ("parts", lit[0], True, c[-2], c[-1], c[:-2])

    def distribution(self, c):
        if type(c[0]) is not tuple:  # `[p1, p2, ...]` in class order
            d = _Dist(v for v, _ in self.numbers(c[1:]))
            d.tok = c[0]
            return d
        d = _Dist()
        d.tok = c[0][1]
        if self.classes is None or self.task == "regression":
            self.err(d.tok, "a distribution names classes only when the target line lists them "
                            "(write [p1, p2, ...] in class order)")
            return d
        got: dict = {}
        for label, tok, p in c:
            key = _typed_key(label)
            if key not in self.class_keys:
                if id(tok) not in self.bad:
                    self._not_a_class(label, tok)
            elif key in got:
                self.err(tok, f"class {_show(label)} is named twice in this distribution")
            else:
                got[key] = p
        absent = [k for k in self.classes if _typed_key(k) not in got]
        if absent:
            self.err(d.tok, "a distribution names every class: " + ", ".join(_show(k) for k in absent[:8])
                     + (" is" if len(absent) == 1 else " are") + " missing")
        d.extend(got.get(_typed_key(k), 0.0) for k in self.classes)
        return d

    def named_prob(self, c):
        toks = [t for t in c if t is not None]
        if type(toks[-1]) is _Fraction:
            (label, tok), = self.typed_literals(toks[:-1])
            return label, tok, toks[-1].value
        n = 2 if len(toks) >= 3 and toks[-2].type == "ADDOP" else 1
        (label, tok), = self.typed_literals(toks[:-n])
        return label, tok, self.numbers(toks[-n:])[0][0]

    def fraction(self, c):
        num, den = (t for t in c if t is not None and getattr(t, "type", None) == "NUMBER")
        a, b = literals.read_number(num.value), literals.read_number(den.value)
        if b == 0:
            self.err(den, "a fraction's denominator is 0")
            return _Fraction(math.nan)
        return _Fraction(a / b)

    def value_part(self, c):
        v, tok = self.numbers(c)[0]
        return _Val(v, tok)

    def literal_set(self, c):
        return self.typed_literals(c)

    def conclusion_of(self, raw) -> Conclusion:
        if raw[0] == "nothing":
            return Conclusion()
        _, lit, explicit, dist, val, toks = raw
        kw = {}
        if lit is not None:
            v, tok = lit
            if self.task == "regression" and not explicit:
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    self.err(tok, f"{_nm(self.target or 'target')} is a regression "
                                  f"target: conclude a number, not {_show(v)}")
                else:
                    kw["value"] = self.numbers(toks)[0][0]
                    if val is not None:
                        self.err(val.tok, "this conclusion gives two numbers")
            else:
                if self.class_keys is not None and self.task != "regression" \
                        and _typed_key(v) not in self.class_keys and id(tok) not in self.bad:
                    self._not_a_class(v, tok)
                kw["label"] = v
        if dist is not None:
            if self.classes is not None and self.task != "regression" and len(dist) != len(self.classes):
                self.err(dist.tok, f"a distribution lists one probability per class, in class order: "
                                   f"{len(self.classes)} here, not {len(dist)}")
            kw["distribution"] = tuple(dist)
        if val is not None and "value" not in kw:
            kw["value"] = val.value
        return Conclusion(**kw)

    def _not_a_class(self, v, tok) -> None:
        shown = ", ".join(_show(x) for x in self.classes[:8]) + (", ..." if len(self.classes) > 8 else "")
        as_text = [x for x in self.classes if str(x) == str(v) or (isinstance(x, str) and x == _show(v))]
        hint = f" (did you mean {_show(as_text[0])}?)" if as_text else ""
        self.err(tok, f"{_show(v)} is not a class of {_nm(self.target or 'target')} "
                      f"(classes: {shown}){hint}")

    # --- the end ----------------------------------------------------------------------------------
    def finish(self) -> RuleBase | None:
        if self.target is None and not self.warned_no_target and not self.syntax_errors:
            self.error_at(1, 1, "this rules file has no 'target' line (e.g. 'target species: classes "
                                "{a, b}' or 'target price: regression')")
        default = self.conclusion_of(self.default_raw[:]) if self.default_raw is not None else None
        if self.errors:
            return None
        kw = dict(task=self.task, target=self.target, features=tuple(self.feature_list),
                  rules=tuple(self.rules))
        for key in ("name", "classes", "semantics", "precision", "combiner"):
            v = getattr(self, key)
            if v is not None:
                kw[key] = v
        if default is not None:
            kw["default"] = default
        try:
            rb = RuleBase(**kw)
        except ValidationError as e:  # pragma: no cover - every part was checked on the way
            self.error_at(1, 1, f"not a valid rule base: {e.errors()[0]['msg']}")
            return None
        if self.missing_as:  # each test that gains `or x is missing` keeps its position for both
            for r, pos in zip(rb.rules, self.lit_pos):
                flags = missing.leaf_expansions(r.condition, self.missing_as, rb.precision)
                if any(flags) and len(flags) == len(pos):
                    pos[:] = [p for p, f in zip(pos, flags) for _ in range(1 + f)]
        return missing.expand(unseen.expand(rb, self.unseen_as), self.missing_as)
