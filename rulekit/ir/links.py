"""The float64 link functions of boosted models, re-exported from their home
:mod:`rulekit.semantics.links` (``from rulekit.ir.links import sigmoid, softmax`` keeps working)."""

from __future__ import annotations

from rulekit.semantics.links import sigmoid, softmax

__all__ = ["sigmoid", "softmax"]
