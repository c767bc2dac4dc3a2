"""Warnings about rules that are legal but probably not what their author meant, and errors about
conclusions every export would emit wrong (the whole-base checks are in :mod:`rulekit.dsl.lint_base`).

* a rule that can never fire: its tests contradict each other, or (first-hit, and within each group
  of an ensemble) an earlier rule matches every row it matches (the general case, several earlier
  rules that together cover it, and vote sets' overlaps with an example input are in
  :mod:`rulekit.dsl.lint_regions`);
* duplicate rules;
* a test implied by the rule's other tests (``x > 3 and x > 5``), or always true; an alternative
  of a rule's top-level ``or`` that another alternative covers (a note);
* notes on tests true for every present value and sets of all values but one
  (:mod:`rulekit.dsl.lint_sets`); rules and a default only rows with a missing or undeclared value
  reach, and trailing rules that repeat the default (:mod:`rulekit.dsl.lint_reach`).

Reasoning is per feature, in the rule base's own comparison semantics: every numeric test becomes
its float64 intervals of :mod:`rulekit.semantics.intervals` (so float32 rule bases are judged by
what float32 comparisons do), nominal tests become sets of domain values (plus
"a value outside the domain"), and missing values follow three-valued logic (a test on a missing
value is undecided; ``not`` keeps it undecided; only ``is missing`` matches it). Tests this cannot
represent (oblique sums, ``or`` across features) are skipped, never guessed: a warning is only given
when it is certain. Nothing here recurses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rulekit.dsl import lint_regions
from rulekit.dsl.lint_base import DEFAULT, WHOLE_BASE_CODES, Finding, base_findings, coded  # noqa: F401 (incremental)
from rulekit.dsl.lint_reach import reach_findings
from rulekit.dsl.lint_sets import NOTE, present_findings, set_findings
from rulekit.dsl.printer import condition
from rulekit.rules.conditions import And, Compare, InSet, IsMissing, Linear, Not, Or, atoms
from rulekit.semantics import intervals, values

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

MAX_PAIRWISE = 3000  # rules per group compared pairwise (quadratic); larger sets skip those checks
MAX_FINDINGS = 500
REDUNDANT_ALTERNATIVE = "redundant-alternative"
MAX_ALTERNATIVES = 300  # top-level alternatives of one rule compared pairwise (quadratic); more: skipped

F, U, T = 0, 1, 2  # a test on a missing value: false, undecided, true
_UNSEEN = ("unseen",)  # a nominal value outside the domain


# --- value sets: numeric = closed intervals of rulekit.semantics.intervals, nominal = value keys ----

_NUM_ALL = intervals.ALL


class Cons(NamedTuple):
    """What a feature's value must be: ``values`` (numeric intervals or a frozenset) and missing."""

    numeric: bool
    values: object
    missing: int

    def empty(self) -> bool:
        return not self.values and self.missing != T


def _inter(a: Cons, b: Cons) -> Cons:
    v = intervals.intersect(a.values, b.values) if a.numeric else a.values & b.values
    return Cons(a.numeric, v, min(a.missing, b.missing))


def _union(a: Cons, b: Cons) -> Cons:
    v = intervals.union(a.values, b.values) if a.numeric else a.values | b.values
    return Cons(a.numeric, v, max(a.missing, b.missing))


def _complement(a: Cons, universe) -> Cons:
    v = intervals.complement(a.values) if a.numeric else universe - a.values
    return Cons(a.numeric, v, T - a.missing)


def _subset(a: Cons, b: Cons, universe) -> bool:
    """Every value ``a`` allows, ``b`` allows (nominal values are within ``universe``)."""
    if a.missing == T and b.missing != T:
        return False
    return intervals.contains(b.values, a.values) if a.numeric else a.values <= b.values


# --- summaries of conditions ----------------------------------------------------------------------

class Summary(NamedTuple):
    """``never``: no row makes it true; else ``cons`` per feature (all must hold) and ``opaque``:
    there are more tests than ``cons`` shows (they can only make the condition narrower)."""

    never: bool
    cons: dict
    opaque: bool
    why: str | None = None


_OPAQUE = Summary(False, {}, True)


