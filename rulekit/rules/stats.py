"""Rule statistics on any data, recomputed after any edit.

Per rule (``Rule.stats``): ``n`` rows whose condition holds (coverage), ``e`` of them not of the
rule's class (errors), ``confidence`` = (n - e) / n, ``laplace`` = (n - e + 1) / (n + K), ``support``
= n / N, ``lift`` = confidence / P(class), and ``fired`` / ``fired_e``: rows the rule actually decides
under the base's semantics and its errors there. Regression rules get ``n``, ``support``, ``mean``
(of the target where the rule holds) and ``mse`` (of the rule's value there).

For the whole base, :func:`base_stats` gives accuracy on labelled data and fidelity to a model.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulekit.rules import engine
from rulekit.rules.base import RuleBase


def class_codes(y: Any, classes: list) -> np.ndarray:
    """Index of each label in ``classes`` (-1 when it is not one of them)."""
    lookup: dict = {}
    for i, c in enumerate(classes):
        lookup.setdefault((type(c), c), i)
        lookup.setdefault(("str", str(c)), i)
    out = np.empty(len(y), np.int64)
    for j, v in enumerate(np.asarray(y, dtype=object).tolist()):
        if isinstance(v, np.generic):
            v = v.item()
        hit = lookup.get((type(v), v))
        if hit is None:
            hit = lookup.get(("str", str(v)), -1)
        out[j] = hit
    return out


def rule_stats(rb: RuleBase, X: Any, y: Any) -> list[dict[str, float]]:
    """The statistics of every rule on ``(X, y)``."""
    M = engine.matrix(rb, X)
    N = M.shape[0]
    match = engine.match_matrix(rb, M)
    fired = _fired(rb, M, match)
    out: list[dict[str, float]] = []
    if rb.task == "regression":
        yv = np.asarray(y, dtype=np.float64)
        for i, r in enumerate(rb.rules):
            cov = match[:, i]
            n = int(cov.sum())
            s = {"n": float(n), "support": n / N if N else 0.0, "fired": float(fired[:, i].sum())}
            if n:
                s["mean"] = float(yv[cov].mean())
                if r.conclusion.value is not None:
                    s["mse"] = float(((yv[cov] - r.conclusion.value) ** 2).mean())
            out.append(s)
        return out
    oc = engine.outcomes(rb)
    K = max(1, len(oc.classes))
    yc = class_codes(y, oc.classes)
    prior = np.bincount(yc[yc >= 0], minlength=K) / N if N else np.zeros(K)
    for i, _ in enumerate(rb.rules):
        cov = match[:, i]
        c = int(oc.cls[i])
        n = int(cov.sum())
        correct = int((cov & (yc == c)).sum()) if c >= 0 else 0
        conf = correct / n if n else 0.0
        f = fired[:, i]
        s = {"n": float(n), "e": float(n - correct), "confidence": conf,
             "laplace": (correct + 1) / (n + K), "support": n / N if N else 0.0,
             "lift": conf / prior[c] if c >= 0 and prior[c] > 0 else 0.0,
             "fired": float(f.sum()), "fired_e": float((f & (yc != c)).sum())}
        out.append(s)
    return out


def _fired(rb: RuleBase, M: np.ndarray, match: np.ndarray) -> np.ndarray:
    if rb.semantics != "first-hit" and rb.combiner is None:
        return match
    out = np.zeros_like(match)
    for _, idx in engine.groups(rb):
        sub = match[:, idx]
        anym = sub.any(axis=1)
        first = np.argmax(sub, axis=1)
        rows = np.flatnonzero(anym)
        out[rows, np.asarray(idx)[first[rows]]] = True
    return out


def annotate(rb: RuleBase, X: Any, y: Any) -> RuleBase:
    """``rb`` with every rule's ``stats`` recomputed on ``(X, y)`` (``train_n`` kept)."""
    stats = rule_stats(rb, X, y)
    rules = []
    for r, s in zip(rb.rules, stats):
        keep = {k: v for k, v in r.stats.items() if k == "train_n"}
        rules.append(r.model_copy(update={"stats": {**keep, **s}}))
    return rb.model_copy(update={"rules": tuple(rules)})


def base_stats(rb: RuleBase, X: Any, y: Any = None, *, model: Any = None) -> dict[str, float]:
    """``rules``, ``literals``, ``coverage`` (share of rows some rule decides), ``accuracy`` (with ``y``;
    R^2-free ``mse`` for regression) and ``fidelity`` (share of rows agreeing with ``model``)."""
    from rulekit.rules.boxes import rules_literals  # noqa: PLC0415

    M = engine.matrix(rb, X)
    N = M.shape[0]
    pred = engine.predict_matrix(rb, M)
    out: dict[str, float] = {"rules": float(len(rb.rules)),
                             "literals": float(rules_literals(rb.rules))}
    match = engine.match_matrix(rb, M)
    out["coverage"] = float(match.any(axis=1).mean()) if N else 0.0
    if y is not None:
        if rb.task == "regression":
            out["mse"] = float(((np.asarray(y, float) - pred) ** 2).mean()) if N else 0.0
        else:
            classes = engine.outcomes(rb).classes
            out["accuracy"] = float((class_codes(pred, classes) == class_codes(y, classes)).mean()) if N else 0.0
    if model is not None:
        ref = model.predict(X)
        if rb.task == "regression":
            out["fidelity"] = float(np.mean(np.asarray(ref, float) == pred)) if N else 1.0
        else:
            classes = engine.outcomes(rb).classes
            out["fidelity"] = float((class_codes(pred, classes) == class_codes(ref, classes)).mean()) if N else 1.0
    return out
