"""The line that says a pruned rule base's rules may fit noise: on the pruning rows they are right
on no clearly more rows than its default class alone (the sign test of
:func:`rulekit.rules.scorecard_support.clearly_better`, as the ``--scorecard`` note uses).

The rules are chosen on these rows (and on the default path on the training rows too), so a rule
that is right on 13 of its 21 rows, where the default would be right on 8, is kept without a word:
the rule base looks learned while the pruning rows cannot tell it from chance.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulekit.rules.base import RuleBase
from rulekit.rules.scorecard_support import clearly_better
from rulekit.rules.stats import class_codes
from rulekit.util import count


def may_fit_noise(rb: RuleBase, X: Any, y: Any) -> str | None:
    """The note for a classification rule base ``rb`` with rules and a default, on its pruning rows
    ``(X, y)``; None when its rules are clearly better than predicting the default for every row."""
    if rb.task != "classification" or not rb.rules or rb.default is None or rb.default.label is None:
        return None
    classes = list(rb.classes or ())
    yc = class_codes(y, classes)
    pc = class_codes(rb.predict(X), classes)
    dc = int(class_codes([rb.default.label], classes)[0])
    ours, alone = (pc == yc) & (yc >= 0), (yc == dc) & (yc >= 0)
    if clearly_better(ours, alone):
        return None
    n = int(yc.size)
    return (f"note: the {count(len(rb.rules), 'rule')} kept {'is' if len(rb.rules) == 1 else 'are'} right on "
            f"{int(ours.sum()):,} of the {n:,} pruning rows, the default {rb.default.label!r} alone on "
            f"{int(alone.sum()):,}: not clearly more (sign test on the {int((ours != alone).sum()):,} rows "
            "where they differ), so the rules may fit noise; more pruning rows would tell")
