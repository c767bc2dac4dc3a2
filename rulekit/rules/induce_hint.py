"""What to try when ``rulekit rules DATA --induce`` learned no rule: only advice that can help.

``--select none`` skips the MDL clean-up; it helps only when the inducer grew rules that MDL then
removed. On pure noise IREP*'s own pruning leaves no rule either way, and the old advice ("try
--select none or more data") sent people to an option that wrote the same empty file. So the
suggestion is made only after an inducer without MDL, fitted as the command fits it, kept a rule.
"""

from __future__ import annotations

from typing import Any

from rulekit.rules.induction import RuleInducer
from rulekit.util import count


def empty_advice(X: Any, y: Any, select: str) -> str:
    """The end of the warning for an empty induced rule base on ``(X, y)`` chosen with ``select``
    (``"mdl"`` or ``"none"``): ``'; try --select none (N rules without it) or more data'`` when that
    option learns rules here, else ``'; more data may show one'``."""
    if select == "mdl":
        n = len(RuleInducer(mdl=False, random_state=0).fit(X, y).rule_base_.rules)
        if n:
            return f"; try --select none ({count(n, 'rule')} without the MDL choice) or more data"
    return "; more data may show one"
