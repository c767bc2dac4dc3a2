"""Labels that agree with their own shares: a rule (or the default) whose ``{class: share}`` makes
another class more probable than its label concludes that class instead.

Pruning chooses a rule's label on some rows (a default on the training and pruning rows, a rule by
its tree leaf) and DNF merging counts its shares on others (the pruning rows), so the two could
disagree: ``default yes {no: 304/600, yes: 296/600}``, a file ``rulekit check`` rejects and whose
``predict`` labels rows against its own probabilities. The shares count the rows each rule decides
(the first rule that holds); a label does not change which rows those are, so taking the most
frequent class there can only add correct rows among the rows the shares count.
"""

from __future__ import annotations

from rulekit.rules.base import Conclusion, RuleBase
from rulekit.semantics import values


def agreeing(c: Conclusion | None, classes: list) -> Conclusion | None:
    """``c`` concluding the most probable class of its distribution when its label is less probable
    (a tie keeps the label; among other classes the first in ``classes`` order)."""
    if c is None or c.label is None or c.distribution is None or len(c.distribution) != len(classes):
        return c
    d = c.distribution
    own = [i for i, k in enumerate(classes) if values.same(k, c.label)]
    top = max(d)
    if not own or d[own[0]] >= top:
        return c
    return c.model_copy(update={"label": classes[d.index(top)]})


def agreeing_labels(rb: RuleBase) -> tuple[RuleBase, int]:
    """``rb`` with every conclusion agreeing with its shares (:func:`agreeing`), and how many changed.
    Classification bases only; others come back unchanged."""
    classes = list(rb.classes or ())
    if rb.task != "classification" or not classes:
        return rb, 0
    rules, changed = [], 0
    for r in rb.rules:
        c = agreeing(r.conclusion, classes)
        changed += c is not r.conclusion
        rules.append(r if c is r.conclusion else r.model_copy(update={"conclusion": c}))
    default = agreeing(rb.default, classes)
    changed += default is not rb.default
    if not changed:
        return rb, 0
    return rb.model_copy(update={"rules": tuple(rules), "default": default}), changed
