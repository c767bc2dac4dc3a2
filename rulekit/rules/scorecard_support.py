"""What a scorecard's rows support, said in one line: why a card has no rule, or that its rules label
no clearly more held-out rows right than its start points alone (tiny or noisy data grow rules that
fit noise, and the training accuracy does not show it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rulekit.rules import engine, scorecard
from rulekit.rules.logistic import fit_logistic
from rulekit.rules.stats import class_codes
from rulekit.util import count

FOLDS = 5  # the held-out check's folds (scorecard.fold_of: each class dealt round-robin)
SUPPORT_CELLS = 200_000  # rows x features x (classes - 1)^2 up to which the check runs


def warning(learner: Any, X: Any, y: Any) -> str | None:
    """The warning for the fitted ``learner`` (a ScorecardLearner) on its rows ``X``, ``y``: why no
    test was kept when the card has no rule; else, within :data:`SUPPORT_CELLS`, the held-out
    check's verdict when the rules label no clearly more held-out rows right than the start points
    (:func:`clearly_better`); else None."""
    rb = learner.rule_base_
    classes = list(rb.classes)
    M = engine.matrix(rb, X)
    yc = class_codes([v.item() if isinstance(v, np.generic) else v for v in np.asarray(y, dtype=object)],
                     classes)
    if not rb.rules:
        chosen = getattr(learner, "selection_", {})
        return no_rule(rb, M, yc, int(learner.max_cuts), int(learner.min_rows), float(learner.l2),
                       held_out_none=chosen.get("grown", 0) > 0 and chosen.get("kept") == 0)
    K = len(classes)
    if M.shape[0] * max(1, M.shape[1]) * (K - 1) ** 2 > SUPPORT_CELLS:
        return None
    card, start = held_out(M, [f.kind == "nominal" for f in rb.features], yc, K, int(learner.max_terms),
                           int(learner.max_cuts), float(learner.l2), int(learner.min_rows))
    if clearly_better(card, start):
        return None
    right, alone = int(card.sum()), int(start.sum())
    return (f"the {yc.size} rows do not show that these {count(len(rb.rules), 'rule')} help: with the rows "
            f"held out in {FOLDS} folds in turn, cards grown the same way on the other folds label "
            f"{right} of the {yc.size} right and the start points alone (the majority class) "
            f"{alone}: {verdict(right, alone)}; the rules may fit noise")


def verdict(right: int, alone: int) -> str:
    """How ``right`` held-out rows labelled right by the cards compare with the start points'
    ``alone`` when the cards are not clearly better: 'fewer', 'as many' or 'not clearly more'."""
    return "fewer" if right < alone else "as many" if right == alone else "not clearly more (sign test at 5%)"


def clearly_better(card: np.ndarray, start: np.ndarray) -> bool:
    """Per-row correctness ``card`` beats ``start`` by a one-sided sign test at about 5% on the rows
    where exactly one of them is right, and by at least 2 rows (the CLI's form notes call it too)."""
    return scorecard.clearly_more(int((card & ~start).sum()), int((start & ~card).sum()))


def no_rule(rb: Any, M: np.ndarray, yc: np.ndarray, max_cuts: int, min_rows: int, l2: float,
            held_out_none: bool = False) -> str:
    """Why the card ``rb`` (rows ``M``, class codes ``yc``) kept no test, and what it predicts;
    ``held_out_none``: the learner grew tests and its held-out size kept none of them."""
    n = yc.size
    cands = scorecard.Candidates(M, [f.kind == "nominal" for f in rb.features], max_cuts, min_rows)
    if not cands.tests and all(np.unique(c[~np.isnan(c)]).size <= 1 for c in M.T):
        why = f"every feature is missing or constant on the {n} rows"
    elif not cands.tests:
        why = f"too few rows: no test holds on {min_rows} or more of the {n} rows and fails on {min_rows} or more"
    elif _best_gain(cands, yc, len(rb.classes), l2) <= 1e-12:
        why = (f"every test considered (holding on {min_rows} or more rows and failing on {min_rows} or "
               f"more) leaves the classes their shares of all {n} rows")
    elif held_out_none:
        return (f"no test is kept: cards grown on four fifths of the {n} rows label no clearly more of the "
                f"other fifth right than the start points alone (each fifth in turn; sign test at 5%): the "
                f"rows do not show that any test helps; the card is its start points only and {_predicts(rb, yc)}")
    else:
        why = "the chosen tests' weights round to 0 (4 significant digits)"
    return f"no test separates the classes: {why}; the card is its start points only and {_predicts(rb, yc)}"


def _best_gain(cands: scorecard.Candidates, yc: np.ndarray, K: int, l2: float) -> float:
    """The best candidate's score against the start points (the intercepts alone)."""
    Y = scorecard.targets(yc, K)
    B = np.ones((yc.size, 1))
    G, W = scorecard.residuals(B, Y, fit_logistic(B, Y, l2))
    sc = cands.scores(G, W, 1.0 / l2)
    return float(sc.max()) if sc.size else 0.0


def _predicts(rb: Any, yc: np.ndarray) -> str:
    """``predicts 'a' for every case`` and why that class: the majority, or a tie and how it broke."""
    classes = list(rb.classes)
    label = rb.default.label
    counts = np.bincount(yc, minlength=len(classes))
    tied = [classes[k] for k in np.flatnonzero(counts == counts.max())]
    said = f"predicts {label!r} for every case"
    if len(tied) == 1:
        return f"{said} (the majority class: {counts.max()} of {yc.size} rows)"
    each = ", ".join(repr(c) for c in tied[:-1]) + f" and {tied[-1]!r}"
    how = "the first class in order" if label == tied[0] else f"{label!r}"
    return f"{said} ({each} tie at {count(int(counts.max()), 'row')} each; {how} wins)"


def held_out(M: np.ndarray, nominal: list[bool], yc: np.ndarray, K: int, max_terms: int, max_cuts: int,
             l2: float, min_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row held out (:data:`FOLDS` folds): whether the card grown on the other folds labels it
    right, and whether their start points alone do (a fold whose other rows hold one class gets the
    start points only: that class)."""
    part = scorecard.fold_of(yc, FOLDS)
    start = start_right(yc, K, l2)
    card = start.copy()
    for f in range(FOLDS):
        tr, va = part != f, part == f
        if va.any() and np.unique(yc[tr]).size >= 2:
            cands = scorecard.Candidates(M[tr], nominal, max_cuts, min_rows)
            chosen, coef = scorecard.select(cands, yc[tr], K, max_terms, l2)
            B = scorecard.design(cands.tests, chosen, M[va])
            card[va] = ~scorecard.not_right(B, scorecard.targets(yc[va], K), coef)
    return card, start


def start_right(yc: np.ndarray, K: int, l2: float = 1.0) -> np.ndarray:
    """Per row held out (:data:`FOLDS` folds, as :func:`held_out`): whether the start points fitted
    on the other folds (their majority class; ties to the first class) label it right."""
    part = scorecard.fold_of(yc, FOLDS)
    out = np.zeros(yc.size, bool)
    for f in range(FOLDS):
        tr, va = part != f, part == f
        if va.any() and tr.any():
            first = fit_logistic(np.ones((int(tr.sum()), 1)), scorecard.targets(yc[tr], K), l2)
            out[va] = ~scorecard.not_right(np.ones((int(va.sum()), 1)), scorecard.targets(yc[va], K), first)
    return out
