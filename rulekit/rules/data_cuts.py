"""Thresholds of rules learned from data, written as the tree learners write theirs.

A learner that scores cuts between neighbouring values (``--induce``) keeps their exact midpoint,
``x2 <= 0.1982862754176986``. Any threshold in the same gap between two neighbouring values of the
rows is the same test on those rows; :func:`shorten` moves each one to the shortest decimal in the
middle of that gap (:func:`rulekit.learners.criteria.readable_threshold`, as ``fit`` chooses its
splits), so the rules read ``x2 <= 0.2`` and split every learning row exactly as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulekit.learners.criteria import readable_threshold
from rulekit.rules import engine
from rulekit.rules.base import RuleBase
from rulekit.rules.conditions import Compare
from rulekit.rules.rewrite import rewrite

_BELOW = ("<=", ">")  # x <= t: the gap holds t with a <= t < b
_ABOVE = ("<", ">=")  # x < t: the gap holds t with a < t <= b


def shorten(rb: RuleBase, X: Any) -> RuleBase:
    """``rb`` with every numeric threshold moved to the shortest decimal in the middle of its gap
    between neighbouring values of ``X`` (float64 bases only: a float32 test is printed short by
    :mod:`rulekit.dsl.readable` already); a threshold outside the values stays."""
    if rb.precision != "float64":
        return rb
    cols = {f.name: j for j, f in enumerate(rb.features) if f.kind == "numeric"}
    if not cols:
        return rb
    M = engine.matrix(rb, X)
    values: dict[str, np.ndarray] = {}
    memo: dict = {}

    def leaf(node):
        if type(node) is not Compare or node.feature not in cols or type(node.value) is not float \
                or node.op not in _BELOW + _ABOVE:
            return node
        key = (node.feature, node.op in _BELOW, node.value)
        if key not in memo:
            v = values.get(node.feature)
            if v is None:
                col = M[:, cols[node.feature]]
                v = values[node.feature] = np.unique(col[np.isfinite(col)])
            memo[key] = _short(v, node.value, key[1])
        s = memo[key]
        return node if s == node.value else node.model_copy(update={"value": s})

    rules = tuple(r.model_copy(update={"condition": rewrite(r.condition, leaf)}) for r in rb.rules)
    return rb.model_copy(update={"rules": rules})


def _short(v: np.ndarray, t: float, le: bool) -> float:
    """The readable threshold of the gap of sorted values ``v`` that holds ``t`` (``le``: ``x <= t``,
    else ``x < t``), or ``t`` when no value lies on one side of it."""
    k = int(np.searchsorted(v, t, "right" if le else "left"))
    if k == 0 or k == v.size:
        return t
    a, b = float(v[k - 1]), float(v[k])
    s = float(readable_threshold(a, b)[0])
    ok = (a <= s < b) if le else (a < s <= b)
    return s if ok else t