class _Schema:
    def __init__(self, rb: RuleBase):
        self.precision = rb.precision
        self.kinds = {f.name: f for f in rb.features}
        self.universe = {f.name: frozenset([values.key(v) for v in f.domain or ()] + [_UNSEEN])
                         for f in rb.features if f.kind == "nominal"}
        self._index: dict[str, values.Index] = {}

    def key(self, name: str, value) -> tuple:
        """The key of the domain value that ``value`` written in a rule stands for, by the rule
        engine's lookup (:class:`rulekit.semantics.values.Index`: same type and equal, else the same
        text, so ``"1"`` is the value ``1``); a value outside the domain keeps its own key."""
        index = self._index.get(name)
        if index is None:
            index = self._index[name] = values.Index(self.kinds[name].domain or ())
        i = index.get(value)
        return values.key(value) if i is None else values.key(self.kinds[name].domain[i])

    def all(self, name: str) -> Cons:
        f = self.kinds[name]
        return Cons(True, _NUM_ALL, T) if f.kind == "numeric" else Cons(False, self.universe[name], T)

    def literal(self, node) -> Summary:
        t = type(node)
        f = self.kinds.get(getattr(node, "feature", None))
        if t is Linear or f is None:
            return _OPAQUE
        name = f.name
        if t is IsMissing:
            c = self.all(name)
            c = Cons(c.numeric, c.values, F) if node.negated else Cons(c.numeric, () if c.numeric else frozenset(), T)
            return Summary(False, {name: c}, False)
        if f.kind == "numeric":
            if t is not Compare or isinstance(node.value, (str, bool)):
                return _OPAQUE
            v = float(node.value)
            if v != v:
                return _OPAQUE
            try:
                ivs = intervals.bounds(intervals.closed(node.op, v, self.precision))
            except (ValueError, OverflowError):
                return _OPAQUE
            return Summary(False, {name: Cons(True, ivs, U)}, False)
        universe = self.universe[name]
        if t is Compare:
            if node.op not in ("=", "!="):
                return _OPAQUE
            s = frozenset([self.key(name, node.value)]) & universe
            c = Cons(False, s if node.op == "=" else universe - s, U)
        elif t is InSet:
            s = frozenset(self.key(name, v) for v in node.values) & universe
            c = Cons(False, universe - s if node.negated else s, U)
        else:
            return _OPAQUE
        return Summary(False, {name: c}, False)

    def summarize(self, root) -> dict[int, Summary]:
        """Summary of every node under ``root`` (by ``id``), computed bottom-up with a stack."""
        out: dict[int, Summary] = {}
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if id(node) in out:
                continue
            t = type(node)
            kids = node.items if t in (And, Or) else (node.item,) if t is Not else ()
            if kids and not done:
                stack.append((node, True))
                stack.extend((k, False) for k in kids)
                continue
            if t is And:
                out[id(node)] = self._and([out[id(k)] for k in kids])
            elif t is Or:
                out[id(node)] = self._or([out[id(k)] for k in kids])
            elif t is Not:
                out[id(node)] = self._not(out[id(node.item)])
            else:
                out[id(node)] = self.literal(node)
        return out

    def _and(self, parts) -> Summary:
        cons: dict = {}
        opaque = False
        for p in parts:
            if p.never:
                return p
            opaque |= p.opaque
            for name, c in p.cons.items():
                c = _inter(cons[name], c) if name in cons else c
                if c.empty():
                    return Summary(True, {}, False, name)
                cons[name] = c
        return Summary(False, cons, opaque)

    def _or(self, parts) -> Summary:
        live = [p for p in parts if not p.never]
        if not live:
            return Summary(True, {}, False, parts[0].why if parts else None)
        if any(not p.cons and not p.opaque for p in live):
            return Summary(False, {}, False)  # one branch is always true
        names = {n for p in live for n in p.cons}
        if len(names) == 1 and all(not p.opaque and len(p.cons) == 1 for p in live):
            name = names.pop()
            c = live[0].cons[name]
            for p in live[1:]:
                c = _union(c, p.cons[name])
            return Summary(False, {name: c}, False)
        return _OPAQUE

    def _not(self, p: Summary) -> Summary:
        if p.opaque or p.never:
            return _OPAQUE
        if not p.cons:
            return Summary(True, {}, False)
        if len(p.cons) == 1:
            (name, c), = p.cons.items()
            c = _complement(c, self.universe.get(name))
            return Summary(True, {}, False, name) if c.empty() else Summary(False, {name: c}, False)
        return _OPAQUE

    def covers(self, a: Summary, b: Summary) -> bool:
        """Every row matching ``b`` matches ``a`` (``a`` exact, ``b`` possibly narrower)."""
        if a.never or a.opaque or b.never:
            return False
        for name, ca in a.cons.items():
            cb = b.cons.get(name) or self.all(name)
            if not _subset(cb, ca, self.universe.get(name)):
                return False
        return True

    def overlap(self, a: Summary, b: Summary) -> bool:
        """Some row matches both (both exact)."""
        if a.never or b.never or a.opaque or b.opaque:
            return False
        for name in set(a.cons) & set(b.cons):
            if _inter(a.cons[name], b.cons[name]).empty():
                return False
        return True


