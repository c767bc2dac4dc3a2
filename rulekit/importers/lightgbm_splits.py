"""What one LightGBM split means, as rulekit IR tests: its float64 ``x <= t`` after LightGBM zeroes
``|x| <= 1e-35f``, its missing type (None, Zero, NaN) and default side, categorical bitsets, and the
bounds a path has already decided (so copied zero-island subtrees leave those tests out). No text
parsing here (:mod:`rulekit.importers.lightgbm_text`) and no graph building (:mod:`.lightgbm`).
"""

from __future__ import annotations

import numpy as np

ZERO = float(np.float32(1e-35))  # LightGBM's kZeroThreshold (a double holding the float 1e-35f)
BELOW_NEG_ZERO = ("<", -ZERO)  # x < -1e-35f
CAT_MASK, DEFAULT_LEFT_MASK = 1, 2
MISSING_NONE, MISSING_ZERO, MISSING_NAN = 0, 1, 2


def effective(th: float) -> tuple[str, float]:
    """The IR test equal to LightGBM's ``x' <= th`` where ``x' = 0`` for ``|x| <= 1e-35f``."""
    if -ZERO <= th < 0:
        return BELOW_NEG_ZERO
    if 0 <= th < ZERO:
        return ("<=", ZERO)
    return ("<=", th)


def missing_type(decision_type: int) -> int:
    """Bits 2-3 of ``decision_type``. The undefined value 3 acts as None in LightGBM (its
    NumericalDecision zeroes NaN unless the type is NaN and checks zero only for Zero), checked
    against LightGBM 4.7 on NaN, zero and 1e-36 rows."""
    mt = (decision_type >> 2) & 3
    return MISSING_NONE if mt == 3 else mt


def numeric_plan(th: float, missing_type: int, default_left: bool):
    """How one LightGBM numeric split becomes IR: ``("one", (op, t), missing)`` or
    ``("three", [(op, t)] * 3, missing)`` for the zero-island case (intervals left/right/left/right)."""
    d = 0 if default_left else 1
    if missing_type == MISSING_NAN:
        return "one", effective(th), d
    if missing_type == MISSING_NONE:
        return "one", effective(th), 0 if th >= 0 else 1  # NaN is 0
    # Zero: NaN and |x| <= ZERO follow the default side; other values compare as they are
    if th >= ZERO:
        if d == 0:
            return "one", ("<=", th), 0
        if th == ZERO:
            return "one", BELOW_NEG_ZERO, 1
        return "three", [BELOW_NEG_ZERO, ("<=", ZERO), ("<=", th)], 1
    if th >= -ZERO:
        return ("one", ("<=", ZERO), 0) if d == 0 else ("one", BELOW_NEG_ZERO, 1)
    if d == 1:
        return "one", ("<=", th), 1
    return "three", [("<=", th), BELOW_NEG_ZERO, ("<=", ZERO)], 0


def bitset_members(words: list[int]) -> list[int]:
    """Categories whose bit is set in a LightGBM bitset (32-bit words, low bit first)."""
    out = []
    for k, w in enumerate(words):
        w &= 0xFFFFFFFF
        bit = 0
        while w:
            if w & 1:
                out.append(32 * k + bit)
            w >>= 1
            bit += 1
    return out


Bounds = dict  # feature -> (lo, hi, nan_possible): non-NaN values reaching here lie in (lo, hi]


def narrow(bounds: Bounds, f: int, bound: float, missing: int):
    """Which branches of ``x[f] <= bound`` a row can take here, and the bounds below each."""
    lo, hi, nan = bounds.get(f, (None, None, True))
    can = [lo is None or lo < bound, hi is None or hi > bound]
    if nan:
        can[missing] = True
    below = []
    for branch in (0, 1):
        nb = dict(bounds)
        if branch == 0:
            nb[f] = (lo, bound if hi is None else min(hi, bound), nan and missing == 0)
        else:
            nb[f] = (bound if lo is None else max(lo, bound), hi, nan and missing == 1)
        below.append(nb)
    return can, below
