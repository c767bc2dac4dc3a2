"""Which rules were added, removed or changed between two rule bases.

Rules are matched by id first (between two rule bases: a model's rules are its paths, numbered, so
a model's side is matched by condition only), then (for rules left over) by an identical condition.
A matched pair is *changed* when its condition, conclusion, weight or group differs; statistics and
comments are not the rule's meaning and are ignored. A model's rules are its simplified tree paths.
"""

from __future__ import annotations

from pydantic import BaseModel

from rulekit.dsl.printer import condition as condition_text
from rulekit.dsl.printer import conclusion as conclusion_text
from rulekit.dsl.literals import number
from rulekit.rules.base import Rule, RuleBase
from rulekit.util import significant_digits

MAX_RULES = 20_000  # more rules than this on a side: rules are counted, not compared one by one
MAX_TEXTS = 200  # changes written out as text (all are counted; ~1 ms each)


class RuleChange(BaseModel):
    kind: str  # "added" | "removed" | "changed"
    id: str | None = None
    before: str | None = None  # the rule as text ("if ... then ...")
    after: str | None = None
    fields: list[str] = []  # what changed: condition, conclusion, weight, group


def rule_text(r: Rule, task: str, classes: tuple | None = None) -> str:
    """A rule as text, its class shares named by class and written exactly and short: over their
    least common denominator (``{neg: 13/257, pos: 244/257}``) where that is the float, else in full."""
    text = f"if {condition_text(r.condition)} then {shown_conclusion(r.conclusion, task, classes)}"
    if r.weight is not None:
        text += f" weight {number(r.weight)}"
    return text


SHORT_DIGITS = 6  # a share with more significant digits is written as a fraction (exactly)


def shown_conclusion(c, task: str, classes: tuple | None) -> str:
    """Shares as people write them: short decimals where every share has at most 6 significant
    digits (``{a: 0.3333, b: 0.6667}``, ``0.33333``; not ``3333/10000``), else over their least
    common denominator (``13/257``), else every digit."""
    long = c.distribution is not None and any(significant_digits(p) > SHORT_DIGITS for p in c.distribution)
    return conclusion_text(c, task, classes, fractions=long)


def _fields(x: Rule, y: Rule) -> list[str]:
    return [f for f in ("condition", "conclusion", "weight", "group") if getattr(x, f) != getattr(y, f)]


def rule_changes(a: RuleBase, b: RuleBase, limit: int = MAX_TEXTS, *,
                 by_id: bool = True) -> tuple[list[RuleChange], dict[str, int]]:
    """Added, removed and changed rules, in A's order then B's: the first ``limit`` as text (printing
    is most of the cost: two forests' 14,000 rules each took 10 s), and the count of each kind.
    ``by_id=False``: pair by condition only (a model's path ids are numbers, not a rule's identity)."""
    out: list[RuleChange] = []
    counts = {"added": 0, "removed": 0, "changed": 0}

    def add(kind: str, make) -> None:
        counts[kind] += 1
        if len(out) < limit:
            out.append(make())

    ids = {r.id: j for j, r in enumerate(b.rules) if r.id is not None} if by_id else {}
    matched_b: set[int] = set()
    pairs: dict[int, int] = {}
    for i, r in enumerate(a.rules):
        j = ids.get(r.id) if r.id is not None else None
        if j is not None and j not in matched_b:
            pairs[i] = j
            matched_b.add(j)
    by_cond: dict = {}
    for j, r in enumerate(b.rules):
        if j not in matched_b:
            by_cond.setdefault(r.condition, []).append(j)
    for i, r in enumerate(a.rules):
        if i in pairs:
            continue
        js = by_cond.get(r.condition)
        if js:
            j = js.pop(0)
            pairs[i] = j
            matched_b.add(j)
    for i, r in enumerate(a.rules):
        j = pairs.get(i)
        if j is None:
            add("removed", lambda r=r: RuleChange(kind="removed", id=r.id, before=rule_text(r, a.task, a.classes)))
            continue
        s = b.rules[j]
        fields = _fields(r, s)
        if fields:
            add("changed", lambda r=r, s=s, fields=fields: RuleChange(
                kind="changed", id=s.id if s.id is not None else r.id, before=rule_text(r, a.task, a.classes),
                after=rule_text(s, b.task, b.classes), fields=fields))
    for j, s in enumerate(b.rules):
        if j not in matched_b:
            add("added", lambda s=s: RuleChange(kind="added", id=s.id, after=rule_text(s, b.task, b.classes)))
    return out, counts


def default_change(a: RuleBase, b: RuleBase) -> RuleChange | None:
    if a.default == b.default:
        return None
    show = lambda rb: "nothing" if rb.default is None else shown_conclusion(rb.default, rb.task, rb.classes)  # noqa: E731
    return RuleChange(kind="changed", id="default", before=show(a), after=show(b), fields=["default"])