# --- the checks -----------------------------------------------------------------------------------

def _leaf_counts(node) -> int:
    return sum(1 for _ in atoms(node))


def _name(rb: RuleBase, i: int, where) -> str:
    r = rb.rules[i]
    label = f"rule {r.id!r}" if r.id is not None else f"rule #{i + 1}"
    if where is not None:
        label += f" (line {where[i][0]})"
    return label


def lint(rb: RuleBase, rule_pos: list[tuple[int, int]] | None = None) -> list[Finding]:
    """Errors and warnings for ``rb`` (``rule_pos``, the rules' (line, column), only improves the
    wording); :data:`rulekit.dsl.lint_base.DEFAULT` as ``rule`` means the default or the whole base."""
    schema = _Schema(rb)
    findings: list[Finding] = []
    sums: list[Summary] = []
    for i, r in enumerate(rb.rules):
        table = schema.summarize(r.condition)
        s = table[id(r.condition)]
        sums.append(s)
        if s.never:
            why = f": its tests of {s.why!r} exclude each other" if s.why else ": its tests exclude each other"
            findings.append(Finding(i, None, f"this rule can never fire{why}"))
        else:
            done = _implied(schema, i, r.condition, table) if type(r.condition) is And else \
                _redundant_alternatives(schema, i, r.condition, table) if type(r.condition) is Or else []
            findings.extend(done)
            told = {f.literal for f in done}
            findings.extend(present_findings(schema, i, r.condition, table, _first_leaves(r.condition), told))
            findings.extend(set_findings(schema, i, r.condition, told))
    ordered = rb.combiner is not None or rb.semantics == "first-hit"
    groups: dict[int, list[int]] = {}
    for i, r in enumerate(rb.rules):
        groups.setdefault(r.group if rb.combiner is not None else 0, []).append(i)
    small = any(len(m) <= lint_regions.MAX_RULES for m in groups.values())
    regions = lint_regions.Regions(rb, sums) if small else None
    exact = frozenset(i for i, bs in enumerate(regions.per_rule) if bs is not None) if small else frozenset()
    budget = [lint_regions.BUDGET]
    for members in groups.values():
        found = _pairwise(rb, schema, sums, members, ordered, rule_pos, exact)
        skip = {f.rule for f in found} | {i for i in members if sums[i].never}
        findings.extend(found)
        if len(members) <= lint_regions.MAX_RULES:
            findings.extend(lint_regions.region_findings(regions, members, ordered, skip,
                                                         lambda i: _name(rb, i, rule_pos), budget))
    never = {f.rule for f in findings if f.message.startswith("this rule can never fire")}
    findings.extend(reach_findings(rb, never | {i for i, s in enumerate(sums) if s.never},
                                   lambda i: _name(rb, i, rule_pos)))
    findings.extend(base_findings(rb))
    findings.sort(key=lambda f: (f.rule == DEFAULT, f.rule, -1 if f.literal is None else f.literal))
    return findings[:MAX_FINDINGS]


