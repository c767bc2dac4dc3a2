"""Float32 combiner arithmetic: XGBoost's for ``sum`` combiners with ``arithmetic="float32"``, and
onnxruntime's float tree-ensemble classifier's for ``average`` ones (:func:`average32`).

XGBoost starts from the base margin (a float32), adds each tree's float32 leaf value in tree order
in float32, and links in float32: ``sigmoid: 1 / ((e + 1) + 1e-16)`` with ``e = exp(min(-raw,
88.7))``; ``softmax: e_i = exp(raw_i - max)``, summed in double, each divided by the float32 sum.
Every exp here is the float64 exp rounded to float32, which every runtime (Python, SQL, ONNX) can
compute; XGBoost calls the C library's ``expf``, which rounds differently on about 1 in 13,000
float32 arguments (1 float32 ulp). Margins and regression values are bit-identical; see
docs/engines.md for the measured bound on probabilities.

Part of the semantics (issue #23; was ``rulekit.ir.float32``, which re-exports it): numpy only, so
:mod:`rulekit.semantics.combiners` needs nothing from the tree IR.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

F32 = np.float32
CLAMP = F32(88.7)  # XGBoost's Sigmoid: exp(min(-x, 88.7f)) never overflows
EPS = F32(1e-16)


def exp32(z: np.ndarray) -> np.ndarray:
    """exp of float32 values, computed in float64 and rounded once to float32."""
    with np.errstate(over="ignore"):
        return np.exp(np.asarray(z, dtype=np.float64)).astype(F32)


def sum32(base: Sequence[float], outputs: Sequence[int], values: Iterable[np.ndarray],
          n: int) -> np.ndarray:
    """(n, k) float32 scores: the base, then each tree's (n,) leaf values added in tree order."""
    raw = np.tile(np.asarray(base, dtype=F32), (n, 1))
    for k, v in zip(outputs, values):
        raw[:, k] += np.asarray(v, dtype=F32)
    return raw


def average32(values: Iterable[np.ndarray], n_trees: int, n: int, k: int) -> np.ndarray:
    """(n, k) float32 probabilities of an ``average`` combiner with ``arithmetic="float32"``, as
    onnxruntime's float TreeEnsembleClassifier computes them from a converter's per-leaf weights
    ``float32(p / n_trees)`` (skl2onnx forests): each tree's (n, k) leaf values divided by
    ``n_trees`` in float64 and rounded to float32, the quotients added in tree order in float32
    from 0. Two classes: class 1's sum ``s`` and ``1 - s`` in float32 (onnxruntime's binary case,
    whose label ``s > 0.5`` is then the first largest probability)."""
    total = np.zeros((n, k), dtype=F32)
    for v in values:
        total += (np.asarray(v, dtype=np.float64) / n_trees).astype(F32)
    if k == 2:
        total[:, 0] = F32(1) - total[:, 1]
    return total


def sigmoid32(raw: np.ndarray) -> np.ndarray:
    """P(class 1) in float32, as XGBoost's ``common::Sigmoid(float)`` computes it."""
    e = exp32(np.minimum(-np.asarray(raw, dtype=F32), CLAMP))
    return F32(1) / ((e + F32(1)) + EPS)


def softmax32(raw: np.ndarray) -> np.ndarray:
    """Row-wise softmax in float32, as XGBoost's ``common::Softmax``: exps summed left to right in
    float64, the sum rounded to float32, each exp divided by it in float32."""
    raw = np.asarray(raw, dtype=F32)
    e = exp32(raw - raw.max(axis=1, keepdims=True))
    total = np.zeros(raw.shape[0])
    for j in range(raw.shape[1]):
        total += e[:, j]
    return e / total.astype(F32)[:, None]


def float64_sum_bound(base_score: Sequence[float], term_max_abs: Iterable[float]) -> float:
    """How far a float64 sum may drift from XGBoost's float32 one (on runtimes with no 4-byte float,
    e.g. SQLite), absolute: no partial sum exceeds S = max|base| + sum of each term's largest |value|,
    and each of the n float32 additions rounds by at most 2**-24 * S, so the sums differ by at most
    (n + 1) * 2**-24 * S; the sigmoid and softmax links only shrink the difference. (A bound relative
    to the result does not hold: running sums cancel; measured 6e-4 relative near 0 on 200 trees.)"""
    terms = [abs(float(t)) for t in term_max_abs]
    scale = max([abs(float(b)) for b in base_score] or [0.0]) + sum(terms)
    return (len(terms) + 1) * 2.0 ** -24 * scale


__all__ = ["CLAMP", "EPS", "F32", "average32", "exp32", "float64_sum_bound", "sigmoid32", "softmax32", "sum32"]
