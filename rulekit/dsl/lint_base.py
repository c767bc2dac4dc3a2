"""Lint checks over the whole rule base (the per-rule and pairwise ones are in :mod:`rulekit.dsl.lint`).

Errors (a file with them fails ``rulekit check``), because every export would emit them as they are:

* a conclusion whose label is not the most probable class of its own distribution;
* negative, NaN or non-normalised probabilities (sum off 1 by more than 1e-9);
* two rules with the same id.

Warnings: a ``default`` that no row can reach (a rule holds for every input), inputs where no rule
fires and there is no default (with an example region), and conditions that hold for every input
without being written ``true``. Coverage is computed exactly with the rule algebra of
:mod:`rulekit.rules.boxes` (the input space minus every rule's boxes); a base it cannot reason about
(oblique sums, very many pieces) gets no coverage warning, never a guessed one. Probability checks
apply where a distribution is a probability (first-hit and vote sets without a combiner).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from rulekit.dsl.printer import condition
from rulekit.errors import RulekitError
from rulekit.rules import boxes
from rulekit.rules.conditions import Compare, Conclusion, atoms
from rulekit.semantics import values
from rulekit.semantics.thresholds import MinusInfinityTest

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

DEFAULT = -1  # Finding.rule of a finding about the default (or the base as a whole)
MAX_PIECES = 4000  # uncovered pieces tracked before the coverage check gives up
SUM_TOLERANCE = 1e-9


class Finding(NamedTuple):
    """A finding about rule ``rule`` (index; :data:`DEFAULT`: the default), at its ``literal``-th
    test when given; ``severity`` "error" or "warning"."""

    rule: int
    literal: int | None
    message: str
    severity: str = "warning"
    code: str = ""  # set on coded findings (also written at the end of the message)


#: codes of findings about how rules sit in the whole base: a rule linted on its own (the LSP's first
#: pass, :mod:`rulekit.dsl.incremental`) must not report them
WHOLE_BASE_CODES = frozenset({"repeats-default", "reached-only-if"})


def coded(rule: int, literal: int | None, message: str, code: str, severity: str = "warning") -> Finding:
    """A finding with a code, which ends its message as ``[code]``. Severity "note": how a test reads
    (legal, and often a faithful model translation); ``check --strict`` does not count notes."""
    return Finding(rule, literal, f"{message} [{code}]", severity, code)


def base_findings(rb: RuleBase) -> list[Finding]:
    out = _duplicate_ids(rb)
    if rb.task == "classification" and rb.combiner is None and rb.semantics != "weighted-sum":
        for i, r in enumerate(rb.rules):
            out.extend(Finding(i, None, m, "error") for m in conclusion_problems(r.conclusion, rb.classes))
        if rb.default is not None:
            out.extend(Finding(DEFAULT, None, m, "error") for m in conclusion_problems(rb.default, rb.classes))
    if rb.combiner is None:
        out.extend(_coverage(rb))
    out.extend(_minus_infinity(rb))
    return out


def _minus_infinity(rb: RuleBase) -> list[Finding]:
    """An error per rule testing ``x < -inf`` or ``x >= -inf``, which every backend refuses
    (:class:`rulekit.semantics.thresholds.MinusInfinityTest`): the file is refused, not misread."""
    out = []
    for i, r in enumerate(rb.rules):
        for node in atoms(r.condition):
            if (type(node) is Compare and node.op in ("<", ">=") and not isinstance(node.value, (str, bool))
                    and node.value == -math.inf):
                out.append(Finding(i, None, MinusInfinityTest().message, "error"))
                break
    return out


def shown(x: float, apart: float) -> str:
    """``x`` for a message: 4 significant digits (``1.01``, not ``1.0098039215686274``), more only
    where ``apart`` would read the same in as many (a sum of ``1.00000012`` is not shown as ``1``)."""
    for digits in range(4, 18):
        text = f"{x:.{digits}g}"
        if x == apart or text != f"{apart:.{digits}g}":
            return text
    return repr(x)  # pragma: no cover - 17 digits tell any two floats apart


def conclusion_problems(c: Conclusion, classes) -> list[str]:
    d = c.distribution
    if d is None or not classes or len(d) != len(classes):
        return []
    if any(p != p for p in d):
        return ["a probability is nan"]
    out = []
    if any(p < 0 for p in d):
        out.append(f"negative probability {shown(min(d), 0.0)}: probabilities are between 0 and 1")
    total = math.fsum(d)
    if abs(total - 1.0) > SUM_TOLERANCE:
        out.append(f"the probabilities sum to {shown(total, 1.0)}, not 1")
    if c.label is not None:
        hits = [i for i, k in enumerate(classes) if values.same(k, c.label)]
        top = max(d)
        if hits and d[hits[0]] < top:
            best = classes[d.index(top)]
            out.append(f"the label {c.label!r} contradicts its distribution: {best!r} is more probable "
                       f"({shown(top, d[hits[0]])} against {shown(d[hits[0]], top)})")
    return out


def _duplicate_ids(rb: RuleBase) -> list[Finding]:
    first: dict[str, int] = {}
    out = []
    for i, r in enumerate(rb.rules):
        if r.id is None:
            continue
        if r.id in first:
            out.append(Finding(i, None, f"a second rule with id {r.id!r} (the first is rule #{first[r.id] + 1})",
                               "error"))
        else:
            first[r.id] = i
    return out


def uncovered(rb: RuleBase) -> list[boxes.Box] | None:
    """The inputs where no rule's condition holds, as disjoint boxes; None when not computable."""
    schema = boxes.LiteralSchema(rb)
    regions: list[boxes.Box] = [boxes.Box({})]
    for r in rb.rules:
        try:
            bs = boxes.condition_boxes(r.condition, schema)
        except (boxes.TooComplex, RulekitError, TypeError):
            return None
        for b in bs:
            if any(not isinstance(k, int) for k in b.items):
                return None  # an oblique sum: its key is not a feature
            regions = subtract(regions, b, schema)
            if regions is None:
                return None
        if not regions:
            return []
    return regions


