"""The rules parser's callbacks for what a rule concludes and how it scored: labels, values,
class distributions (in class order or by name, with fractions), weights and the ``with ...``
statistics; :meth:`ConclusionCallbacks.conclusion_of` checks a conclusion against the target.
"""

from __future__ import annotations

import math

from rulekit.dsl import literals, stat_words
from rulekit.dsl.build_state import BuildState, show_name, show_value, typed_key
from rulekit.rules.base import Conclusion


class _Dist(list):
    tok = None  # the '[' ... first number, for errors
    rows = None  # the one denominator its shares are written over (``{no: 10/215, yes: 205/215}``)


class _Fraction:
    """A probability written ``a/b`` (its float64 quotient; ``b`` kept as a formatting hint)."""

    __slots__ = ("value", "den")

    def __init__(self, value: float, den=None):
        self.value = value
        self.den = den


def written_over(named) -> int | None:
    """The denominator every nonzero share of a distribution is written over, when they all share
    one whole one (``{no: 0, yes: 205/215}`` -> 215); else None. ``fmt`` prints the shares over it
    again, so that counts written by ``rulekit rules`` are not reduced (``279/285``, not ``93/95``)."""
    dens = set()
    for _, _, p, den in named:
        if den is None:
            if p != 0.0:
                return None
            continue
        dens.add(den)
    if len(dens) != 1:
        return None
    den, = dens
    return int(den) if float(den).is_integer() and den > 0 else None


class _Val:
    __slots__ = ("value", "tok")

    def __init__(self, value, tok):
        self.value = value
        self.tok = tok


class ConclusionCallbacks(BuildState):
    """Grammar callbacks of conclusions, weights and statistics (mixed into ``RuleBaseBuilder``)."""

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
                self.err(tok, f"statistic {show_name(key)} is given twice")
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
        d.rows = written_over(c)
        for label, tok, p, _ in c:
            key = typed_key(label)
            if key not in self.class_keys:
                if id(tok) not in self.bad:
                    self._not_a_class(label, tok)
            elif key in got:
                self.err(tok, f"class {show_value(label)} is named twice in this distribution")
            else:
                got[key] = p
        absent = [k for k in self.classes if typed_key(k) not in got]
        if absent:
            self.err(d.tok, "a distribution names every class: " + ", ".join(show_value(k) for k in absent[:8])
                     + (" is" if len(absent) == 1 else " are") + " missing")
        d.extend(got.get(typed_key(k), 0.0) for k in self.classes)
        return d

    def named_prob(self, c):
        toks = [t for t in c if t is not None]
        if type(toks[-1]) is _Fraction:
            (label, tok), = self.typed_literals(toks[:-1])
            return label, tok, toks[-1].value, toks[-1].den
        n = 2 if len(toks) >= 3 and toks[-2].type == "ADDOP" else 1
        (label, tok), = self.typed_literals(toks[:-n])
        return label, tok, self.numbers(toks[-n:])[0][0], None

    def fraction(self, c):
        num, den = (t for t in c if t is not None and getattr(t, "type", None) == "NUMBER")
        a, b = literals.read_number(num.value), literals.read_number(den.value)
        if b == 0:
            self.err(den, "a fraction's denominator is 0")
            return _Fraction(math.nan)
        return _Fraction(a / b, b)

    def value_part(self, c):
        v, tok = self.numbers(c)[0]
        return _Val(v, tok)

    def literal_set(self, c):
        return self.typed_literals(c)

    @staticmethod
    def written_rows(raw) -> int | None:
        """The denominator a raw conclusion's shares are all written over (:func:`written_over`)."""
        return raw[3].rows if raw is not None and raw[0] == "parts" and type(raw[3]) is _Dist else None

    def conclusion_of(self, raw) -> Conclusion:
        if raw[0] == "nothing":
            return Conclusion()
        _, lit, explicit, dist, val, toks = raw
        kw = {}
        if lit is not None:
            v, tok = lit
            if self.task == "regression" and not explicit:
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    self.err(tok, f"{show_name(self.target or 'target')} is a regression "
                                  f"target: conclude a number, not {show_value(v)}")
                else:
                    kw["value"] = self.numbers(toks)[0][0]
                    if val is not None:
                        self.err(val.tok, "this conclusion gives two numbers")
            else:
                if self.class_keys is not None and self.task != "regression" \
                        and typed_key(v) not in self.class_keys and id(tok) not in self.bad:
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
        shown = ", ".join(show_value(x) for x in self.classes[:8]) + (", ..." if len(self.classes) > 8 else "")
        as_text = [x for x in self.classes if str(x) == str(v) or (isinstance(x, str) and x == show_value(v))]
        hint = f" (did you mean {show_value(as_text[0])}?)" if as_text else ""
        self.err(tok, f"{show_value(v)} is not a class of {show_name(self.target or 'target')} "
                      f"(classes: {shown}){hint}")
