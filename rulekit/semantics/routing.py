"""Where a split sends a missing value, each nominal code and an unseen code: decided here, once.

The rule (every backend: IR evaluator, Python, SQL, ONNX, rule extraction, and the C walker
``rulekit/_fastpath.c``, which must keep the same arithmetic for numeric splits):

- A missing value (NaN in numpy/Python/ONNX, NULL in SQL) takes the split's ``missing`` branch,
  whatever the split's kind. An oblique split whose sum is NaN (``inf - inf``, ``0 * inf``) treats
  the sum as missing: it takes the ``missing`` branch too (:func:`nan_sum_tests` says when that is,
  in tests a rule base can write).
- A nominal split routes code ``c`` (``0 <= c < size``) to the edge whose ``values`` list it (when
  several do, the last edge in edge order); a code no edge lists goes to the "other" edge
  (``values=None``, at most one), else to the missing branch.
- A value outside the domain (an unseen code: negative, ``>= size``) goes like an unlisted code:
  the "other" edge, else the missing branch.

These functions take a split's node attributes and its out-edge data (``tree.succ[node].values()``)
and return plain lists and sets; each backend keeps only its spelling of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

UNSEEN = -1  # the code that stands for any value outside a nominal feature's domain


def missing_branch(attrs: Mapping) -> int:
    """The branch a missing value (or a NaN oblique sum) takes at a split with node ``attrs``."""
    return int(attrs["missing"])


def takes_missing(attrs: Mapping, branch: int) -> bool:
    """Whether a missing value goes with ``branch`` of the split with node ``attrs``."""
    return branch == int(attrs["missing"])


def nominal_table(out: Iterable[Mapping], missing: int, size: int) -> list[int]:
    """Branch taken by codes ``0 .. size-1`` and, in the last slot (index ``size``), by an unseen code.

    ``out``: the split's out-edge data (``branch`` and ``values``, None for the "other" edge);
    ``missing``: the split's missing branch; ``size``: the feature's domain size."""
    out = list(out)
    fill = next((d["branch"] for d in out if d.get("values") is None), missing)  # "other", else missing
    table = [fill] * (size + 1)
    for data in out:
        vals = data.get("values")
        if vals is not None:
            branch = data["branch"]
            for code in vals:
                table[code] = branch
    return table


def unseen_branch(table: list[int]) -> int:
    """The branch an unseen code takes (the last slot of :func:`nominal_table`)."""
    return table[-1]


def codes_by_branch(table: list[int], n_branches: int) -> list[frozenset[int]]:
    """Per branch, the codes it takes (:data:`UNSEEN` for values outside the domain); a branch no
    code reaches gets an empty set. Missing values are not codes: see :func:`takes_missing`."""
    size = len(table) - 1
    acc: list[list[int]] = [[] for _ in range(n_branches)]
    for code, b in enumerate(table):
        acc[b].append(UNSEEN if code == size else code)
    return [frozenset(codes) for codes in acc]


def code_slots(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For float codes: the slot of :func:`nominal_table` each takes (``size`` when unseen: negative,
    ``>= size``; a fraction truncates toward zero) and the mask of missing (NaN) codes, whose slot
    is meaningless (they take the missing branch)."""
    nan = np.isnan(codes)
    slots = np.where(nan | (codes < 0) | (codes >= size), size, np.nan_to_num(codes, nan=0.0)).astype(np.int64)
    return slots, nan


def sum_is_missing(s: np.ndarray) -> np.ndarray:
    """Rows whose oblique sum counts as missing: a NaN sum (a missing input, or ``inf - inf``)."""
    return np.isnan(s)


def nan_sum_tests(terms: Sequence[tuple[float, str]]) -> list[tuple]:
    """When ``w1*x1 + ... + wn*xn`` (summed left to right in float64) is NaN though no input is:
    the rows where some clause holds, each clause a conjunction of linear tests ``(terms, op, value)``
    that are decided (never NaN) on every row where they matter.

    The first partial sum to turn NaN is ``S(k-1) + t(k)`` with ``S(k-1) = +inf`` and ``t(k) = -inf``
    (or the reverse), or a term ``0 * inf``; so, for each k, ``S(k-1) >= inf and t(k) <= -inf``,
    ``S(k-1) <= -inf and t(k) >= inf`` and, for a zero weight, ``x >= inf`` and ``x <= -inf``. On a
    row with no NaN partial sum every clause is false, and the rule engine's three-valued logic
    (a NaN sum makes a test unknown) still finds the first clause true on a NaN one. Rule bases
    spell the missing side of an oblique split with these (rulekit.rules.extract)."""
    inf = float("inf")
    out: list = []
    for k, (w, name) in enumerate(terms):
        if w == 0.0:  # 0 * +-inf is NaN
            one = ((1.0, name),)
            out.append(((one, ">=", inf),))
            out.append(((one, "<=", -inf),))
            continue
        prefix = tuple(terms[:k])
        if all(p == 0.0 for p, _ in prefix):  # no prefix, or one that is never infinite
            continue
        term = ((w, name),)
        out.append(((prefix, ">=", inf), (term, "<=", -inf)))
        out.append(((prefix, "<=", -inf), (term, ">=", inf)))
    return out


__all__ = ["UNSEEN", "code_slots", "codes_by_branch", "missing_branch", "nan_sum_tests", "nominal_table",
           "sum_is_missing", "takes_missing", "unseen_branch"]
