"""What each column is while scikit-learn preprocessing is folded: a function of one raw column.

``Num``: a number computed from the raw value ``x`` by scikit-learn's own float arithmetic, step by
step (imputation replaces NaN; scalers are monotone non-decreasing), so a tree test on it is a
threshold on ``x``. ``Coded``: a number looked up per category of the raw column (an encoder's
output), with what unknown and missing values give. Plain data; the steps live in
:mod:`rulekit.importers.pipeline_steps`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Fn = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Arith:
    """One step of arithmetic on a column: ``fn`` (float64 array -> float64 array)."""

    step: str
    fn: Fn
    fill: Any = None        # an imputation: the value NaN becomes (``fn`` does the same on numbers)
    indicator: bool = False  # a missing indicator: the result says only whether x was missing

    @property
    def is_imputation(self) -> bool:
        return self.fill is not None


@dataclass(frozen=True)
class Num:
    """``value = fns[-1](...fns[0](x))`` for the raw value ``x`` of input column ``col``."""

    col: int
    fns: tuple[Arith, ...] = ()

    def apply(self, x: np.ndarray) -> np.ndarray:
        out = np.asarray(x, np.float64)
        with np.errstate(all="ignore"):
            for a in self.fns:
                out = a.fn(out)
        return out

    @property
    def only_imputed(self) -> bool:
        """No arithmetic on numbers: a tree threshold on this column is a threshold on ``x``."""
        return all(a.is_imputation for a in self.fns)

    @property
    def missing_only(self) -> bool:
        """The value depends on whether ``x`` is missing, nothing else (a missing indicator)."""
        return any(a.indicator for a in self.fns)

    def as_coded(self, domain: tuple) -> Coded:
        """This column read on a nominal raw column (only for :attr:`missing_only` columns)."""
        present, missing = (float(v) for v in self.apply(np.asarray([0.0, np.nan])))
        return Coded(self.col, domain, (present,) * len(domain), present, missing,
                     self.fns[-1].step, tuple(a.step for a in self.fns))

    @property
    def raw_fill(self) -> Any:
        """What a missing raw value becomes before any arithmetic (None: it stays missing)."""
        for a in self.fns:
            if a.is_imputation:
                return a.fill
            break
        return None


@dataclass(frozen=True)
class Coded:
    """An encoder's output column: ``known[k]`` for the raw value ``domain[k]``.

    ``unknown``/``missing``: the output for a value outside the domain / a missing value; None
    where scikit-learn refuses such a value (any routing is then right); NaN: stays missing.
    """

    col: int
    domain: tuple
    known: tuple[float, ...]
    unknown: float | None
    missing: float | None
    encoder: str
    steps: tuple[str, ...] = field(default=())

    def mapped(self, fn: Fn, step: str) -> Coded:
        """The column after numeric arithmetic ``fn`` (a scaler or imputer over encoded columns)."""
        def one(v: float | None) -> float | None:
            if v is None:
                return None
            with np.errstate(all="ignore"):
                return float(fn(np.asarray([v], np.float64))[0])

        with np.errstate(all="ignore"):
            known = tuple(float(v) for v in fn(np.asarray(self.known, np.float64)))
        return Coded(self.col, self.domain, known, one(self.unknown), one(self.missing),
                     self.encoder, self.steps + (step,))


Column = Num | Coded
