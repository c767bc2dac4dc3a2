"""L2-penalised logistic (two classes) and multinomial regression by Newton's method: the refit
behind scorecards (:mod:`rulekit.rules.scorecard`), whose weights it gives for the chosen tests."""

from __future__ import annotations

import numpy as np

NEWTON_STEPS = 100  # refit iterations (each halves its step until the objective falls)


def probabilities(B: np.ndarray, coef: np.ndarray) -> np.ndarray:
    z = B @ coef
    if coef.shape[1] == 1:
        return 1.0 / (1.0 + np.exp(-z))
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def deviance(P: np.ndarray, Y: np.ndarray) -> float:
    """The deviance of the model probabilities ``P``."""
    P = np.clip(P, 1e-300, 1.0)
    if P.shape[1] == 1:
        return float(-2.0 * np.sum(Y * np.log(P) + (1 - Y) * np.log(np.clip(1 - P, 1e-300, 1.0))))
    return float(-2.0 * np.sum(Y * np.log(P)))


def objective(B: np.ndarray, Y: np.ndarray, coef: np.ndarray, l2: float) -> float:
    """The refit's objective: half the deviance plus the L2 penalty on the weights."""
    return _penalised(probabilities(B, coef), Y, coef, l2)


def _penalised(P: np.ndarray, Y: np.ndarray, coef: np.ndarray, l2: float) -> float:
    """The refit's objective, from the model probabilities ``P`` of the coefficients ``coef``."""
    return 0.5 * deviance(P, Y) + 0.5 * float(np.sum(coef[1:] ** 2)) / l2


def fit_logistic(B: np.ndarray, Y: np.ndarray, l2: float, start: np.ndarray | None = None) -> np.ndarray:
    """L2-penalised logistic (one column of ``Y``) or multinomial (one column per class) regression on
    the columns of ``B`` (the first is the intercept, not penalised): Newton's method with step halving.
    The same optimum as scikit-learn's ``LogisticRegression(C=l2)``."""
    p, width = B.shape[1], Y.shape[1]
    coef = np.zeros((p, width)) if start is None else start.copy()
    pen = np.full(p, 1.0 / l2)
    pen[0] = 1e-10  # the intercepts: free (a whisker keeps the softmax's shared shift unique)
    P = probabilities(B, coef)
    obj = _penalised(P, Y, coef, l2)
    for _ in range(NEWTON_STEPS):
        grad = B.T @ (P - Y) + pen[:, None] * coef
        if width == 1:
            w = P[:, 0] * (1 - P[:, 0])
            H = (B * w[:, None]).T @ B + np.diag(pen)
        else:
            H = np.zeros((p * width, p * width))
            for k in range(width):
                for m in range(k, width):
                    w = P[:, k] * ((k == m) - P[:, m])
                    blk = (B * w[:, None]).T @ B
                    H[k::width, m::width] = blk
                    H[m::width, k::width] = blk
            H += np.diag(np.repeat(pen, width))
        try:
            step = np.linalg.solve(H, grad.reshape(-1)).reshape(p, width)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, grad.reshape(-1), rcond=None)[0].reshape(p, width)
        scale = 1.0
        for _ in range(40):
            trial = coef - scale * step
            t_P = probabilities(B, trial)
            t_obj = _penalised(t_P, Y, trial, l2)
            if t_obj <= obj:
                break
            scale *= 0.5
        else:
            break
        coef, P, done = trial, t_P, obj - t_obj <= 1e-12 * max(1.0, abs(obj))
        obj = t_obj
        if done or float(np.max(np.abs(scale * step))) < 1e-10:
            break
    return coef
