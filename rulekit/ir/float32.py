"""Float32 combiner arithmetic, now :mod:`rulekit.semantics.float32` (issue #23); this name keeps
every function and constant it had."""

from rulekit.semantics.float32 import (
    CLAMP,
    EPS,
    F32,
    average32,
    exp32,
    float64_sum_bound,
    sigmoid32,
    softmax32,
    sum32,
)

__all__ = ["CLAMP", "EPS", "F32", "average32", "exp32", "float64_sum_bound", "sigmoid32", "softmax32", "sum32"]
