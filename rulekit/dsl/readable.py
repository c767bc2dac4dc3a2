"""The readable form of a rule base: what :func:`rulekit.dsl.dumps` prints unless asked for ``exact``.

Two kinds of numbers are treated differently:

* semantic numbers (thresholds, probabilities, values, weights, and ``confidence`` where it is a
  rule's vote weight) keep their meaning exactly. A threshold is replaced by the shortest decimal
  that is the *same test* under the rule base's precision (same canonical float64 boundary from
  :mod:`rulekit.semantics`): in a float32 base ``x <= 0.800000011920929`` becomes ``x <= 0.8``
  because ``float32(x) <= 0.8`` holds for exactly the same ``x``; where no shorter number is the
  same test the threshold stays as it is. Everything else stays bit-identical.
* informational statistics (``with n = ..., confidence = ...``) are rounded to 4 significant
  digits; integer-valued ones (counts) stay whole.

``loads(dumps(rb)) == readable(rb)`` and ``readable`` is idempotent; every rule fires on exactly the
same rows as before.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal

from rulekit import semantics
from rulekit.rules.base import Compare, RuleBase
from rulekit.rules.rewrite import rewrite

DIGITS = 4  # significant digits of a statistic
_NUMERIC_OPS = ("<", "<=", ">", ">=", "=", "!=")


def readable(rb: RuleBase) -> RuleBase:
    """``rb`` with short thresholds and rounded statistics (see the module docstring)."""
    weighted = rb.semantics != "first-hit" or rb.combiner is not None
    numeric = {f.name for f in rb.features if f.kind == "numeric"}
    rules = []
    changed = False
    for r in rb.rules:
        cond = _short_condition(r.condition, numeric, rb.precision)
        stats = {k: (v if (k == "confidence" and weighted and r.weight is None) else round_stat(v))
                 for k, v in r.stats.items()}
        if cond is not r.condition or stats != r.stats:
            r = r.model_copy(update={"condition": cond, "stats": stats})
            changed = True
        rules.append(r)
    return rb.model_copy(update={"rules": tuple(rules)}) if changed else rb


def round_stat(v: float) -> float:
    """A statistic for reading: whole numbers unchanged, others to :data:`DIGITS` significant digits."""
    if not math.isfinite(v) or v == int(v):
        return v
    return float(f"{v:.{DIGITS}g}")


def short_threshold(op: str, t: float, precision: str) -> float:
    """The shortest decimal ``s`` with ``cast(x) op s`` the same test as ``cast(x) op t`` for every x."""
    if precision == "float64" or not math.isfinite(t):
        return t  # a float64 test has one threshold per boundary: repr(t) is already the shortest
    try:
        want = _canon(op, t, precision)
        exact = Decimal(t)
        for digits in range(1, significant_digits(t)):
            for rounding in (ROUND_HALF_EVEN, ROUND_FLOOR, ROUND_CEILING):
                s = float(_round_sig(exact, digits, rounding))
                if math.isfinite(s) and _canon(op, s, precision) == want:
                    return s
    except (ValueError, OverflowError, ArithmeticError):
        return t
    return t


def significant_digits(x: float) -> int:
    """Significant digits of ``repr(x)`` (``2383.93`` has 6, ``9000000000.0`` has 1)."""
    return len(Decimal(repr(x)).normalize().as_tuple().digits)


def _canon(op: str, t: float, precision: str):
    if op in ("=", "!="):
        return semantics.canonical(">=", t, precision), semantics.canonical("<=", t, precision)
    return semantics.canonical(op, t, precision)


def _round_sig(x: Decimal, digits: int, rounding) -> Decimal:
    if x == 0:
        return x
    exp = x.adjusted() - digits + 1
    return x.quantize(Decimal(1).scaleb(exp), rounding=rounding)


def _short_condition(root, numeric: set, precision: str):
    """``root`` with every numeric comparison's threshold shortened (the same object when nothing
    changes)."""
    if precision == "float64":
        return root

    def leaf(node):
        if type(node) is Compare and node.feature in numeric and type(node.value) is float \
                and node.op in _NUMERIC_OPS:
            s = short_threshold(node.op, node.value, precision)
            if not (s == node.value and repr(s) == repr(node.value)):
                return node.model_copy(update={"value": s})
        return node

    return rewrite(root, leaf)

