"""Notes on tests that say less than they seem to: a test true for every value a feature can hold
(it only excludes a missing value, or a value outside a nominal domain), and nominal sets naming
all but one declared value (the one-value form is shorter). Notes, not warnings: rulekit's own
translations of trees write such tests where the model routes missing or undeclared values apart.

Judged on the summaries of :mod:`rulekit.dsl.lint` (per-feature value sets, three-valued logic):
numeric tests over the reals (infinities included) plus missing, nominal tests over the declared
domain plus "a value outside the domain" plus missing. Each message says exactly which inputs the
test fails for. Nothing here recurses.
"""

from __future__ import annotations

from rulekit.dsl.lint_base import Finding, coded
from rulekit.dsl.grammar import VALUE_WORDS
from rulekit.dsl.literals import typed
from rulekit.dsl.printer import condition
from rulekit.rules.conditions import And, Compare, InSet, IsMissing, atoms
from rulekit.semantics import intervals, values

WHOLE_DOMAIN = "whole-domain"
TRUE_UNLESS_MISSING = "true-unless-missing"
ALL_BUT_ONE = "all-but-one"
NOTE = "note"  # legal, and what a model's routing of missing or undeclared values often needs
MIN_DOMAIN = 4  # a set of two of three values reads as well as x != v
_T = 2  # Cons.missing: a missing value makes the test true


def _q(name: str) -> str:
    return repr(name)


def _declared(schema, name: str) -> frozenset:
    return frozenset(values.key(v) for v in schema.kinds[name].domain or ())


def _holds_when_present(schema, name: str, c) -> tuple[bool, bool] | None:
    """(fails when missing, fails outside the domain) for a constraint true on every declared or
    real value of ``name``; None when some such value fails it."""
    if c.numeric:
        return (c.missing != _T, False) if intervals.contains(c.values, intervals.ALL) else None
    declared = _declared(schema, name)
    if not declared <= c.values:
        return None
    return c.missing != _T, not (c.values - declared)


def _fails_text(name: str, missing: bool, outside: bool) -> str:
    if missing and outside:
        return f"it fails only when {_q(name)} is missing or holds a value outside its domain"
    if missing:
        return f"it fails only when {_q(name)} is missing"
    return f"it fails only for a value of {_q(name)} outside its domain"


def present_findings(schema, i: int, cond, table, first_leaf: list[int], done: set[int]) -> list[Finding]:
    """Top-level tests of rule ``i`` (the items of an ``and``, else the condition) that hold for every
    present value of their feature; ``done``: leaf indices already reported."""
    items = cond.items if type(cond) is And else (cond,)
    out: list[Finding] = []
    for k, item in enumerate(items):
        s = table[id(item)]
        if s.never or s.opaque or len(s.cons) != 1 or first_leaf[k] in done or type(item) is IsMissing:
            continue
        (name, c), = s.cons.items()
        how = _holds_when_present(schema, name, c)
        if how is None or how == (False, False):
            continue  # not true everywhere, or true everywhere (told by the existing checks)
        missing, outside = how
        if outside:
            msg = (f"this test names every declared value of {_q(name)}: {_fails_text(name, missing, True)}"
                   f" (drop it if those rows should match too)")
            out.append(coded(i, first_leaf[k], msg, WHOLE_DOMAIN, NOTE))
        elif missing:
            msg = (f"this test holds for every value of {_q(name)}: {_fails_text(name, True, False)}, "
                   f"so it says {condition(_not_missing(name))!r}")
            out.append(coded(i, first_leaf[k], msg, TRUE_UNLESS_MISSING, NOTE))
        else:
            msg = f"this test holds for every declared value of {_q(name)} and a missing one: " \
                  f"{_fails_text(name, False, True)}"
            out.append(coded(i, first_leaf[k], msg, WHOLE_DOMAIN, NOTE))
    return out


def _not_missing(name: str) -> IsMissing:
    return IsMissing(feature=name, negated=True)


def set_findings(schema, i: int, cond, done: set[int]) -> list[Finding]:
    """``in`` sets in rule ``i`` naming all declared values but one (``x != v`` is shorter); ``done``:
    leaf indices already reported. ``not in`` sets are how a tree routes undeclared values (an ID3
    "other" branch, a split sending them with one value): not told."""
    out: list[Finding] = []
    for k, node in enumerate(atoms(cond, reading_order=True)):
        t = type(node)
        f = schema.kinds.get(getattr(node, "feature", None))
        if t is not InSet or k in done or f is None or f.kind != "nominal" or len(f.domain or ()) < MIN_DOMAIN:
            continue
        declared = _declared(schema, f.name)
        named = frozenset(schema.key(f.name, v) for v in node.values) & declared
        left = [v for v in f.domain if values.key(v) not in named]
        if len(left) == 1 and not node.negated:
            short = condition(Compare(feature=f.name, op="!=", value=left[0]))
            msg = (f"this set names every declared value of {_q(f.name)} but {typed(left[0], VALUE_WORDS)}: "
                   f"{short!r} is shorter and the same for every declared value (it also matches a "
                   "value outside the domain, which this set does not)")
            out.append(coded(i, k, msg, ALL_BUT_ONE, NOTE))
    return out
