"""The one place that says what a model's tests and outcomes mean; every backend asks it.

- ``thresholds``: how a threshold test compares (canonical float64 ``x <= b``), the float32 floor,
  how a number is written.
- ``routing``: where a missing value, a NaN oblique sum, a nominal code and an unseen code go.
- ``intervals``: the literal algebra (a comparison as closed float64 intervals; union, intersection,
  complement, containment).
- ``values``: when a rule's value equals a data value (exact type, then equal).
- ``combiners``: how tree outputs become a score and a label (a ``Reduction`` as data, and the numpy
  reference); ``links`` and ``float32``: the link functions in float64 and float32.

Rule outcomes (what a rule concludes, first-hit and vote) live in ``rulekit.rules.outcomes``.
docs/house.md says which backend calls what. ``rulekit.semantics.X`` keeps working for every name the
old single module had; the other modules are imported by name (``from rulekit.semantics import
routing``), so importing this package loads neither numpy nor the rest.
"""

from rulekit.semantics.thresholds import (
    COMPARISON_OPS,
    MISSING_RULE,
    Op,
    Precision,
    boundary,
    boundary_array,
    canonical,
    exact17,
    f32_floor,
    f32_floor_array,
    f32_round_down,
    le_boundary,
    lt_boundary,
    shortest_repr,
)

__all__ = [
    "COMPARISON_OPS", "MISSING_RULE", "Op", "Precision", "boundary", "boundary_array", "canonical",
    "exact17", "f32_floor", "f32_floor_array", "f32_round_down", "le_boundary", "lt_boundary",
    "shortest_repr",
]
