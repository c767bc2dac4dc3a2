"""The float64 link functions of boosted models (``Combiner.link``): sigmoid and softmax.

Shared by the tree evaluator (:mod:`rulekit.ir.model`) and the rule engine; a module of its own so
that the engine (and ``rulekit check``, through the linter) needs numpy only, not the tree IR.
The float32 links of XGBoost are in :mod:`rulekit.ir.float32`.
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
