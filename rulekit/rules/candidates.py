"""Candidate rules for the rule choice from trees regrown on bootstrap samples of the training rows.

With the training rows known (``rules --candidates pool``, ``to_rules(candidates="pool")``), the rule choice
(:func:`rulekit.rules.prune.organize`) can pick from more than the model's own generalised path
rules: ``TREES`` trees grown by the model's own learner and settings on bootstrap samples of the
training rows (integer sample weights: the same features and domains), each pruned and generalised
on the pruning rows as the model's tree is. A bootstrap rule is a candidate only when the rows that
did not grow it -- its tree's out-of-bag training rows and the pruning rows -- support it: C4.5's
pessimistic error there (cf 0.25) is below the smaller class share. The rule choice judges rules on
the training rows, which would take a rule grown on a few noisy rows at their word. Not the
default: the measurements, and why, are in docs/rules.md (session 7).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rulekit.ir.data import is_missing_value
from rulekit.ir.model import Model
from rulekit.rules import engine
from rulekit.rules.base import RuleBase
from rulekit.rules.boxes import LiteralSchema
from rulekit.rules.outcomes import build_outcomes
from rulekit.rules.prune import ucf
from rulekit.rules.stats import class_codes

# bootstrap trees, their seed and the confidence of the out-of-bag test (docs/rules.md, session 7)
TREES = 10
SEED = 0
CF = 0.25

KINDS = ("tree", "pool")


def regrowable(model: Model) -> bool:
    """A single classification tree that rulekit's own learner grew (its class and settings are in
    the model file's ``source``): only such a tree can be grown again on other rows."""
    source = model.source or {}
    return (model.task == "classification" and len(model.trees) == 1
            and str(source.get("learner") or "").startswith("rulekit.learners.")
            and isinstance(source.get("params"), dict))


def bootstrap_models(model: Model, X: Any, y: np.ndarray, trees: int = TREES,
                     seed: int = SEED) -> list[tuple[Model, np.ndarray]]:
    """``trees`` models grown like ``model`` on bootstrap samples of the training rows ``(X, y)``,
    each with its out-of-bag rows (a mask); a model whose features or classes differ from
    ``model``'s is left out."""
    from rulekit import learners  # noqa: PLC0415 - the learners load only when candidates are pooled

    cls = getattr(learners, str(model.source["learner"]).rsplit(".", 1)[1])
    params = dict(model.source["params"])
    params["prune"] = None  # grown in full, then pruned on the pruning rows as the model's tree is
    frame = training_frame(model, X)
    n = len(y)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(trees):
        w = rng.multinomial(n, np.full(n, 1.0 / n)).astype(np.float64)
        m = cls(**params).fit(frame, y, sample_weight=w).model_
        if tuple(m.features) == tuple(model.features) and tuple(m.classes) == tuple(model.classes):
            out.append((m, w == 0))
    return out


def training_frame(model: Model, X: Any):
    """The training rows as the learner read them in ``fit``: numeric features as floats (NaN
    missing), nominal ones as text (None missing); from CSV text cells, a table or a 2-d array."""
    import pandas as pd  # noqa: PLC0415 - the learners take a DataFrame, which brings pandas

    cols = {}
    for j, f in enumerate(model.features):
        values = list(X[:, j]) if isinstance(X, np.ndarray) else list(X[f.name])
        if f.kind == "nominal":
            cols[f.name] = pd.Series([None if is_missing_value(v) else str(v) for v in values], dtype=object)
        else:
            cols[f.name] = np.array([np.nan if is_missing_value(v) else float(v) for v in values], np.float64)
    return pd.DataFrame(cols)


def supported(rb: RuleBase, held_out: list[tuple[np.ndarray, np.ndarray]], share: np.ndarray,
              cf: float = CF) -> RuleBase:
    """The rules of ``rb`` whose pessimistic error on the held-out rows is below the smaller of
    their class's share and the rest's. ``held_out``: (feature matrix, class codes) pairs, e.g.
    a tree's out-of-bag training rows and the pruning rows; ``share``: each class's share of the
    training rows."""
    if not rb.rules:
        return rb
    schema = LiteralSchema(rb)
    evs = [(engine.Evaluator(schema, M), yc) for M, yc in held_out]
    cls = build_outcomes(rb).cls
    kept = []
    for i, r in enumerate(rb.rules):
        c = int(cls[i])
        if c < 0:
            continue
        covered = right = 0
        for ev, yc in evs:
            hit = ev.true(r.condition)
            covered += int(hit.sum())
            right += int((yc[hit] == c).sum())
        if covered and ucf(covered - right, covered, cf) < min(share[c], 1.0 - share[c]):
            kept.append(r)
    return rb if len(kept) == len(rb.rules) else rb.model_copy(update={"rules": tuple(kept)})


def pool(base: RuleBase, others: list[RuleBase]) -> RuleBase:
    """``base``'s rules, then those of ``others``, each of these under a new id."""
    rules = list(base.rules)
    for k, rb in enumerate(others):
        rules += [r.model_copy(update={"id": f"b{k + 1}_{r.id}"}) for r in rb.rules]
    return base.model_copy(update={"rules": tuple(rules)})


def codes(rb: RuleBase, y: Any) -> np.ndarray:
    """Class index of each label (-1: not a class of ``rb``)."""
    return class_codes(y, list(engine.outcomes(rb).classes))