def _pairwise(rb, schema, sums, members, ordered, where, exact=frozenset()) -> list[Finding]:
    """Repeated conditions, and (first-hit) rules one earlier rule covers, judged on summaries;
    rules in ``exact`` are left to :mod:`rulekit.dsl.lint_regions` (which finds every such case)."""
    out: list[Finding] = []
    seen: dict = {}
    for j in members:
        r = rb.rules[j]
        key = r.condition
        try:
            first = seen.setdefault(key, j)
        except TypeError:  # unhashable (never for valid IR)
            first = j
        if first != j:
            if ordered:
                out.append(Finding(j, None, f"this rule can never fire: it repeats the condition of "
                                            f"{_name(rb, first, where)}, which comes first"))
            elif rb.rules[first].conclusion == r.conclusion:
                out.append(Finding(j, None, f"duplicate of {_name(rb, first, where)}: same condition and "
                                            "conclusion (it counts twice)"))
            else:
                out.append(Finding(j, None, f"same condition as {_name(rb, first, where)} but a different "
                                            "conclusion"))
    dup = {f.rule for f in out}
    if len(members) > MAX_PAIRWISE:
        return out
    if ordered:
        have = [frozenset(sums[i].cons) for i in members]
        need = [_constrained(schema, sums[i]) for i in members]
        for jj, j in enumerate(members):
            if j in dup or sums[j].never or j in exact:
                continue
            for ii in range(jj):
                i = members[ii]
                if sums[i].opaque or sums[i].never or not need[ii] <= have[jj]:
                    continue
                if schema.covers(sums[i], sums[j]):
                    out.append(Finding(j, None, f"this rule can never fire: {_name(rb, i, where)} comes first "
                                                "and matches every row this one matches"))
                    break
    return out


def _constrained(schema, s: Summary) -> frozenset:
    """Features ``s`` really constrains (a rule can only cover rules that test them too)."""
    return frozenset(n for n, c in s.cons.items() if not _subset(schema.all(n), c, schema.universe.get(n)))


def _first_leaves(cond) -> list[int]:
    """The index of the first test of each top-level item (of an ``and`` or ``or``; else of the
    condition)."""
    out, n = [], 0
    for x in cond.items if type(cond) in (And, Or) else (cond,):
        out.append(n)
        n += _leaf_counts(x)
    return out


def _implied(schema: _Schema, i: int, cond: And, table) -> list[Finding]:
    items = cond.items
    parts = [table[id(x)] for x in items]
    if any(p.never for p in parts):
        return []
    out: list[Finding] = []
    dropped: set[int] = set()
    first_leaf = _first_leaves(cond)
    for k in range(len(parts) - 1, -1, -1):  # of two equal tests, the later one is reported
        p = parts[k]
        if p.opaque or len(p.cons) != 1:
            continue
        (name, c), = p.cons.items()
        others = schema.all(name)
        for m, q in enumerate(parts):
            if m != k and m not in dropped and name in q.cons:
                others = _inter(others, q.cons[name])
        if _subset(others, c, schema.universe.get(name)):
            dropped.add(k)
            always = _subset(schema.all(name), c, schema.universe.get(name))
            msg = "this test is always true" if always else \
                f"this test is implied by the rule's other tests of {name!r}"
            out.append(Finding(i, first_leaf[k], msg))
    return out


def _redundant_alternatives(schema: _Schema, i: int, cond: Or, table) -> list[Finding]:
    """Notes on top-level alternatives of an ``or`` that another alternative covers (``(c = g and
    s != S) or (c = g and s = L)``: the second adds no row). Judged on summaries, so only when the
    covering alternative is exact; of two equal alternatives the later one is reported."""
    if len(cond.items) > MAX_ALTERNATIVES:
        return []
    parts = [table[id(x)] for x in cond.items]
    first_leaf = _first_leaves(cond)
    out: list[Finding] = []
    dropped: set[int] = set()
    for k in range(len(parts) - 1, -1, -1):
        if parts[k].never:
            continue
        for m, q in enumerate(parts):
            if m != k and m not in dropped and schema.covers(q, parts[k]):
                dropped.add(k)
                out.append(coded(i, first_leaf[k], "this alternative adds no row: every row it matches, the "
                                 f"alternative '{condition(cond.items[m])}' matches too (drop it)",
                                 REDUNDANT_ALTERNATIVE, NOTE))
                break
    return out


def diagnostics(parsed) -> list:
    """Lint warnings for a successful :func:`rulekit.dsl.parse` result, as positioned diagnostics."""
    from rulekit.dsl.diagnostics import make

    if parsed.rulebase is None:
        return []
    lines = parsed.lines_of()
    out = []
    for f in lint(parsed.rulebase, parsed.rule_pos):
        if f.rule == DEFAULT:
            line = parsed.header_lines.get("default") or (parsed.rule_pos[-1][0] if parsed.rule_pos else 1)
            col, width = 1, 1
        elif f.literal is not None and f.literal < len(parsed.literal_pos[f.rule]):
            line, col, width = parsed.literal_pos[f.rule][f.literal]
        else:
            (line, col), width = parsed.rule_pos[f.rule], 1
        out.append(make(lines, parsed.file, line, col, f.message, width=width, severity=f.severity))
    return out