def always_true(rb: RuleBase, i: int) -> bool:
    """Rule ``i``'s condition holds for every input (False when not computable)."""
    one = rb.model_copy(update={"rules": (rb.rules[i],)})
    return uncovered(one) == []


def subtract(regions, b: boxes.Box, schema, max_pieces: int = MAX_PIECES) -> list[boxes.Box] | None:
    """``regions`` (boxes) minus box ``b``, as boxes; None when that takes more than ``max_pieces``.
    Boxes ``b`` does not meet are kept as the same objects."""
    out: list[boxes.Box] = []
    for reg in regions:
        if any(boxes.intersect(reg.items.get(k, schema.universe(k, True)), c).is_empty for k, c in b.items.items()):
            out.append(reg)
            continue
        rest = dict(reg.items)
        for k, c in b.items.items():
            cur = rest.get(k, schema.universe(k, True))
            outside = boxes.intersect(cur, boxes.complement(c))
            if not outside.is_empty:
                out.append(boxes.Box({**rest, k: outside}))
            rest[k] = boxes.intersect(cur, c)
        if len(out) > max_pieces:
            return None
    return out


EXAMPLE_GAPS = 20  # uncovered regions looked at for the example of the no-default finding


def _example_gap(rb: RuleBase, gaps: list) -> str:
    """The text of an uncovered region to show: the first (of :data:`EXAMPLE_GAPS`) that tests a
    value, not only missing values. 'e.g. where x1 is missing' was shown for rules leaving
    x1 > 3.001 and x2 <= 7 undecided, 483 of 1,000 rows (audit 3)."""
    if not gaps[0].items:
        return "every input"
    schema = boxes.LiteralSchema(rb)
    texts = [condition(boxes.box_condition(g, schema)) for g in gaps[:EXAMPLE_GAPS]]
    valued = [t for t in texts if not all(part.strip(" ()").endswith(" is missing")
                                          for part in t.split(" and "))]
    return valued[0] if valued else texts[0]


def _coverage(rb: RuleBase) -> list[Finding]:
    out = []
    total = None
    for i, r in enumerate(rb.rules):
        literal_true = boxes.is_true(r.condition)
        if literal_true or always_true(rb, i):
            total = i if total is None else total
            if not literal_true:
                out.append(Finding(i, None, "this condition holds for every input (write 'if true' if that "
                                            "is meant)"))
    if total is not None and rb.default is not None:
        # (rules that only together cover every input, as a tree's paths do, keep their default: it
        # is the safety net for later edits)
        who = f"rule {rb.rules[total].id!r}" if rb.rules[total].id is not None else f"rule #{total + 1}"
        out.append(Finding(DEFAULT, None, f"the default can never be used: {who} holds for every input"))
    if rb.default is not None:
        return out
    gaps = uncovered(rb)
    if gaps is None:
        return out
    if gaps:
        try:
            where = _example_gap(rb, gaps)
        except Exception:  # noqa: BLE001 - the example is a courtesy; the finding stands without it
            where = None
        example = f" (e.g. where {where})" if where else ""
        out.append(Finding(DEFAULT, None, f"no rule fires for some inputs and there is no default{example}: "
                                          "they get no prediction"))
    return out
