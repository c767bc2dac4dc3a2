"""The rules parser's callbacks for conditions: ``and``/``or``/``not``, comparisons (chained,
flipped, against a nominal value), ``in {...}``, ``is missing`` and oblique sums. Each returns
``(node, depth)``, or a :class:`Chain` that splices into the enclosing ``and``; each test's position
is recorded for the linter.
"""

from __future__ import annotations

from rulekit.dsl import literals
from rulekit.dsl.build_state import NAME_TOKENS, BuildState, show_name
from rulekit.dsl.grammar import CONDITION_WORDS
from rulekit.dsl.lexer import Tok
from rulekit.rules.base import TRUE, And, Compare, InSet, IsMissing, Linear, Not, Or

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}
_NUM_OPS = frozenset({"<", "<=", ">", ">="})
_UP = frozenset({"<", "<="})
_NUMBERS = frozenset({"NUMBER", "INF", "NAN"})


class Chain(tuple):
    """``20 < age <= 40``: two comparisons that splice into an enclosing ``and``."""


class _Sum:
    __slots__ = ("terms", "tok")

    def __init__(self, terms, tok):
        self.terms = terms  # [(coefficient, feature name, token)]
        self.tok = tok



class ConditionCallbacks(BuildState):
    """Grammar callbacks of conditions (mixed into ``RuleBaseBuilder``)."""

    def _depth(self, items):
        d = 0
        for x in items:
            if type(x) is not Chain and x[1] > d:
                d = x[1]
        return d + 1

    def or_expr(self, c):
        items = tuple(And(items=tuple(x)) if type(x) is Chain else x[0] for x in c)
        return Or(items=items), self._depth(c)

    def and_expr(self, c):
        items = []
        for x in c:
            if type(x) is Chain:
                items.extend(x)
            else:
                items.append(x[0])
        return And(items=tuple(items)), self._depth(c)

    def _one(self, x):
        return (And(items=tuple(x)), 1) if type(x) is Chain else x

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
            self.err(tok, f"{show_name(name)} is numeric: 'in {{...}}' tests a nominal "
                          "feature (use < <= > >= for a number)")
        elif f is not None:
            for v, vt in values:
                self._check_value(name, v, vt)
        self.lits.append((tok.line, tok.column, tok.end_pos - tok.start_pos))
        # a float is never a nominal value (reported above); keep the node well-formed regardless
        vals = tuple(v for v, _ in values if not isinstance(v, float))
        return InSet(feature=name, values=vals, negated=c[1] is not None), 0

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
        if ty in NAME_TOKENS:
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
                    return Chain((Compare(feature=a.value, op=_FLIP[o1.value], value=float(lo.value)),
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
        return Chain((self._make_literal(mid, o1, _FLIP[o1.value], lo), self._make_literal(mid, o2, o2.value, hi)))

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
                self.err(value[1].tok, f"{show_name(name)} is numeric: compare it with a number (or write the "
                                       "whole oblique test on one side)")
            else:
                bad = value[1] if kind == "name" else value[2]
                self.err(bad, f"{show_name(name)} is numeric: compare it with a number, not '{bad.value}'")
            return Compare(feature=name, op=op, value=0.0)
        # nominal
        if op not in ("=", "!="):
            self.err(op_tok, f"{show_name(name)} is nominal: compare it with = or != or 'in {{...}}', not {op}")
            op = "="
        if kind == "name":
            v, vt = self.text_of(value[1]), value[1]
        elif kind == "bool":
            v, vt = value[1], value[2]
        elif kind == "number":
            v, vt = self.typed_literals([value[2], value[3]] if value[2] is not value[3] else [value[3]])[0]
        else:
            self.err(value[1].tok, f"{show_name(name)} is nominal: compare it with one of its values"
                                   + self._quote_hint(value[1]))
            return Compare(feature=name, op=op, value="")
        self._check_value(name, v, vt)
        return Compare(feature=name, op=op, value=v)

    def _quote_hint(self, s: _Sum) -> str:
        """For a value read as a sum of names (``Île-de-France`` is Île minus de minus France): the
        value in quotes, as the header writes it (audit 3: the message said only 'compare it with
        one of its values', and it was one)."""
        toks = [tok for _, tok in s.terms]
        if len(toks) < 2:
            return ""
        raw = self.text[toks[0].start_pos:toks[-1].end_pos]
        return f"; a value with '-' or spaces is written in quotes: {literals.quote(raw)}" \
            if "\n" not in raw else ""

    def _linear(self, s: _Sum, op_tok, op, value):
        for _, tok in s.terms:
            name, f = self._feature(tok)
            if f is not None and f.kind != "numeric":
                self.err(tok, f"{show_name(name)} is nominal: an oblique test sums "
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
