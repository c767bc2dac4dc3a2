"""Lint checks on rules' input regions, exact in the rule algebra of :mod:`rulekit.rules.boxes`.

* a rule that can never fire because its condition holds for no input at all (also when its tests
  contradict each other only across features, ``(a > 1 or b > 1) and a <= 1 and b <= 1``);
* first-hit (and each group of an ensemble): a rule whose region is covered by the *union* of the
  earlier rules' regions, with the earlier rules that together cover it as the witness;
* vote: two rules with different labels whose regions meet, with an example input where both fire.

Regions are exact (float32 rule bases are judged by what float32 comparisons do, missing values by
three-valued logic). A rule whose region cannot be computed (an oblique sum, too many pieces) and a
rule base that would cost more than :data:`BUDGET` box subtractions are left unchecked: a finding is
only given when it is certain. A bounding-interval prefilter (on the features the later rule tests)
keeps pairs of rules that cannot meet away from the exact algebra: plain Python up to
:data:`SMALL_BOXES` boxes, numpy beyond (loaded only then: ``rulekit check`` on a small file does not
pay for importing it); both give the same candidates in the same order.

Why one module of ~560 lines: the three checks share the region cache, the budget and the prefilter
of one lint pass; the plain-Python and numpy prefilters stay beside each other because a test holds
them to the same candidates in the same order (a split would put ``Regions`` in its own module first).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rulekit.dsl.lint_base import Finding, subtract
from rulekit.dsl.grammar import LABEL_WORDS
from rulekit.dsl.literals import typed
from rulekit.dsl.printer import condition
from rulekit.errors import RulekitError
from rulekit.rules import boxes
from rulekit.rules.conditions import And, Compare, IsMissing

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

MAX_RULES = 3000  # rules per group checked (larger groups: skipped, as the pairwise checks are)
MAX_PIECES = 64  # pieces of one rule's remaining region before its shadowing check gives up
BUDGET = 4000  # steps of the covering search per lint call (bounds the time on heavily overlapping bases)
MAX_WITNESSES = 5  # earlier rules named in a shadowing message
SMALL_BOXES = 256  # boxes up to which the prefilter runs in plain Python (as fast as numpy there; docs/house.md)

_ALL_BITS = (1 << 64) - 1  # a nominal bound that excludes no code (domains of 63 values or more)
_FREE = (-math.inf, math.inf, True, _ALL_BITS)  # the bounds of a feature a box does not test


class Regions:
    """Every rule's region as boxes (None: not computable) with the boxes' bounding intervals.

    Sets of boxes (``before``, ``cand``, ...) are indices into ``flat``: lists of ints, or numpy
    int64 arrays when :attr:`arrays` (more than :data:`SMALL_BOXES` boxes); the methods below are
    the only code that looks inside them."""

    def __init__(self, rb: RuleBase, sums: list | None = None):
        """``sums``: the rules' summaries from :mod:`rulekit.dsl.lint` when at hand; an exact one
        (not opaque) is already a box and is converted instead of deriving the condition's boxes."""
        self.rb = rb
        self.schema = boxes.LiteralSchema(rb)
        self.per_rule: list[list[boxes.Box] | None] = []
        owner: list[int] = []
        flat: list[boxes.Box] = []
        with boxes.no_gc():  # many small acyclic objects: the collector's passes would dominate
            per_rule = []
            for i, r in enumerate(rb.rules):
                s = sums[i] if sums is not None else None
                if s is not None and s.never:
                    per_rule.append([])
                elif s is not None and not s.opaque:
                    per_rule.append(self._summary_boxes(s))
                else:
                    per_rule.append(self._boxes(r.condition))
        first_box = [0]
        for i, bs in enumerate(per_rule):
            if bs is not None and any(not isinstance(k, int) for b in bs for k in b.items):
                bs = None  # an oblique sum: its key is not a feature, points cannot be built
            self.per_rule.append(bs)
            for b in bs or ():
                owner.append(i)
                flat.append(b)
            first_box.append(len(flat))
        self.owner = owner  # the rule of each box (boxes are in rule order)
        self.flat = flat
        self.first_box = first_box  # rule i's boxes: flat[first_box[i]:first_box[i + 1]]
        # per box and feature it tests: (lo, hi) of a numeric one, a code bit mask of a nominal one
        # of fewer than 63 values (bit code + 1), whether missing is in; ``strict``: bit k set when
        # the box excludes a missing value of feature k
        self.bounds: list[dict[int, tuple]] = []
        self.strict: list[int] = []
        for b in flat:
            bound: dict[int, tuple] = {}
            strict = 0
            for k, c in b.items.items():
                lo, hi, mask = -math.inf, math.inf, _ALL_BITS
                if not c.missing:
                    strict |= 1 << k
                if isinstance(c, boxes.NumSet):
                    lo, hi = (c.intervals[0][0].at, c.intervals[-1][1].at) if c.intervals else (math.inf, -math.inf)
                elif c.size < 63:
                    mask = sum(1 << (code + 1) for code in c.codes)
                bound[k] = (lo, hi, c.missing, mask)
            self.bounds.append(bound)
            self.strict.append(strict)
        self.arrays = len(flat) > SMALL_BOXES
        if self.arrays:
            self._columns(len(rb.features))

    def _columns(self, nf: int) -> None:
        """The bounds as numpy columns (a row per feature, a column per box) for big rule bases."""
        import numpy as np  # noqa: PLC0415 - only for big rule bases (start-up time), not a cycle

        self._np = np
        n = len(self.flat)
        self._owner = np.asarray(self.owner, dtype=np.int64)
        self.lo = np.full((nf, n), -math.inf)
        self.hi = np.full((nf, n), math.inf)
        self.miss = np.ones((nf, n), dtype=bool)
        self.mask = np.full((nf, n), ~np.uint64(0), dtype=np.uint64)
        self.words = nf // 64 + 1
        self.strict_words = np.zeros((self.words, n), dtype=np.uint64)
        for bi, bound in enumerate(self.bounds):
            for k, (lo, hi, miss, mask) in bound.items():
                self.lo[k, bi], self.hi[k, bi], self.miss[k, bi], self.mask[k, bi] = lo, hi, miss, np.uint64(mask)
                if not miss:
                    self.strict_words[k // 64, bi] |= np.uint64(1 << (k % 64))

    def _summary_boxes(self, s) -> list[boxes.Box]:
        """The box of an exact summary (per feature: numeric closed intervals of
        :mod:`rulekit.semantics.intervals`, read as they are, or a set of ``(type, value)`` domain
        values, and whether a missing value makes it TRUE)."""
        items: dict = {}
        for name, c in s.cons.items():
            k = self.schema.index[name]
            missing = c.missing == 2
            if c.numeric:
                con = boxes.NumSet(tuple((boxes.Bound(lo.at), boxes.Bound(hi.at)) for lo, hi in c.values), missing)
            else:
                codes = frozenset(-1 if v == ("unseen",) else self.schema.code(k, v[1]) for v in c.values)
                con = boxes.NomSet(codes, self.schema.size(k), missing)
            if con.is_empty:
                return []
            if not con.is_true:
                items[k] = con
        return [boxes.Box(items)]

    def _boxes(self, cond) -> list[boxes.Box] | None:
        try:
            return boxes.condition_boxes(cond, self.schema)
        except (boxes.TooComplex, RulekitError, TypeError):
            return None

    # --- sets of boxes ----------------------------------------------------------------------------

    def live_set(self):
        """A mark per box, none set (see :meth:`mark` and :meth:`marked_before`)."""
        return self._np.zeros(len(self.flat), dtype=bool) if self.arrays else [False] * len(self.flat)

    def mark(self, live, first: int, last: int) -> None:
        if self.arrays:
            live[first:last] = True
        else:
            live[first:last] = [True] * (last - first)

    def marked_before(self, live, first: int):
        """The marked boxes below ``first``."""
        if self.arrays:
            return self._np.flatnonzero(live[:first])
        return [i for i in range(first) if live[i]]

    def boxes_of(self, members: list[int]):
        """Every box of the rules ``members`` (ascending rules: ascending boxes)."""
        if self.arrays:
            np = self._np
            return np.concatenate([np.arange(self.first_box[i], self.first_box[i + 1]) for i in members]) \
                if members else np.zeros(0, dtype=np.int64)
        return [b for i in members for b in range(self.first_box[i], self.first_box[i + 1])]

    def owned_by(self, idx, rules: list[int]):
        """The boxes among ``idx`` whose rule is one of ``rules``."""
        if self.arrays:
            return idx[self._np.isin(self._owner[idx], rules)]
        keep = set(rules)
        return [b for b in idx if self.owner[b] in keep]

    def not_owned_by(self, idx, j: int):
        """The boxes among ``idx`` of rules other than ``j``."""
        if self.arrays:
            return idx[self._owner[idx] != j]
        return [b for b in idx if self.owner[b] != j]

    def as_list(self, idx) -> list[int]:
        return idx.tolist() if self.arrays else idx

    def meeting(self, j: int, before):
        """Boxes (indices into ``flat``) among ``before`` that may meet a box of rule ``j``."""
        if self.arrays:
            return self._meeting_arrays(j, before)
        mine = [self.bounds[bj] for bj in range(self.first_box[j], self.first_box[j + 1])]
        out = []
        for b in before:
            other = self.bounds[b]
            for bound in mine:
                for k, (lo, hi, miss, mask) in bound.items():
                    lo2, hi2, miss2, mask2 = other.get(k, _FREE)
                    if not ((max(lo2, lo) <= min(hi2, hi) and mask2 & mask) or (miss2 and miss)):
                        break
                else:
                    out.append(b)
                    break
        return out

    def _meeting_arrays(self, j: int, before):
        np = self._np
        out = np.zeros(len(before), dtype=bool)
        for bj in range(self.first_box[j], self.first_box[j + 1]):
            ok = np.ones(len(before), dtype=bool)
            for k in self.flat[bj].items:
                lo, hi, miss, mask = self.lo[k], self.hi[k], self.miss[k], self.mask[k]
                ok &= ((np.maximum(lo[before], lo[bj]) <= np.minimum(hi[before], hi[bj]))
                       & ((mask[before] & mask[bj]) != 0)) | (miss[before] & miss[bj])
            out |= ok
        return before[out]

    def holding(self, point: dict, cand):
        """Boxes among ``cand`` whose bounding intervals hold ``point`` (key -> value, code or None;
        features it leaves out are missing)."""
        given = 0
        for k, v in point.items():
            if v is not None:
                given |= 1 << k
        if self.arrays:
            return self._holding_arrays(point, given, cand)
        out = []
        for b in cand:
            if self.strict[b] & ~given:
                continue
            bound = self.bounds[b]
            for k, v in point.items():
                lo, hi, miss, mask = bound.get(k, _FREE)
                if v is None:
                    if not miss:
                        break
                elif self.schema.is_nominal(k):
                    if self.schema.size(k) < 63 and not mask & (1 << (v + 1)):
                        break
                elif not lo <= v <= hi:
                    break
            else:
                out.append(b)
        return out

    def _holding_arrays(self, point: dict, given: int, cand):
        np = self._np
        ok = np.ones(len(cand), dtype=bool)
        for w in range(self.words):
            ok &= (self.strict_words[w, cand] & np.uint64(~(given >> (64 * w)) & _ALL_BITS)) == 0
        cand = cand[ok]
        for k, v in point.items():
            if not len(cand):
                break
            if v is None:
                cand = cand[self.miss[k, cand]]
            elif self.schema.is_nominal(k):
                if self.schema.size(k) < 63:
                    cand = cand[(self.mask[k, cand] & np.uint64(1 << (v + 1))) != 0]
            else:
                cand = cand[(self.lo[k, cand] <= v) & (v <= self.hi[k, cand])]
        return cand


def region_findings(reg: Regions, members: list[int], ordered: bool, skip: set[int], name,
                    budget: list[int]) -> list[Finding]:
    """Findings for one group of rules (indices ``members``, in order; ``ordered``: first-hit); rules
    in ``skip`` are already reported. ``name(i)`` names rule ``i``; ``budget`` (box subtractions left,
    shared by the groups of one lint call) is spent in place."""
    if len(members) > MAX_RULES or not members:
        return []
    rb = reg.rb
    out: list[Finding] = []
    live = reg.live_set()  # boxes of earlier rules that can decide a row
    vote = not ordered and rb.semantics == "vote" and rb.task == "classification"
    if vote:
        out.extend(Finding(j, None, "this rule can never fire: no input satisfies its condition")
                   for j in members if reg.per_rule[j] == [] and j not in skip)
        out.extend(vote_findings(reg, members, skip, name, budget))
        return out
    for j in members:
        bs = reg.per_rule[j]
        first, last = reg.first_box[j], reg.first_box[j + 1]
        if bs is not None and not bs:
            if j not in skip:
                out.append(Finding(j, None, "this rule can never fire: no input satisfies its condition"))
            continue
        if bs is not None and j not in skip and budget[0] > 0 and ordered:
            earlier = reg.marked_before(live, first)
            if len(earlier) and not len(reg.holding(_point(bs[-1], reg.schema), earlier)):
                earlier = earlier[:0]  # a point of the rule no earlier rule's bounds hold: it fires there
            cand = reg.meeting(j, earlier) if len(earlier) else earlier
            if len(cand):
                cover = _covering(reg, j, cand, budget)
                if cover is not None:
                    out.append(Finding(j, None, _shadow_message(cover, name)))
                    continue
        reg.mark(live, first, last)
    return out


def _covering(reg: Regions, j: int, cand, budget: list[int]) -> list[int] | None:
    """Earlier rules whose regions together cover rule ``j``'s (a small set), or None."""
    used = _cover_with(reg, reg.per_rule[j], cand, budget)
    if used is None:
        return None
    for i in sorted(used, reverse=True):  # drop rules the others make unnecessary
        if len(used) == 1:
            break
        if _cover_with(reg, reg.per_rule[j], reg.owned_by(cand, [u for u in used if u != i]), budget) is not None:
            used.discard(i)
    return sorted(used)


def _cover_with(reg: Regions, region: list[boxes.Box], cand, budget: list[int]) -> set[int] | None:
    """Rules (owners of boxes ``cand``) that together cover ``region``, or None: not covered (a point
    of the region outside every candidate was found) or not known (too many pieces, budget spent).
    Each step takes a point of the remaining region and removes a candidate box holding it."""
    pieces = list(region)
    used: set[int] = set()
    while pieces:
        point = _point(pieces[-1], reg.schema)
        hit = None
        for b in reg.as_list(reg.holding(point, cand)):
            if _holds(reg.flat[b], point):
                hit = b
                break
        if hit is None:
            return None
        budget[0] -= 1 + len(pieces)
        if budget[0] <= 0:
            return None
        used.add(reg.owner[hit])
        pieces = subtract(pieces, reg.flat[hit], reg.schema, MAX_PIECES)
        if pieces is None:
            return None
    return used


def _point(box: boxes.Box, schema) -> dict:
    """key -> value (numeric), code (nominal) or None (missing) of a point inside ``box``."""
    out: dict = {}
    for k, c in box.items.items():
        if isinstance(c, boxes.NomSet):
            out[k] = min(c.codes) if c.codes else None
        elif c.intervals:
            lo, hi = c.intervals[0][0].at, c.intervals[0][1].at
            out[k] = lo if lo > -math.inf else hi if hi < math.inf else 0.0
        else:
            out[k] = None
    return out


def _holds(box: boxes.Box, point: dict) -> bool:
    for k, c in box.items.items():
        v = point.get(k)
        if v is None:
            if not c.missing:
                return False
        elif isinstance(c, boxes.NomSet):
            if v not in c.codes:
                return False
        elif not any(lo.at <= v <= hi.at for lo, hi in c.intervals):
            return False
    return True


def _shadow_message(cover: list[int], name) -> str:
    if len(cover) == 1:
        return f"this rule can never fire: {name(cover[0])} comes first and matches every row this one matches"
    names = [name(i) for i in cover[:MAX_WITNESSES]]
    more = f" and {len(cover) - MAX_WITNESSES} more" if len(cover) > MAX_WITNESSES else ""
    listed = ", ".join(names[:-1]) + " and " + names[-1] if not more else ", ".join(names) + more
    return (f"this rule can never fire: {listed} come first and together match every row this one "
            "matches")


# --- vote bases ------------------------------------------------------------------------------------


def vote_findings(reg: Regions, members: list[int], skip: set[int], name, budget: list[int]) -> list[Finding]:
    """Vote (classification) findings. Overlapping rules with different conclusions are what a vote
    is for, so an overlap alone is no finding; two are, each only where certain:

    * a rule that changes no predicted label anywhere it fires (with it and without it the vote, or
      the default where it fires alone, gives the same label) although it meets a rule of another
      conclusion: dead weight, named with a rule that outvotes it and an input where that happens
      (or, never outvoted, an input where rules of its own class win without it);
    * a tied vote (two classes share the top vote, exactly as the engine adds the weights): the
      answer there is only the class listed first; told at the last rule of the tie, with an input.

    Each rule's region is cut into cells by every rule meeting it (any order); a rule whose cells
    take more than :data:`MAX_CELLS` or the lint call's budget, and a group with a rule whose region
    is unknown (oblique), are left unchecked."""
    from_rules = [reg.per_rule[i] for i in members]
    if any(bs is None for bs in from_rules):
        return []
    # what each rule concludes, as numpy arrays: loaded for vote bases only (start-up time, not a cycle)
    from rulekit.rules.outcomes import outcomes  # noqa: PLC0415

    try:
        oc = outcomes(reg.rb)
    except RulekitError:
        return []  # a label outside the classes: reported by the conclusion checks
    cls, weight, K = oc.cls, oc.weight, len(oc.classes)
    default = int(oc.cls[-1]) if oc.has_default else -1
    boxes_of = reg.boxes_of(members)
    out: list[Finding] = []
    for j in members:
        if j in skip or not reg.per_rule[j] or budget[0] <= 0:
            continue
        others = reg.not_owned_by(boxes_of, j)
        cand = reg.meeting(j, others) if len(others) else others
        meet = sorted({reg.owner[b] for b in reg.as_list(cand)})
        if not any(cls[i] != cls[j] for i in meet):
            continue  # no other conclusion meets it: nothing a vote decides
        cells = _cells(reg, j, meet, budget)
        if cells is None:
            continue
        changes, lost, tie, shared = False, None, None, None
        for box, fired in cells:
            votes = _tally(fired, cls, weight, K)
            top = max(votes)
            win = votes.index(top)
            rest = [i for i in fired if i != j]
            without = _tally(rest, cls, weight, K).index(max(_tally(rest, cls, weight, K))) if rest else default
            changes = changes or win != without
            if win != cls[j] and lost is None:
                lost = (box, [i for i in rest if cls[i] == win])
            if shared is None and any(cls[i] != cls[j] for i in rest):
                shared = box
            tied = [c for c in range(K) if votes[c] == top]
            if tie is None and len(tied) > 1 and cls[j] in tied and j == max(i for i in fired if cls[i] in tied):
                tie = (box, tied, [i for i in rest if cls[i] in tied])
        if tie is not None:
            box, tied, with_ = tie
            names = " and ".join(_label(oc.classes[c]) for c in tied[:2]) + (" and more" if len(tied) > 2 else "")
            out.append(Finding(j, None, f"ties the vote{' with ' + name(with_[0]) if with_ else ''} where {example_text(box, reg.schema)}: "
                                        f"{names} get the same vote there, and the answer "
                                        f"({_label(oc.classes[tied[0]])}) is only the class listed first"))
        if not changes and shared is not None:
            why = (f"{name(lost[1][0])} outvotes it, e.g. where {example_text(lost[0], reg.schema)}" if lost
                   else f"rules of its class win without it, e.g. where {example_text(shared, reg.schema)}")
            out.append(Finding(j, None, f"this rule never changes a predicted label: the vote ends the same "
                                        f"without it wherever it fires ({why})"))
    return out


MAX_CELLS = 256  # cells of one rule's region (split by the rules meeting it) before it is left unchecked


def _cells(reg: Regions, j: int, meet: list[int], budget: list[int]) -> list | None:
    """Rule ``j``'s region cut by the regions of rules ``meet``: ``(box, rules firing there)`` pairs
    (boxes may overlap; the firing rules are the same at every point of a box), or None (too many)."""
    cells = [(b, (j,)) for b in reg.per_rule[j]]
    for i in meet:
        region = reg.per_rule[i]
        nxt = []
        for box, fired in cells:
            inside = [m for b in region if (m := box.meet(b)) is not None]
            if not inside:
                nxt.append((box, fired))
                continue
            with_i = tuple(sorted(fired + (i,)))
            nxt.extend((m, with_i) for m in inside)
            rest = [box]
            for b in region:
                rest = subtract(rest, b, reg.schema, MAX_CELLS)
                if rest is None:
                    return None
            nxt.extend((r, fired) for r in rest)
        budget[0] -= len(nxt)
        if len(nxt) > MAX_CELLS or budget[0] <= 0:
            return None
        cells = nxt
    return cells


def _tally(fired, cls, weight, K: int) -> list[float]:
    """Each class's vote where rules ``fired`` (ascending) fire, added as the engine adds them."""
    votes = [0.0] * K
    for i in fired:
        votes[cls[i]] += float(weight[i])
    return votes


def _label(v) -> str:
    return typed(v, LABEL_WORDS)


# --- example points ----------------------------------------------------------------------------------

def example_point(box: boxes.Box, schema: boxes.LiteralSchema) -> dict:
    """A point inside ``box``: feature name -> value (None: missing; features the box leaves free
    are omitted), in the rule base's feature order. Numbers are the box's own thresholds when they lie
    inside, else short ones that do."""
    out: dict = {}
    for k, c in sorted(box.items.items(), key=lambda kc: kc[0]):
        f = schema.features[k]
        if isinstance(c, boxes.NomSet):
            known = sorted(code for code in c.codes if code >= 0)
            if known:
                out[f.name] = (f.domain or ())[known[0]]
            elif c.codes:
                out[f.name] = outside_value(f.domain or ())
            else:
                out[f.name] = None
        elif c.intervals:
            lo, hi = c.intervals[0]
            out[f.name] = _number_in(lo, hi)
        else:
            out[f.name] = None
    return out


def outside_value(domain) -> str:
    """A text that is not a value of ``domain``."""
    v, n = "other", 1
    texts = {str(d) for d in domain}
    while v in texts:
        n += 1
        v = f"other{n}"
    return v


def example_text(box: boxes.Box, schema: boxes.LiteralSchema) -> str:
    point = example_point(box, schema)
    if not point:
        return "every input"
    lits = []
    for name, v in point.items():
        if v is None:
            lits.append(IsMissing(feature=name))
        else:
            lits.append(Compare(feature=name, op="=", value=v))
    return condition(lits[0] if len(lits) == 1 else And(items=tuple(lits)))


def _number_in(lo: boxes.Bound, hi: boxes.Bound) -> float:
    a, b = lo.at, hi.at
    cands = [getattr(x.lit, "value", None) for x in (hi, lo)]
    cands += [x for x in (b, a) if not math.isinf(x) and len(repr(x)) <= 8]  # short bounds read best
    if math.isinf(a) and math.isinf(b):
        cands.append(0.0)
    elif math.isinf(a):
        cands += [math.floor(b), b - 1, math.floor(b) - 1]
    elif math.isinf(b):
        cands += [math.ceil(a), a + 1, math.ceil(a) + 1]
    else:
        mid = a / 2 + b / 2
        cands += [round(mid, d) for d in range(18)]
    for v in cands:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            v = float(v)
            if a <= v <= b and not math.isinf(v):
                return v
    return a if not math.isinf(a) else b
