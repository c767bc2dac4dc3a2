"""Print a RuleBase as canonical DSL text (``dumps``).

By default the text is the readable form (:mod:`rulekit.dsl.readable`: thresholds as the shortest
decimal that is the same test, statistics to 4 significant digits), so
``loads(dumps(rb)) == readable(rb)``, which fires on exactly the same rows; with ``exact=True``
``loads(dumps(rb, exact=True)) == rb`` for every rule base.

Layout: header comments, the header (rulebase, target, features, semantics, precision, combiner,
default), a blank line, the rules (a ``group N`` line where the group changes), footer comments.
A rule is one line; when longer than :data:`WIDTH`, its conclusion goes on a second line, and when
the condition alone is still too long, each top-level ``and``/``or`` item gets a line of its own.
Comments: a rule's ``comments`` stand on the lines above it (above its ``group`` line if it opens a
group), its ``trailing_comment`` ends its last line. Nothing here recurses: conditions are printed
with an explicit stack.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from rulekit.dsl import missing, unseen
from rulekit.dsl.grammar import CONDITION_WORDS, LABEL_WORDS, MAX_DEPTH, NO_WORDS, VALUE_WORDS, all_words
from rulekit.dsl.literals import name, number, rule_id, typed
from rulekit.dsl.stat_words import stats_text
from rulekit.errors import ExportError
from rulekit.rules.conditions import And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or, Rule
from rulekit.util import significant_digits

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

WIDTH = 100
MAX_DENOMINATOR = 1_000_000  # shares of fewer rows than this print as fractions (exact in float64)
INDENT = "    "
_FLIP = {">": "<", ">=": "<="}


def dumps(rb: RuleBase, *, exact: bool = False, expand_missing: bool = False,
          share_rows: tuple | None = None) -> str:
    """The canonical text of ``rb`` (ends with a newline); readable unless ``exact``; missing-value
    routing (:mod:`rulekit.dsl.missing`) and unseen-value routing (:mod:`rulekit.dsl.unseen`)
    declared once per feature where they can be, unless ``expand_missing``. ``share_rows``: per
    rule, then the default, the rows its class shares were counted on (or None): the readable
    form writes the shares over that count (``{no: 10/215, yes: 205/215}``) where it is exact."""
    if not exact:
        # numpy (through readable) loads on the first dumps, not with the linter (which only
        # prints conditions): start-up time of 'rulekit check', not a cycle
        from rulekit.dsl.readable import readable  # noqa: PLC0415

        rb = readable(rb)
    declared: dict = {}
    as_seen: dict = {}
    if not expand_missing:
        rb, declared = missing.collapse(rb)
        rb, as_seen = unseen.collapse(rb)
    out: list[str] = []
    for c in rb.comments:
        out.extend(_comment_lines(c))
    fractions = not exact and needs_fractions(rb)
    rows = share_rows if fractions and share_rows is not None and len(share_rows) == len(rb.rules) + 1 \
        else (None,) * (len(rb.rules) + 1)
    out.extend(header_lines(rb, declared, fractions=fractions, unseen_as=as_seen, rows=rows[-1]))
    group = 0
    blank_pending = True
    for r, n in zip(rb.rules, rows):
        opens = r.group != group
        if (opens or r.comments) and not blank_pending:
            out.append("")
        if blank_pending:
            out.append("")
            blank_pending = False
        for c in r.comments:
            out.extend(_comment_lines(c))
        if opens:
            out.append(f"group {r.group}")
            group = r.group
        out.extend(rule_lines(r, rb.task, rb.classes, fractions=fractions, rows=n))
    if rb.footer_comments:
        out.append("")
        for c in rb.footer_comments:
            out.extend(_comment_lines(c))
    return "\n".join(out) + "\n"


def header_lines(rb: RuleBase, declared: dict | None = None, *, fractions: bool = False,
                 unseen_as: dict | None = None, rows: int | None = None) -> list[str]:
    lines = [f"rulebase {name(rb.name, NO_WORDS)}"]
    target = f"target {name(rb.target, NO_WORDS)}:"
    classes = None if rb.classes is None else "{" + ", ".join(typed(c, VALUE_WORDS) for c in rb.classes) + "}"
    if rb.task == "classification":
        lines.append(f"{target} classes {classes}" if classes is not None else f"{target} classification")
    else:
        lines.append(f"{target} regression" + (f" classes {classes}" if classes is not None else ""))
    for f in rb.features:
        if f.kind == "nominal":
            dom = ", ".join(typed(v, VALUE_WORDS) for v in f.domain or ())
            match = f" match {f.match}" if f.match is not None else ""
            lines.append(f"feature {name(f.name, NO_WORDS)}: nominal {{{dom}}}{match}")
        else:
            lines.append(f"feature {name(f.name, NO_WORDS)}: numeric")
    for f in rb.features:
        if declared and f.name in declared:
            v = declared[f.name]
            shown = number(v) if f.kind == "numeric" else typed(v, VALUE_WORDS)
            lines.append(f"missing {name(f.name, NO_WORDS)} counts as {shown}")
    for f in rb.features:
        if unseen_as and f.name in unseen_as:
            lines.append(f"unseen {name(f.name, NO_WORDS)} counts as {typed(unseen_as[f.name], VALUE_WORDS)}")
    lines.append(f"semantics {rb.semantics}")
    lines.append(f"precision {rb.precision}")
    if rb.combiner is not None:
        c = rb.combiner
        text = f"combiner {c.kind}"
        if c.link != "identity":
            text += f" link {c.link}"
        if c.base_score:
            text += " base_score [" + ", ".join(number(v) for v in c.base_score) + "]"
        if c.tree_output is not None:
            text += " tree_output [" + ", ".join(str(v) for v in c.tree_output) + "]"
        if c.decision is not None:
            text += " decision raw " + c.decision[3:-1] + " 0"
        if c.arithmetic is not None:
            text += " arithmetic " + c.arithmetic
        lines.append(text)
    if rb.default is not None:
        lines.append("default " + conclusion(rb.default, rb.task, rb.classes, fractions=fractions, rows=rows))
    return lines


def conclusion(c: Conclusion, task: str, classes: tuple | None = None, *, fractions: bool = False,
               rows: int | None = None) -> str:
    """A conclusion as text; with ``classes`` (a classification base's) its distribution names them:
    ``yes {no: 0.125, yes: 0.875}`` (probabilities exact: they are what exports emit); with
    ``fractions`` in the readable form of :func:`shares` (over ``rows`` where exact)."""
    parts = []
    if c.label is not None:
        parts.append("label " + typed(c.label, VALUE_WORDS) if task == "regression"
                     else typed(c.label, LABEL_WORDS))
    if c.distribution is not None:
        if task == "classification" and classes and len(classes) == len(c.distribution):
            shown = shares(c.distribution, rows) if fractions else [number(p) for p in c.distribution]
            parts.append("{" + ", ".join(f"{typed(k, VALUE_WORDS)}: {v}"
                                         for k, v in zip(classes, shown)) + "}")
        else:
            parts.append("[" + ", ".join(number(p) for p in c.distribution) + "]")
    if c.value is not None:
        bare = task == "regression" and not parts
        parts.append(number(c.value) if bare else "value " + number(c.value))
    return " ".join(parts) if parts else "nothing"


def needs_fractions(rb: RuleBase) -> bool:
    """Whether some class share of ``rb`` has more than 4 significant digits: then the readable
    form writes every distribution of the file with :func:`shares` (one form per file, not
    ``0.08`` on one line and ``53/54`` on the next); else as short decimals (``{no: 0.4, yes: 0.6}``,
    as people write them)."""
    if rb.task != "classification" or not rb.classes:
        return False
    concl = [r.conclusion for r in rb.rules] + ([rb.default] if rb.default is not None else [])
    for c in concl:
        if c.distribution is not None and len(c.distribution) == len(rb.classes):
            if any(significant_digits(p) > 4 for p in c.distribution):
                return True
    return False


def shares(ps, rows: int | None = None) -> list[str]:
    """A distribution as written in a readable file that needs fractions: every share over the
    least common denominator of the line (``{no: 2/43, yes: 41/43}``, never ``23/1125`` next to
    ``358/375``) when each is exactly that float64 quotient and the denominator is below
    :data:`MAX_DENOMINATOR` (shares learned as class counts over rows are); over ``rows`` instead,
    unreduced, when every share is a whole count of them (``10/215``: the counts themselves); 0 and
    1 as they are; otherwise every digit of every share."""
    ps = list(ps)
    if rows and rows < MAX_DENOMINATOR and all(0.0 <= p <= 1.0 for p in ps):
        counts = [round(p * rows) for p in ps]
        if sum(counts) == rows and all(k / rows == p for k, p in zip(counts, ps)) and \
                not all(p in (0.0, 1.0) for p in ps):
            return ["0" if k == 0 else f"{k}/{rows}" for k in counts]
    if all(p in (0.0, 1.0) for p in ps):
        return [number(p) for p in ps]
    whole = 1
    for p in ps:
        if not (0.0 <= p <= 1.0):
            return [number(p) for p in ps]
        f = Fraction(p).limit_denominator(MAX_DENOMINATOR - 1)
        if f.numerator / f.denominator != p:
            return [number(p) for p in ps]
        whole = math.lcm(whole, f.denominator)
        if whole >= MAX_DENOMINATOR:
            return [number(p) for p in ps]
    return ["0" if p == 0.0 else f"{round(p * whole)}/{whole}" for p in ps]


def rule_lines(r: Rule, task: str, classes: tuple | None = None, *, fractions: bool = False,
               rows: int | None = None) -> list[str]:
    prefix = (rule_id(r.id, all_words()) + ": " if r.id is not None else "") + "if "
    items, joiner = top_items(r.condition, r.id)
    tail = " then " + conclusion(r.conclusion, task, classes, fractions=fractions, rows=rows)
    if r.weight is not None:
        tail += " weight " + number(r.weight)
    if r.stats:
        tail += " " + stats_text(r.stats)
    head = prefix + (" " + joiner + " ").join(items)
    if len(head) + len(tail) <= WIDTH:
        lines = [head + tail]
    elif len(head) <= WIDTH or len(items) == 1:
        lines = [head, INDENT + tail[1:]]
    else:
        lines = [prefix + items[0]]
        lines.extend(f"{INDENT}{joiner} {it}" for it in items[1:])
        lines.append(INDENT + tail[1:])
    if r.trailing_comment is not None:
        lines[-1] += "  #" + (" " + r.trailing_comment if r.trailing_comment else "")
    return lines


def _comment_lines(text: str) -> list[str]:
    return ["#" + (" " + ln if ln else "") for ln in text.split("\n")]


# --- conditions -----------------------------------------------------------------------------------

def condition(node) -> str:
    """A condition as text (top level: no parentheses around it)."""
    items, joiner = top_items(node, None)
    return (" " + joiner + " ").join(items)


def top_items(node, rid) -> tuple[list[str], str]:
    """The top-level ``and``/``or`` items of a condition as text, and the word joining them."""
    if type(node) in (And, Or) and len(node.items) >= 2:
        joiner = "and" if type(node) is And else "or"
        pieces = _operands(node)
        return [_render(p, 2, rid, joiner) for p in pieces], joiner
    return [_render(node, 1, rid, None)], "and"


def _operands(node):
    """The items of an And/Or, with adjacent lower/upper bounds of an And as chain tuples."""
    items = node.items
    if type(node) is Or:
        return list(items)
    out, i = [], 0
    while i < len(items):
        a = items[i]
        if i + 1 < len(items) and _chains(a, items[i + 1]):
            out.append((a, items[i + 1]))
            i += 2
        else:
            out.append(a)
            i += 1
    return out


def _chains(a, b) -> bool:
    return (type(a) is Compare and type(b) is Compare and a.feature == b.feature
            and a.op in (">", ">=") and b.op in ("<", "<=")
            and type(a.value) is float and type(b.value) is float)


def _render(root, depth0: int, rid, parent) -> str:
    """Text of ``root`` as an operand of an ``and``/``or`` (``parent``) or alone (None), without
    recursion. Composite operands get parentheses, except a lower/upper bound pair in an ``or``
    (``a < x <= b or x is missing``: the parser reads a chain there as its own group).

    ``root`` may be a chain tuple. ``depth0`` is the nesting level ``root`` sits at.
    """
    out: list[str] = []
    stack: list = [(root, depth0, parent)]
    while stack:
        item = stack.pop()
        if type(item) is str:
            out.append(item)
            continue
        node, depth, as_operand = item
        t = type(node)
        if t is tuple:  # a chain
            a, b = node
            out.append(f"{number(a.value)} {_FLIP[a.op]} {name(a.feature, CONDITION_WORDS)} {b.op} "
                       f"{number(b.value)}")
            continue
        if t in (Compare, InSet, IsMissing, Linear):
            out.append(_literal(node))
            continue
        if depth > MAX_DEPTH:
            where = f"rule {rid!r}" if rid is not None else "a rule"
            raise ExportError(f"{where}: its condition nests more than {MAX_DEPTH} groups deep, more "
                              "than the rule DSL allows")
        if t is Not:
            stack.append(")")
            stack.append((node.item, depth + 1, None))
            out.append("not (")
            continue
        if t is And or t is Or:
            n = len(node.items)
            if n == 0:
                out.append("true" if t is And else "false")
                continue
            word = "and" if t is And else "or"
            if n == 1:
                stack.append(")")
                stack.append((node.items[0], depth + 1, None))
                out.append(word + "(")
                continue
            pieces = _operands(node)
            parens = as_operand is not None and not (as_operand == "or" and len(pieces) == 1)
            if parens:
                stack.append(")")
            for k in range(len(pieces) - 1, -1, -1):
                stack.append((pieces[k], depth + 1, word))
                if k:
                    stack.append(f" {word} ")
            if parens:
                out.append("(")
            continue
        raise ExportError(f"not a condition: {type(node).__name__}")  # pragma: no cover
    return "".join(out)


def _literal(node) -> str:
    t = type(node)
    if t is Compare:
        v = node.value
        vt = number(v) if type(v) is float else typed(v, VALUE_WORDS)
        return f"{name(node.feature, CONDITION_WORDS)} {node.op} {vt}"
    if t is InSet:
        vals = ", ".join(typed(v, VALUE_WORDS) for v in node.values)
        return f"{name(node.feature, CONDITION_WORDS)} {'not in' if node.negated else 'in'} {{{vals}}}"
    if t is IsMissing:
        return f"{name(node.feature, CONDITION_WORDS)} is {'not missing' if node.negated else 'missing'}"
    terms = []
    for i, (k, f) in enumerate(node.terms):
        fn = name(f, CONDITION_WORDS)
        if i == 0:
            terms.append(f"{number(k)}*{fn}")
        elif k != k:
            terms.append(f"+ nan*{fn}")
        elif math.copysign(1.0, k) < 0:
            terms.append(f"- {number(-k)}*{fn}")
        else:
            terms.append(f"+ {number(k)}*{fn}")
    return f"{' '.join(terms)} {node.op} {number(node.value)}"
