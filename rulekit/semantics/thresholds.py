"""How a threshold test compares, where the float32 floor lies and how a number is written.

Every backend (the numpy evaluator, the rule engine, Python, SQL and ONNX exporters) asks this module,
so they cannot drift apart. The central idea: every threshold test a source model performs, whatever
its operator and float precision, is turned into a *canonical float64 test* ``x <= b`` (or its
negation ``x > b``) that gives the same answer for every float64 ``x``. Backends then only ever compare
doubles.

Source semantics (see ``shared/FACTS.md``):

* scikit-learn: ``float32(x) <= t`` with ``t`` a float64 -> ``op="<=", precision="float32"``
* XGBoost: ``float32(x) < t`` with ``t`` a float32     -> ``op="<",  precision="float32"``
* LightGBM / rulekit learners: ``x <= t`` in float64     -> ``op="<=", precision="float64"``
"""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING, Literal

from rulekit.errors import RulekitError

if TYPE_CHECKING:
    import numpy as np

Op = Literal["<=", "<"]
Precision = Literal["float32", "float64"]
COMPARISON_OPS = ("<", "<=", ">", ">=")

_F32_MAX = float.fromhex("0x1.fffffep+127")  # numpy.finfo(numpy.float32).max
_F32_HALF_TOP_ULP = 2.0**103  # half the spacing of float32 just below its max
_F32_TINY = float.fromhex("0x1p-149")  # the smallest positive float32 (a subnormal)
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")

# The scalar functions compute float32 roundings with ``struct`` (C's float cast, as numpy's), so
# importing this module (the linter does, for ``rulekit check``) does not load numpy; the array
# functions at the end load it when called. tests/ir/test_semantics_arrays.py checks both agree.


class MinusInfinityTest(RulekitError, ValueError):
    """``cast(x) < -inf`` (holds for no value) or ``cast(x) >= -inf`` (for every non-missing one):
    no canonical ``x <= b`` / ``x > b`` says either (``b = -inf`` keeps or drops ``x = -inf``), so
    every backend refuses the test with this one line (the CLI exits 2) rather than answer wrongly."""

    def __init__(self) -> None:
        super().__init__("a threshold test 'x < -inf' (true for no value) or 'x >= -inf' (true for every "
                         "non-missing value) cannot be evaluated exactly: drop it or write 'x is missing' "
                         "/ 'x is not missing'")


def _to_f32(x: float) -> float:
    """``x`` rounded to the nearest float32 (ties to even), as numpy's cast: +-inf beyond the range."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:  # struct refuses what rounds to infinity; numpy's cast gives infinity
        return math.copysign(math.inf, x)


def _f32_step(f: float, up: bool) -> float:
    """The float32 next to the float32 value ``f`` towards +inf (``up``) or -inf, as numpy's
    ``nextafter`` on float32 (from either zero to the smallest subnormal; infinity stays)."""
    if f != f:
        return f
    if f == 0.0:
        return _F32_TINY if up else -_F32_TINY
    if math.isinf(f) and (f > 0) == up:
        return f
    bits = _U32.unpack(_F32.pack(f))[0]
    bits += 1 if (f > 0) == up else -1  # float32 bit patterns are ordered by magnitude
    return _F32.unpack(_U32.pack(bits))[0]


def f32_floor(t: float) -> float:
    """Largest float32 value that is <= ``t`` (as a Python float); -inf below the float32 range."""
    if math.isnan(t):
        raise ValueError("threshold is NaN")
    t = float(t)
    g = _to_f32(t)
    if g > t:
        g = _f32_step(g, up=False)
    return g


def _next_f32_up(f: float) -> float:
    return _f32_step(f, up=True)


def _f32_le_boundary(t: float) -> float:
    """float64 ``b`` such that ``x <= b`` <=> ``float32(x) <= t`` for every float64 ``x``.

    ``f`` = largest float32 <= t; ``m`` = midpoint of f and the next float32 up (exact in float64).
    Doubles below ``m`` round to ``f`` or lower; ``m`` itself rounds to even, which may be ``f``.
    """
    f = f32_floor(t)
    if f == math.inf:
        return math.inf
    if f == _F32_MAX:
        m = f + _F32_HALF_TOP_ULP
    elif f == -math.inf:
        m = -_F32_MAX - _F32_HALF_TOP_ULP
    else:
        m = (f + _next_f32_up(f)) / 2.0
    rounds_down = _to_f32(m) == f
    return m if rounds_down else math.nextafter(m, -math.inf)


def le_boundary(t: float, precision: Precision) -> float:
    """float64 ``b`` with ``x <= b`` equivalent to ``cast(x) <= t`` in ``precision``."""
    if precision == "float64":
        return float(t)
    return _f32_le_boundary(float(t))


def lt_boundary(t: float, precision: Precision) -> float:
    """float64 ``b`` with ``x <= b`` equivalent to ``cast(x) < t`` in ``precision``
    (:class:`MinusInfinityTest` for ``t = -inf``, which no ``b`` says)."""
    t = float(t)
    if t == -math.inf:
        raise MinusInfinityTest()
    if precision == "float64":
        return math.nextafter(t, -math.inf)
    g = f32_floor(t)
    if g == t:
        g = _f32_step(g, up=False)
    return _f32_le_boundary(g)


def boundary(op: Op, t: float, precision: Precision) -> float:
    """The canonical float64 boundary ``b``: the source test ``cast(x) op t`` holds iff ``x <= b``."""
    if op == "<=":
        return le_boundary(t, precision)
    if op == "<":
        return lt_boundary(t, precision)
    raise ValueError(f"unsupported threshold operator {op!r}")


def canonical(op: str, t: float, precision: Precision) -> tuple[str, float]:
    """Turn any comparison ``cast(x) op t`` (op in < <= > >=) into ``("<=", b)`` or ``(">", b)``."""
    if op in ("<=", "<"):
        return "<=", boundary(op, t, precision)  # type: ignore[arg-type]
    if op == ">":
        return ">", le_boundary(t, precision)
    if op == ">=":
        return ">", lt_boundary(t, precision)
    raise ValueError(f"unsupported comparison operator {op!r}")


def f32_round_down(b: float) -> float:
    """Largest float32 <= b: for float32 inputs ``x <= b`` equals ``x <= f32_round_down(b)``."""
    return f32_floor(b)


# --- literals -------------------------------------------------------------------------------------


def shortest_repr(x: float) -> str:
    """Shortest decimal text that parses back to the identical float64 (``inf``/``-inf``/``nan`` spelled)."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def exact17(x: float) -> str:
    """17 significant digits with an exponent: read back exactly by every SQL engine, typed as a double."""
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("infinite or NaN literal needs dialect-specific handling")
    text = "%.17g" % x
    if "e" not in text:
        text += "e0"
    return text


