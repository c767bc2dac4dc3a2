"""The link functions of boosted models (``Combiner.link``): float64 sigmoid and softmax.

What every backend's sigmoid and softmax must equal bit for bit: the numpy evaluators call these,
the exporters spell them (:mod:`rulekit.semantics.combiners` says which one a model uses). numpy
only, so the rule engine (and ``rulekit check`` through the linter) loads no tree IR. XGBoost's
float32 links are :func:`rulekit.semantics.float32.sigmoid32`/``softmax32``.
"""

from __future__ import annotations

import numpy as np


def sigmoid(raw: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-raw)) with the C library's exp when scipy is there (as scikit-learn, XGBoost,
    LightGBM and Python's math.exp use it); numpy's exp differs by 1 ulp on a few % of inputs."""
    try:
        from scipy.special import expit
    except ImportError:
        return 1.0 / (1.0 + np.exp(-raw))
    return expit(np.asarray(raw, dtype=np.float64))


def softmax(raw: np.ndarray) -> np.ndarray:
    """Row-wise softmax of raw scores, the row maximum subtracted first (exp never overflows)."""
    z = raw - raw.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


__all__ = ["sigmoid", "softmax"]
