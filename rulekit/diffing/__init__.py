"""``rulekit.diff(a, b, X=None, y=None)``: what changed between two models or rule bases.

Three parts, each exact: the rules added, removed and changed (:mod:`rulekit.diffing.rules`);
the input regions where the two sides' outputs differ, from the rule algebra
(:mod:`rulekit.diffing.regions`, skipped with a reason above a size bound, e.g. for forests); with
data, the rows whose prediction changes, scored by each side's own engine
(:mod:`rulekit.diffing.rows`). ``Diff.agree`` is True when
no region and no row differs.

>>> d = rulekit.diff(rulekit.load("a.rules"), rulekit.load("b.rules"), X=df, y=df["play"])
>>> d.agree, d.n_regions, d.rows.changed
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, computed_field

from rulekit.diffing.regions import RegionsSkipped, disagreements, layer_sizes
from rulekit.diffing.rows import RowDiff, row_diff
from rulekit.diffing.rules import MAX_RULES, RuleChange, default_change, rule_changes
from rulekit.dsl.printer import condition as condition_text
from rulekit.errors import RulekitError
from rulekit.ir.model import Model
from rulekit.rules import to_rules
from rulekit.rules.base import RuleBase
from rulekit.rules.boxes import LiteralSchema, box_condition

MAX_REGIONS_KEPT = 10_000  # regions rendered as text (all are counted)
MAX_MODEL_PATHS = 2_000


class RegionText(BaseModel):
    kind: str  # "label": the label changes; "proba": same label, other probabilities; "value"
    before: Any
    after: Any
    condition: str  # a readable condition (the rule DSL's syntax)


class Diff(BaseModel):
    task: str
    rules_compared: bool
    rules_note: str | None = None
    rules: list[RuleChange] = []  # the first 200 changes, written out (all are counted)
    rules_added: int = 0
    rules_removed: int = 0
    rules_changed: int = 0
    regions_computed: bool
    regions_note: str | None = None
    n_regions: int = 0
    n_proba_regions: int = 0  # of n_regions: where the label is the same and only probabilities differ
    regions: list[RegionText] = []
    rows: RowDiff | None = None

    @computed_field
    @property
    def agree(self) -> bool | None:
        """True: the same output on every input (or, when regions were skipped, on every data row);
        None: regions skipped and no data, so nothing is known."""
        if self.regions_computed and self.n_regions:
            return False
        if self.rows is not None and (self.rows.changed or self.rows.proba_changed):
            return False
        if not self.regions_computed and self.rows is None:
            return None
        return True


def _comparable(side: Model | RuleBase) -> bool:
    """Small enough to compare rule by rule (a model's paths must be extracted first: ~0.5 ms each)."""
    if isinstance(side, Model):
        return sum(layer_sizes(side)) <= MAX_MODEL_PATHS
    return len(side.rules) <= MAX_RULES


def _rules_of(side: Model | RuleBase) -> RuleBase:
    """A model's rules as ``rulekit rules`` writes them without data (simplified paths), so a model
    and its own rules file show no rule changes."""
    return to_rules(side) if isinstance(side, Model) else side


def diff(a: Model | RuleBase, b: Model | RuleBase, X: Any = None, y: Any = None, *,
         lines: list[int] | None = None, regions: bool = True, outcomes: bool = False) -> Diff:
    """Compare ``a`` (before) with ``b`` (after); ``X`` (and its target ``y``) for the row part."""
    for side in (a, b):
        if not isinstance(side, (Model, RuleBase)):
            raise RulekitError(f"diff compares rulekit models and rule bases, not {type(side).__name__}")
    if a.task != b.task:
        raise RulekitError(f"A is a {a.task} and B a {b.task}: nothing to compare")
    out = Diff(task=a.task, rules_compared=False, regions_computed=False)
    if _comparable(a) and _comparable(b):
        ra, rb = _rules_of(a), _rules_of(b)
        changes, counts = rule_changes(ra, rb, by_id=not (isinstance(a, Model) or isinstance(b, Model)))
        dc = default_change(ra, rb)
        out.rules = changes + ([dc] if dc is not None else [])
        out.rules_added, out.rules_removed = counts["added"], counts["removed"]
        out.rules_changed = counts["changed"] + (dc is not None)
        out.rules_compared = True
    else:
        out.rules_note = (f"more than {MAX_RULES:,} rules or {MAX_MODEL_PATHS:,} tree paths on a side: "
                          "rules not compared one by one")
    if regions:
        try:
            found, features = disagreements(a, b)
        except RegionsSkipped as why:
            out.regions_note = f"regions not computed: {why}"
        else:
            out.regions_computed = True
            out.n_regions = sum(len(r.boxes) for r in found)
            out.n_proba_regions = sum(len(r.boxes) for r in found if r.kind == "proba")
            schema = LiteralSchema(RuleBase(task=a.task, features=features, classes=None))
            for r in found:
                for box in r.boxes:
                    if len(out.regions) >= MAX_REGIONS_KEPT:
                        break
                    out.regions.append(RegionText(kind=r.kind, before=r.before, after=r.after,
                                                  condition=condition_text(box_condition(box, schema))))
    if X is not None:
        out.rows = row_diff(a, b, X, y, lines=lines, outcomes=outcomes)
    return out


__all__ = ["Diff", "RegionText", "RowDiff", "RuleChange", "diff"]