# --- missing values -------------------------------------------------------------------------------

MISSING_RULE = (
    "A missing value (NaN, None, SQL NULL) at a split follows the split's `missing` branch, as the "
    "source model sends it. In a rule base, a comparison on a missing value is not satisfied; only "
    "`is missing` (or an explicit `or x is missing`) matches it."
)


# --- many boundaries at once ----------------------------------------------------------------------


def f32_floor_array(t: np.ndarray) -> np.ndarray:
    """:func:`f32_floor` of each float64 in ``t`` (as float64 values; -inf below the float32 range)."""
    import numpy as np  # noqa: PLC0415 - start-up time (see the top), not a cycle

    with np.errstate(over="ignore"):
        g = t.astype(np.float32)
        g = np.where(g.astype(np.float64) > t, np.nextafter(g, np.float32(-np.inf)), g)
    return g.astype(np.float64)


def _f32_le_boundary_array(t: np.ndarray) -> np.ndarray:
    import numpy as np  # noqa: PLC0415 - start-up time (see the top), not a cycle

    f = f32_floor_array(t)
    with np.errstate(over="ignore", invalid="ignore"):
        up = np.nextafter(f.astype(np.float32), np.float32(np.inf)).astype(np.float64)
        m = (f + up) / 2.0
        m = np.where(f == _F32_MAX, f + _F32_HALF_TOP_ULP, m)
        m = np.where(f == -np.inf, -_F32_MAX - _F32_HALF_TOP_ULP, m)
        rounds_down = m.astype(np.float32).astype(np.float64) == f
    b = np.where(rounds_down, m, np.nextafter(m, -np.inf))
    return np.where(f == np.inf, np.inf, b)


def boundary_array(op: Op, t: np.ndarray, precision: Precision) -> np.ndarray:
    """:func:`boundary` for an array of thresholds (same arithmetic, vectorized; for big models)."""
    import numpy as np  # noqa: PLC0415 - start-up time (see the top), not a cycle

    t = np.asarray(t, dtype=np.float64)
    if np.isnan(t).any():
        raise ValueError("threshold is NaN")
    if op not in ("<=", "<"):
        raise ValueError(f"unsupported threshold operator {op!r}")
    if op == "<" and (t == -np.inf).any():
        raise MinusInfinityTest()
    if precision == "float64":
        return t.copy() if op == "<=" else np.nextafter(t, -np.inf)
    if op == "<":
        g = f32_floor_array(t)
        with np.errstate(over="ignore"):
            below = np.nextafter(g.astype(np.float32), np.float32(-np.inf)).astype(np.float64)
        t = np.where(g == t, below, g)
    return _f32_le_boundary_array(t)
