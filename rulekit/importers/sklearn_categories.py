"""A scikit-learn category as a rulekit domain value (shared by the encoders' importers)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rulekit.errors import RulekitError


def domain_value(v: Any, feature: str) -> str | int:
    """A category as the IR stores it: text stays text, whole numbers become ints."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, int)):
        return int(v)
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        return int(v)
    raise RulekitError(f"categorical feature {feature!r} has category {v!r}; rulekit domains hold "
                       f"text or whole numbers only")
