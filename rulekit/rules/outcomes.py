"""What each rule of a rule base (and its default) concludes, as arrays: class index, probability or
value vector and vote weight (:class:`Outcomes`), read once per rule base and cached.

Shared by the engine (predictions), explanations, the linter, the rule passes and the SQL export,
so that a conclusion is read one way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.rules.conditions import Conclusion
from rulekit.semantics.values import index_of, same

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase


def rule_name(rb: RuleBase, i: int) -> str:
    """Rule ``i``'s id, else ``#<position>`` (1-based), as messages name it."""
    r = rb.rules[i]
    return r.id if r.id else f"#{i + 1}"


@dataclass
class Outcomes:
    """Per rule (and default) the class index, the probability/score vector and the vote weight."""

    classes: list
    labels: np.ndarray  # the classes as an array (object dtype when they mix types)
    cls: np.ndarray  # class index per rule; last slot = default (-1: none)
    vec: np.ndarray  # (n_rules + 1, width) value vectors; last row = default (zeros: none)
    has_default: bool
    weight: np.ndarray


def label_array(classes: list) -> np.ndarray:
    kinds = {type(c) for c in classes}
    if len(kinds) == 1:
        return np.asarray(classes)
    arr = np.empty(len(classes), object)
    arr[:] = classes
    return arr


def class_index(classes: list, lab: Any, where: str) -> int:
    i = index_of(classes, lab)
    if i is not None:
        return i
    raise RulekitError(f"{where}label {lab!r} is not one of the classes ({', '.join(map(str, classes))})")


def rule_classes(rb: RuleBase) -> list:
    if rb.classes is not None:
        return list(rb.classes)
    seen: list = []
    for c in [r.conclusion for r in rb.rules] + [rb.default]:
        if c is not None and c.label is not None and all(not same(s, c.label) for s in seen):
            seen.append(c.label)
    return seen


def build_outcomes(rb: RuleBase) -> Outcomes:
    """The arrays of :class:`Outcomes` for ``rb`` (uncached; :func:`outcomes` caches them)."""
    comb = rb.combiner
    concl: list[Conclusion | None] = [r.conclusion for r in rb.rules] + [rb.default]
    names = [f"rule {rule_name(rb, i)}: " for i in range(len(rb.rules))] + ["default: "]
    n = len(concl)
    weight = np.ones(n)
    for i, r in enumerate(rb.rules):
        if r.weight is not None:
            weight[i] = r.weight
        elif "confidence" in r.stats:
            weight[i] = r.stats["confidence"]
    if rb.task == "regression" or (comb is not None and comb.kind == "sum"):
        vec = np.zeros((n, 1))
        for i, c in enumerate(concl):
            if c is None:
                continue
            if c.value is None:
                raise RulekitError(f"{names[i]}needs a number as its conclusion")
            vec[i, 0] = c.value
        classes = rule_classes(rb) if rb.task == "classification" else []
        return Outcomes(classes, label_array(classes), np.full(n, -1), vec, rb.default is not None, weight)
    classes = rule_classes(rb)
    if len(classes) < 1:
        raise RulekitError("a classification rule base needs classes")
    K = len(classes)
    cls = np.full(n, -1, np.int64)
    vec = np.zeros((n, K))
    for i, c in enumerate(concl):
        if c is None:
            continue
        if c.label is not None:
            cls[i] = class_index(classes, c.label, names[i])
        if c.distribution is not None:
            if len(c.distribution) != K:
                raise RulekitError(f"{names[i]}distribution has {len(c.distribution)} values for {K} classes")
            vec[i] = c.distribution
            if c.label is None:
                cls[i] = int(np.argmax(vec[i]))
        elif cls[i] >= 0:
            vec[i, cls[i]] = 1.0
        elif i < len(rb.rules) or c.value is not None:
            raise RulekitError(f"{names[i]}needs a class label")
    return Outcomes(classes, label_array(classes), cls, vec, rb.default is not None, weight)


_outcome_cache: dict[int, tuple[RuleBase, Outcomes]] = {}


def outcomes(rb: RuleBase) -> Outcomes:
    """The rule base's conclusions as arrays (cached per rule base object)."""
    hit = _outcome_cache.get(id(rb))
    if hit is not None and hit[0] is rb:
        return hit[1]
    out = build_outcomes(rb)
    if len(_outcome_cache) > 64:
        _outcome_cache.clear()
    _outcome_cache[id(rb)] = (rb, out)
    return out


__all__ = ["Outcomes", "build_outcomes", "class_index", "index_of", "label_array", "outcomes", "rule_classes",
           "rule_name"]
