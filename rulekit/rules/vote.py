"""Vote weights for a classification rule set that ``to_rules`` turns into a vote (``--order vote``).

A rule's weight is its Laplace-corrected confidence with the class's share of the rows as prior
(the m-estimate with m = K: ``(n - e + K * p_class) / (n + K)``; equal shares give Laplace's
``(n - e + 1) / (n + K)``), rounded to 4 significant digits for reading, unless raw confidence
``(n - e) / n`` labels more of the given rows right (then confidence, also to 4 digits). Raw
confidence gives every error-free rule the same weight 1, so two such rules of different classes tie
wherever they meet (often where no row lies) and the answer there is only the class listed first.
The corrected weight ranks by evidence (more rows, fewer errors) and, between rules of equal
evidence, by how common the class is. A tie that is still exact (the lint's vote-tie finding, which adds weights as the engine
does) is resolved explicitly: the tied rule of the more common class (equal shares: the class listed
first) gains one unit in the weight's last digit, until the lint finds no tie.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from rulekit.rules.outcomes import outcomes
from rulekit.rules.stats import class_codes, rule_stats

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

DIGITS = 4  # significant digits of a weight
MAX_ROUNDS = 50  # tie resolutions per rule base (each settles one tie; a bound, not a recursion)
_TIE = "ties the vote"


def vote_weights(rb: RuleBase, X: Any, y: Any, *, resolve_ties: bool = True) -> RuleBase:
    """``rb`` (a vote classification base) with every rule's ``weight`` set from its rows in ``(X, y)``;
    with ``resolve_ties``, exact vote ties the lint finds are resolved (module docstring)."""
    if rb.task != "classification" or rb.combiner is not None or not rb.rules:
        return rb
    oc = outcomes(rb)
    K = max(1, len(oc.classes))
    yc = class_codes(y, oc.classes)
    N = len(yc)
    prior = np.bincount(yc[yc >= 0], minlength=K) / N if N else np.full(K, 1.0 / K)
    m_est, conf = [], []
    for i, s in enumerate(rule_stats(rb, X, y)):
        c = int(oc.cls[i])
        p = float(prior[c]) if c >= 0 else 1.0 / K
        m_est.append(round_weight((s["n"] - s["e"] + K * p) / (s["n"] + K)))
        conf.append(round_weight((s["n"] - s["e"]) / s["n"] if s["n"] else 0.0))
    # confidence stays where it labels more of the rows right (evidence weights can outvote a small
    # accurate rule by a big noisy one: learned_c45_fractional, 255 vs 251 of 259 rows)
    candidates = [_with_weights(rb, w) for w in (m_est, conf)]
    hits = [int(np.sum(class_codes(np.asarray(c.predict(X), dtype=object), oc.classes) == yc)) for c in candidates]
    weights = list(conf if hits[1] > hits[0] else m_est)
    rb = candidates[1] if hits[1] > hits[0] else candidates[0]
    if not resolve_ties:
        return rb
    ids = {f"rule {r.id!r}": i for i, r in enumerate(rb.rules) if r.id is not None}
    rank = {c: (-float(prior[c]), c) for c in range(K)}  # the class the rows support more comes first
    for _ in range(MAX_ROUNDS):
        ties = [f for f in rb.lint() if f.message.startswith(_TIE) and isinstance(f.rule, int)]
        if not ties:
            break
        j = ties[0].rule
        other = next((i for key, i in ids.items() if ties[0].message.startswith(f"{_TIE} with {key} ")), None)
        win = j
        if other is not None and oc.cls[other] != oc.cls[j] and rank[int(oc.cls[other])] < rank[int(oc.cls[j])]:
            win = other
        weights[win] = _bump(weights[win])
        rb = _with_weights(rb, weights)
    return rb


def _with_weights(rb: RuleBase, weights: list[float]) -> RuleBase:
    rules = tuple(r.model_copy(update={"weight": w}) for r, w in zip(rb.rules, weights))
    return rb.model_copy(update={"rules": rules})


def round_weight(w: float) -> float:
    """A positive weight to :data:`DIGITS` significant digits, for reading (others unchanged)."""
    return float(f"{w:.{DIGITS}g}") if w > 0 else w


def _bump(w: float) -> float:
    """``w`` plus one unit in its :data:`DIGITS`-th significant digit (still a short decimal)."""
    unit = 10.0 ** (math.floor(math.log10(w)) - DIGITS + 1) if w > 0 else 10.0 ** -DIGITS
    return float(f"{w + unit:.{DIGITS + 1}g}")


__all__ = ["vote_weights"]
