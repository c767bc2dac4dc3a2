"""First-hit lint of what the rule order leaves to later rules and the default.

* ``reached-only-if``: once the earlier rules match every row whose values are all present and
  declared, each later rule and the default are reached only by rows with a missing value (or a
  nominal value outside its domain): told at each of them, naming the feature(s);
* ``repeats-default``: trailing rules that conclude the default's label (with no class shares of
  their own, or the default's) or value: without them their rows get the same answer from the
  default.

Regions are exact (:mod:`rulekit.rules.boxes`, three-valued logic); a base the box algebra cannot
follow (oblique sums, too many pieces) gets no ``reached-only-if`` finding, never a guessed one.
Nothing here recurses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulekit.dsl.lint_base import DEFAULT, Finding, always_true, coded, subtract
from rulekit.dsl.literals import typed
from rulekit.dsl.grammar import LABEL_WORDS
from rulekit.errors import RulekitError
from rulekit.rules import boxes
from rulekit.rules.constraints import NomSet
from rulekit.semantics import values

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

REACHED_ONLY = "reached-only-if"
REPEATS_DEFAULT = "repeats-default"
MAX_NAMED = 3  # features named in a reached-only-if message
MAX_PIECES = 500  # rows not yet matched, as boxes, before reached-only-if gives up (cost)


def reach_findings(rb: RuleBase, skip: set[int], name) -> list[Finding]:
    """Both checks for a first-hit base without a combiner; ``skip``: rules already reported (they
    never fire); ``name(i)`` names rule ``i``."""
    if rb.combiner is not None or rb.semantics != "first-hit" or not rb.rules:
        return []
    return _exceptional_reach(rb, skip, name) + _repeats_default(rb, skip)


def _exceptional_reach(rb: RuleBase, skip: set[int], name) -> list[Finding]:
    schema = boxes.LiteralSchema(rb)
    regions: list[boxes.Box] = [boxes.Box({})]
    turn = why = None  # the rule after which only exceptional rows are left, and what they have
    for k, r in enumerate(rb.rules):
        try:
            bs = boxes.condition_boxes(r.condition, schema)
        except (boxes.TooComplex, RulekitError, TypeError):
            return []
        for b in bs:
            if any(not isinstance(key, int) for key in b.items):
                return []  # an oblique sum: not followed
            regions = subtract(regions, b, schema, MAX_PIECES)
            if regions is None:
                return []
        if turn is None and regions and k < len(rb.rules) - 1:
            why = _why(regions, schema)
            turn = None if why is None else k
        if not regions:
            break
    if turn is None and regions and rb.default is not None:
        why = _why(regions, schema)
        turn = None if why is None else len(rb.rules) - 1
    if turn is None:
        return []
    out = _told_rules(rb, turn, why, skip, name, schema)
    if regions and rb.default is not None:  # empty: the default is never used, as after a tree's paths
        out.append(coded(DEFAULT, None, f"the default is used only for rows where {_why(regions, schema)}: "
                                        f"{_others(turn, name)}", REACHED_ONLY))
    return out


def _why(regions: list[boxes.Box], schema) -> str | None:
    """What every row of ``regions`` has (a missing or undeclared value), or None when some row of
    them has every value present and declared. One phrase per feature: a box where it is missing and
    one where it is missing or undeclared read 'is missing or holds a value outside its domain' once."""
    said: dict[str, list[bool]] = {}  # feature name -> [missing, outside], in the order first met
    for box in regions:
        reason = None
        for key, c in sorted(box.items.items(), key=lambda kc: kc[0]):
            if isinstance(c, NomSet):
                if any(code >= 0 for code in c.codes):
                    continue
                outside = bool(c.codes)
                reason = (schema.features[key].name, bool(c.missing) or not outside, outside)
            elif not c.intervals:
                reason = (schema.features[key].name, True, False)
            if reason is not None:
                break
        if reason is None:
            return None
        flags = said.setdefault(reason[0], [False, False])
        flags[0] |= reason[1]
        flags[1] |= reason[2]
    phrases = [f"{f!r} is missing or holds a value outside its domain" if m and o else
               f"{f!r} holds a value outside its domain" if o else f"{f!r} is missing"
               for f, (m, o) in said.items()]
    if len(phrases) > MAX_NAMED:
        phrases = phrases[:MAX_NAMED] + ["another value is missing or outside its domain"]
    return " or ".join(phrases)


def _others(k: int, name) -> str:
    return (f"{name(k)} matches" if k == 0 else f"{name(k)} and the rules before it match") + " every other row"


def _told_rules(rb: RuleBase, k: int, why: str, skip: set[int], name, schema) -> list[Finding]:
    return [coded(j, None, f"only rows where {why} reach this rule: {_others(k, name)}", REACHED_ONLY)
            for j in range(k + 1, len(rb.rules)) if j not in skip and not _written_for_them(rb, j, schema)]


def _written_for_them(rb: RuleBase, j: int, schema) -> bool:
    """Rule ``j`` itself only matches rows with a missing or undeclared value (``x is missing``)."""
    try:
        bs = boxes.condition_boxes(rb.rules[j].condition, schema)
    except (boxes.TooComplex, RulekitError, TypeError):
        return False
    return all(_why([b], schema) is not None for b in bs)


def _adds_nothing(rb: RuleBase, c, d) -> bool:
    """Conclusion ``c`` says no more than the default ``d``: the same label and no distribution of its
    own (or the default's), or the same value. A rule with its own class shares (a tree's leaf) is
    not told: without it its rows' probabilities would change."""
    if rb.task == "classification":
        return (c.label is not None and d.label is not None and values.same(c.label, d.label)
                and (c.distribution is None or c.distribution == d.distribution))
    return c.value is not None and d.value is not None and c.value == d.value


def _repeats_default(rb: RuleBase, skip: set[int]) -> list[Finding]:
    d = rb.default
    out: list[Finding] = []
    j = len(rb.rules) - 1
    while d is not None and j >= 0 and (j in skip or _adds_nothing(rb, rb.rules[j].conclusion, d)):
        c = rb.rules[j].conclusion
        if j not in skip and not always_true(rb, j):  # a catch-all rule: the default's own finding
            what = typed(c.label, LABEL_WORDS) if rb.task == "classification" else repr(c.value)
            later = "" if j == len(rb.rules) - 1 else " (as every rule after it)"
            proba = " (only their class probabilities change)" if d.distribution != c.distribution else ""
            out.append(coded(j, None, f"this rule concludes {what}, as the default does{later}: without it "
                                      f"the rows it matches get {what} from the default{proba}",
                             REPEATS_DEFAULT))
        j -= 1
    return out
