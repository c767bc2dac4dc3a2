"""Scorecards: an additive rule base of one- and two-test rules learned from data (``weighted-sum``).

A default (points per class to start from) and a few rules of one test (``x <= t``, ``x > t``,
``a = v``) or, where two features act together, two (``x <= t and z > u``: :mod:`.scorecard_pairs`);
every rule that holds adds its weight to its class, and the class with the most points wins: a
credit scorecard or a clinical risk score, the additive form of the best rule ensembles (RuleFit).

Learning ("totally corrective" boosting of short rules): each round scores every candidate test by
the fall of the penalised loss one Newton step on its weight would bring (as LogitBoost and XGBoost
choose): per class column ``(b' g)^2 / (b' W b + 1 / l2)``, ``b`` the test's indicator centred in the
weights ``W = p(1-p)``, ``g = y - p`` the residuals of the current logistic (softmax past two
classes) model. It adds the best test (or a conjunction of two of the strongest cuts, when that
scores well above it) and refits all weights and the intercepts by L2-penalised maximum likelihood
(:mod:`rulekit.rules.logistic`: Newton's method, penalty ``1 / (2 l2)`` on the weights). It stops at
``max_terms`` literals (18; a conjunction counts 2); the card keeps the fewest tests with which cards
grown the same way on four fifths of the rows label the most held-out rows right
(:func:`held_out_size`). Then each chosen test in turn is exchanged for the best other test when the
refit's penalised loss falls (:data:`SWEEPS` passes: FasterRisk's local search). A chosen cut moves
to the best cut between its scored neighbours. Candidates: every cut between two neighbouring values
of a numeric feature (at most ``max_cuts``, at row quantiles), ``x > t`` as well where the feature
has missing values (a missing value makes neither test hold), ``a = v`` for every nominal value.
Scores come from cumulative sums over each feature's sorted rows: O(rows x features x classes).

Rules get positive weights only: a test's weight vector (one entry per class) is shifted so that its
smallest entry is 0, which changes no label. Weights are rounded to 4 significant digits before the
rule base is built, so the written card is the model that was measured. Probabilities are the
engine's ``weighted-sum`` ones. Costs and the choices measured: docs/rules.md.
"""

from __future__ import annotations

import math
import sys
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.rules import engine
from rulekit.rules import scorecard_pairs as pairs
from rulekit.rules.base import And, Compare, Conclusion, Rule, RuleBase
from rulekit.rules.estimator import RuleBaseClassifier
from rulekit.rules.logistic import fit_logistic, objective, probabilities
from rulekit.rules.stats import annotate, class_codes
from rulekit.rules.vote import round_weight
from rulekit.util import round_significant

MAX_TERMS = 18  # the most literals by default; held_out_size chooses how many (docs/rules.md, sessions 11-12)
MAX_CLASSES = 50  # the refit's Newton step solves (terms x classes)^2 equations
HOLD_OUT_CELLS = 2_000_000  # rows x features x class columns past which one fold chooses the size
SWEEPS = 1  # exchange passes over the chosen tests (docs/rules.md, session 10)


class ScorecardLearner(RuleBaseClassifier):
    """Learn a scorecard (module docstring).

    ``max_terms``        most tests (literals) in all: a one-test rule counts 1, a conjunction 2.
    ``max_cuts``         numeric thresholds considered per feature (row quantiles of the cuts).
    ``l2``               inverse strength of the L2 penalty on the weights (scikit-learn's ``C``).
    ``min_rows``         a test must hold on, and fail on, at least this many training rows.
    ``nominal_features`` ``"auto"`` or the names of the columns to treat as nominal.
    """

    def __init__(self, *, max_terms: int = MAX_TERMS, max_cuts: int = 64, l2: float = 1.0, min_rows: int = 2,
                 nominal_features: Any = "auto"):
        self.max_terms = max_terms
        self.max_cuts = max_cuts
        self.l2 = l2
        self.min_rows = min_rows
        self.nominal_features = nominal_features

    def fit(self, X: Any, y: Any) -> ScorecardLearner:
        if int(self.max_terms) < 1:
            raise RulekitError(f"a scorecard needs at least one term (max_terms={self.max_terms})")
        checked_l2(self.l2)
        feats, labels, classes = self._read(X, y, "a scorecard")
        if len(classes) > MAX_CLASSES:
            raise RulekitError(f"a scorecard learns at most {MAX_CLASSES} classes (y has {len(classes)} "
                               "distinct values: numbers to regress on?)")
        shell = shell_of(RuleBase(task="classification", target=str(getattr(y, "name", None) or "target"),
                                  classes=tuple(classes), features=tuple(feats)))
        M = engine.matrix(shell, X)
        self.selection_: dict[str, int] = {}  # tests grown and kept (select's report)
        rb = learn(shell, M, class_codes(labels, classes), max_terms=int(self.max_terms),
                   max_cuts=int(self.max_cuts), l2=float(self.l2), min_rows=int(self.min_rows),
                   report=self.selection_)
        return self._fitted(annotate(rb, X, labels), classes, feats)


def learn(shell: RuleBase, M: np.ndarray, yc: np.ndarray, *, max_terms: int = MAX_TERMS, max_cuts: int = 64,
          l2: float = 1.0, min_rows: int = 2, report: dict | None = None) -> RuleBase:
    """The scorecard of the rows ``M`` (``shell``'s feature matrix) with class codes ``yc`` (every
    row labelled), as ``shell`` with rules and default; ``report``: as :func:`select` fills it."""
    l2 = checked_l2(l2)
    cands = Candidates(M, [f.kind == "nominal" for f in shell.features], max_cuts, min_rows)
    chosen, coef = select(cands, yc, len(shell.classes), max_terms, l2, report)
    return to_rule_base(shell, cands, chosen, coef, yc)


def checked_l2(l2: Any) -> float:
    """``l2`` as a float when it is a positive finite number (the penalty is ``1 / (2 l2)``)."""
    try:
        value = float(l2)
    except (TypeError, ValueError):
        value = math.nan
    if not (0.0 < value < math.inf):
        raise RulekitError(f"a scorecard's l2 must be a positive finite number (got {l2!r})")
    return value


def shell_of(rb: RuleBase) -> RuleBase:
    """An empty scorecard over ``rb``'s features, classes and target."""
    return RuleBase(name="scorecard", task="classification", target=rb.target, classes=rb.classes,
                    features=rb.features, precision="float64", semantics="weighted-sum")


# --- candidate tests ------------------------------------------------------------------------------------


class Candidates:
    """Every candidate test of the data: ``tests[i] = (feature, op, value)`` (value: threshold or
    nominal code; a conjunction the learner adds: ``("and", test, test)``, :mod:`.scorecard_pairs`)
    and what scoring needs per feature (sorted rows, cut positions). Numeric tests are
    scored at up to ``max_cuts`` cuts per feature (row quantiles); :meth:`refine` then moves a chosen
    cut to the best of the cuts between its two neighbours, so a threshold is exact, not a quantile.
    Every test holds, and fails, on at least ``min_rows`` rows."""

    def __init__(self, M: np.ndarray, nominal: list[bool], max_cuts: int, min_rows: int):
        self.M, self.n = M, M.shape[0]
        self.nominal, self.max_cuts, self.min_rows = nominal, max_cuts, min_rows
        self.tests: list[tuple] = []  # (feature, op, value), or ("and", test, test)
        self.index: dict[tuple, int] = {}  # test -> its index
        self.where: list[tuple | None] = []  # per test: (block, op, its cut's rank among the block's) or None
        self.complete = ~np.isnan(M).any(axis=0)  # per feature: no missing value in these rows
        self.blocks: list[tuple] = []  # per feature: (kind, first test index, data for scoring)
        for j, nom in enumerate(nominal):
            col = M[:, j]
            ok = ~np.isnan(col)
            if nom:
                codes = col[ok].astype(np.int64)
                counts = np.bincount(codes) if codes.size else np.zeros(0, np.int64)
                vals = [v for v in range(counts.size) if min_rows <= counts[v] <= self.n - min_rows]
                if vals:
                    self.blocks.append(("nominal", len(self.tests), (j, np.flatnonzero(ok), codes, np.array(vals))))
                    for v in vals:
                        self._add((j, "=", float(v)), None)
                continue
            rows = np.flatnonzero(ok)
            order = rows[np.argsort(col[rows], kind="stable")]
            v = col[order]
            fine = np.flatnonzero(v[:-1] < v[1:])  # cut after sorted row p: p + 1 rows at or below
            fine = fine[np.isfinite(v[fine]) | (v[fine + 1] > -sys.float_info.max)]  # a finite t splits it
            ops = {"<=": fine[self._supported(fine + 1)]}
            if rows.size < self.n:  # x > t holds on the rows with a value above t
                ops[">"] = fine[self._supported(order.size - fine - 1)]
            coarse = {op: _spread(f, order.size, max_cuts) for op, f in ops.items()}
            if not any(c.size for c in coarse.values()):
                continue
            b = len(self.blocks)
            self.blocks.append(("numeric", len(self.tests), (j, order, v, ops, coarse)))
            for op, cuts in coarse.items():
                for q, p in enumerate(cuts):
                    self._add((j, op, short_cut(float(v[p]), float(v[p + 1]))), (b, op, q))

    def _supported(self, hold: np.ndarray) -> np.ndarray:
        return (hold >= self.min_rows) & (self.n - hold >= self.min_rows)

    def _add(self, test: tuple, where: tuple | None) -> int:
        self.index[test] = len(self.tests)
        self.tests.append(test)
        self.where.append(where)
        return len(self.tests) - 1

    def add(self, test: tuple) -> int:
        """The index of ``test`` (a refined cut or a conjunction), added if new (not scored)."""
        return self.index[test] if test in self.index else self._add(test, None)

    def scores(self, G: np.ndarray, W: np.ndarray, lam: float) -> np.ndarray:
        """Per test, the square root of the Newton gain ``sum_c (b_c' G_c)^2 / (b_c' W_c b_c + lam)``
        (same order as the gain): the indicator
        ``b_c`` centred in class column ``c``'s weights ``W_c`` against the residuals ``G_c`` (rows x
        columns each), from cumulative sums (tests added by :meth:`refine` score 0)."""
        out = np.zeros(len(self.tests))
        GW = np.hstack([G, W])
        total = GW.sum(axis=0)
        for kind, start, data in self.blocks:
            if kind == "numeric":
                j, order, v, ops, coarse = data
                cs = np.cumsum(GW[order], axis=0)
                for op, cuts in coarse.items():
                    out[start:start + cuts.size] = _cut_scores(cs, cuts, op, total, lam)
                    start += cuts.size
            else:
                j, rows, codes, vals = data
                sums = np.zeros((int(codes.max()) + 1 if codes.size else 0, GW.shape[1]))
                np.add.at(sums, codes, GW[rows])
                out[start:start + vals.size] = _score(sums[vals], total, lam)
        return out

    def refine(self, i: int, G: np.ndarray, W: np.ndarray, lam: float) -> int:
        """Test ``i`` with its cut moved to the best-scoring cut strictly between its neighbouring
        scored cuts (an index of :attr:`tests`, added if new); ``i`` itself for other tests."""
        if self.where[i] is None:
            return i
        b, op, q = self.where[i]
        j, order, v, ops, coarse = self.blocks[b][2]
        cuts = coarse[op]
        lo = cuts[q - 1] if q > 0 else -1
        hi = cuts[q + 1] if q + 1 < cuts.size else order.size
        near = ops[op][(ops[op] > lo) & (ops[op] < hi)]
        if near.size <= 1:
            return i
        GW = np.hstack([G, W])
        sc = _cut_scores(np.cumsum(GW[order], axis=0), near, op, GW.sum(axis=0), lam)
        best = int(near[int(np.argmax(sc))])
        if best == cuts[q]:
            return i
        test = (j, op, short_cut(float(v[best]), float(v[best + 1])))
        return self.add(test)

    def indicator(self, i: int) -> np.ndarray:
        """Where test ``i`` holds on these rows (missing values: never), as 0.0 / 1.0."""
        return holds(self.tests[i], self.M)


def _cut_scores(cs: np.ndarray, cuts: np.ndarray, op: str, total: np.ndarray, lam: float) -> np.ndarray:
    """Scores of ``op`` tests at sorted-row cuts ``cuts``, from a block's cumulative sums ``cs`` of
    the residuals and weights side by side, and their column sums ``total``."""
    return _score(cs[cuts] if op == "<=" else cs[-1] - cs[cuts], total, lam)


def _score(SW: np.ndarray, total: np.ndarray, lam: float) -> np.ndarray:
    """Per row of ``SW`` (a test's sums of the residuals, then of the weights, where it holds):
    the square root of the Newton gain ``sum_c (S_c - (w_c / W_c) G_c)^2 / (w_c (1 - w_c / W_c) + lam)``
    of :meth:`Candidates.scores` (``G_c``, ``W_c``: the column sums ``total``)."""
    c = SW.shape[1] // 2
    S, w = SW[:, :c], SW[:, c:]
    Wt = np.maximum(total[c:], 1e-300)
    num = S - (w / Wt) * total[:c]
    den = np.maximum(w * (1.0 - w / Wt), 0.0) + lam
    return np.sqrt(np.sum(num * num / den, axis=1))


def _spread(cuts: np.ndarray, rows: int, most: int) -> np.ndarray:
    """At most ``most`` of ``cuts``: those nearest to evenly spaced row counts."""
    if cuts.size <= most:
        return cuts
    want = np.linspace(0, rows, most + 2)[1:-1]
    return np.unique(cuts[np.clip(np.searchsorted(cuts + 1, want), 0, cuts.size - 1)])


def short_cut(lo: float, hi: float) -> float:
    """The shortest decimal ``t`` with ``lo <= t < hi``: the test ``x <= t`` splits the two values
    (finite: below ``hi`` by its own magnitude when ``lo`` is minus infinity, 0 for (-inf, inf))."""
    if math.isinf(lo):
        if math.isinf(hi):
            return 0.0
        lo = max(hi - max(1.0, abs(hi)), -sys.float_info.max)  # hi > -max: Candidates skips that cut
    for digits in range(1, 18):
        for rounding in (ROUND_FLOOR, ROUND_CEILING):  # floor: lo itself when its double reads as it
            t = float(round_significant(Decimal(lo), digits, rounding))
            if lo <= t < hi:
                return t
    return lo


# --- selection and refit -----------------------------------------------------------------------------


def select(cands: Candidates, yc: np.ndarray, K: int, max_terms: int, l2: float,
           report: dict | None = None) -> tuple[list[int], np.ndarray]:
    """Forward selection of up to ``max_terms`` tests with a full refit after each (module
    docstring), cut to the size :func:`held_out_size` chooses, then :func:`exchange`. Returns the
    chosen test indices and the coefficients ``(1 + terms) x width`` (intercept first; width 1 for
    two classes: class 1's log-odds, else one column per class). ``report``: ``grown`` and ``kept``
    tests are written into it (why a card has none: scorecard_support)."""
    chosen, coefs, B = grow(cands, yc, K, max_terms, l2)
    size = held_out_size(cands, yc, K, max_terms, l2, steps=len(chosen)) if chosen else 0
    if report is not None:
        report.update(grown=len(chosen), kept=size)
    return exchange(cands, targets(yc, K), chosen[:size], B[:, :size + 1], coefs[size], l2, max_terms)


def residuals(B: np.ndarray, Y: np.ndarray, coef: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The residuals ``Y - P`` of the model and the Newton weights ``P (1 - P)`` (per class column)."""
    P = probabilities(B, coef)
    return Y - P, P * (1.0 - P)


def best_test(cands: Candidates, B: np.ndarray, Y: np.ndarray, coef: np.ndarray, taken: list[int],
              l2: float, room: int = 1) -> int:
    """The best-scoring test not in ``taken`` against the model ``B @ coef``, its cut refined (-1
    when no test scores above 0); with ``room`` for 2 literals, a conjunction of the strongest cuts
    when it scores :data:`~rulekit.rules.scorecard_pairs.PAIR_BAR` times the best single test."""
    G, W = residuals(B, Y, coef)
    sc = cands.scores(G, W, 1.0 / l2)
    sc[taken] = -1.0
    best = int(np.argmax(sc)) if sc.size else -1
    if best < 0 or sc[best] <= 1e-12:
        return -1
    pair = best_pair(cands, sc, G, W, l2, taken) if room >= 2 else None
    if pair is not None and pair[1] > pairs.PAIR_BAR * sc[best]:
        return cands.add(pair[0])
    fine = cands.refine(best, G, W, 1.0 / l2)
    return best if fine in taken else fine


def best_pair(cands: Candidates, sc: np.ndarray, G: np.ndarray, W: np.ndarray, l2: float,
              taken: list[int]) -> tuple[tuple, float] | None:
    """The best conjunction not in ``taken`` (:func:`~rulekit.rules.scorecard_pairs.conjunctions`),
    its cuts refined, and its score before, or None."""
    tests, P, sources = pairs.conjunctions(cands, sc)
    if not tests:
        return None
    GW = np.hstack([G, W])
    ps = _score(P.T @ GW, GW.sum(axis=0), 1.0 / l2)
    for q, t in enumerate(tests):
        if cands.index.get(t, -1) in taken:
            ps[q] = -1.0
    q = int(np.argmax(ps))
    fine = pairs.refined(cands, tests[q], sources[q], GW, 1.0 / l2, _score, short_cut)
    return (tests[q] if cands.index.get(fine, -1) in taken else fine), float(ps[q])


def exchange(cands: Candidates, Y: np.ndarray, chosen: list[int], B: np.ndarray, coef: np.ndarray,
             l2: float, budget: int = MAX_TERMS) -> tuple[list[int], np.ndarray]:
    """``chosen`` (design ``B``, coefficients ``coef``) with each test in turn replaced by the best
    test against the model without it, where the refit's penalised loss falls (a conjunction only
    within ``budget`` literals); at most :data:`SWEEPS` passes, fewer when a pass changes nothing."""
    chosen = list(chosen)
    obj = objective(B, Y, coef, l2)
    for _ in range(SWEEPS):
        moved = False
        for t in range(len(chosen)):
            keep = [k for k in range(B.shape[1]) if k != t + 1]
            without = fit_logistic(B[:, keep], Y, l2, start=coef[keep])
            room = budget - sum(pairs.literals(cands.tests[i]) for i in chosen) + pairs.literals(cands.tests[chosen[t]])
            new = best_test(cands, B[:, keep], Y, without, chosen[:t] + chosen[t + 1:], l2, room)
            if new < 0 or new == chosen[t]:
                continue
            trial = B.copy()
            trial[:, t + 1] = cands.indicator(new)
            fitted = fit_logistic(trial, Y, l2, start=np.insert(without, t + 1, 0.0, axis=0))
            t_obj = objective(trial, Y, fitted, l2)
            if t_obj < obj - 1e-9 * max(1.0, abs(obj)):
                chosen[t], B, coef, obj, moved = new, trial, fitted, t_obj, True
        if not moved:
            break
    return chosen, coef


def grow(cands: Candidates, yc: np.ndarray, K: int, max_terms: int,
         l2: float) -> tuple[list[int], list[np.ndarray], np.ndarray]:
    """The chosen tests in order (at most ``max_terms`` literals: a conjunction counts 2), the
    coefficients after each step (``coefs[t]``: the first ``t`` tests; ``coefs[0]``: the intercepts
    alone) and the design (the intercept and the chosen tests' indicators, in that order:
    ``coefs[t]`` goes with its first ``t + 1`` columns)."""
    width = 1 if K == 2 else K
    Y = targets(yc, K)
    B = np.ones((cands.n, 1))
    coefs = [fit_logistic(B, Y, l2)]
    chosen: list[int] = []
    used = 0
    while used < max_terms:
        best = best_test(cands, B, Y, coefs[-1], chosen, l2, max_terms - used)
        if best < 0:
            break
        B = np.column_stack([B, cands.indicator(best)])
        coefs.append(fit_logistic(B, Y, l2, start=np.vstack([coefs[-1], np.zeros((1, width))])))
        chosen.append(best)
        used += pairs.literals(cands.tests[best])
    return chosen, coefs, B


def held_out_size(cands: Candidates, yc: np.ndarray, K: int, max_terms: int, l2: float,
                  folds: int = 5, steps: int | None = None) -> int:
    """The fewest tests (1 to ``steps``, ``max_terms`` by default) with which the cards grown on
    ``folds - 1`` parts of the rows label the most held-out rows right, all folds together; none
    unless that labels clearly more right than the start points alone (:func:`clearly_more`; noise
    grew 4-13 tests). A fold whose other rows hold one class is left out. Past :data:`HOLD_OUT_CELLS`
    (rows x features x class columns) one fold is held out, not each in turn."""
    part = fold_of(yc, folds)
    steps = max_terms if steps is None else steps
    wrong = np.zeros(steps + 1, np.int64)
    gain, loss = np.zeros(steps + 1, np.int64), np.zeros(steps + 1, np.int64)  # against the start points
    width = 1 if K == 2 else K
    turns = folds if cands.n * max(1, cands.M.shape[1]) * width <= HOLD_OUT_CELLS else 1
    for f in range(turns):
        tr, va = part != f, part == f
        if not va.any() or np.unique(yc[tr]).size < 2:
            continue
        sub = Candidates(cands.M[tr], cands.nominal, cands.max_cuts, cands.min_rows)
        chosen, coefs, _ = grow(sub, yc[tr], K, max_terms, l2)
        Yv, Bv = targets(yc[va], K), design(sub.tests, chosen, cands.M[va])
        start = not_right(Bv[:, :1], Yv, coefs[0])
        for t in range(steps + 1):
            k = min(t, len(chosen))
            miss = not_right(Bv[:, :k + 1], Yv, coefs[k])
            wrong[t] += int(miss.sum())
            gain[t] += int((start & ~miss).sum())
            loss[t] += int((miss & ~start).sum())
    best = int(np.argmin(wrong[1:])) + 1 if steps else 0
    return best if clearly_more(int(gain[best]), int(loss[best])) else 0


def clearly_more(gain: int, loss: int) -> bool:
    """``gain`` rows right that the other side has wrong against ``loss`` the other way round: more
    by a one-sided sign test at about 5%, and by at least 2 rows."""
    return gain - loss >= max(2.0, 1.645 * math.sqrt(gain + loss))


def fold_of(yc: np.ndarray, folds: int) -> np.ndarray:
    """A fold number per row, each class dealt round-robin over the folds in a fixed shuffled order."""
    rng = np.random.default_rng(0)
    out = np.empty(yc.size, np.int64)
    for c in np.unique(yc):
        rows = rng.permutation(np.flatnonzero(yc == c))
        out[rows] = np.arange(rows.size) % folds
    return out


def targets(yc: np.ndarray, K: int) -> np.ndarray:
    """The 0/1 target matrix: class 1's indicator for two classes, else one column per class."""
    return (yc == 1).astype(float)[:, None] if K == 2 else np.eye(K)[yc]


def design(tests: list, chosen: list[int], M: np.ndarray) -> np.ndarray:
    """The intercept column and the indicator of each chosen test on the rows ``M``."""
    return np.column_stack([np.ones(M.shape[0])] + [holds(tests[i], M) for i in chosen])


def holds(test: tuple, M: np.ndarray) -> np.ndarray:
    """Where ``test`` (one test, or a conjunction ``("and", a, b)`` of two) holds on the rows ``M``
    (missing values: never), as 0.0 / 1.0."""
    hit = np.ones(M.shape[0], bool)
    for j, op, t in pairs.parts(test):
        col = M[:, j]
        with np.errstate(invalid="ignore"):
            hit &= col <= t if op == "<=" else col > t if op == ">" else col == t
    return hit.astype(np.float64)


def not_right(B: np.ndarray, Y: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """Per row: the model's label (score above 0, or the largest; ties to the first class) is not its own."""
    z = B @ coef
    if coef.shape[1] == 1:
        return (z[:, 0] > 0) != (Y[:, 0] > 0.5)
    return np.argmax(z, axis=1) != np.argmax(Y, axis=1)


# --- the rule base ----------------------------------------------------------------------------------


def to_rule_base(shell: RuleBase, cands: Candidates, chosen: list[int], coef: np.ndarray,
                 yc: np.ndarray) -> RuleBase:
    """The scorecard as a ``weighted-sum`` rule base with positive weights (module docstring). A
    test ``x <= t`` of a feature with no missing value is written as ``x > t`` (the same model:
    ``v`` where ``x <= t`` is ``v`` everywhere less ``v`` where ``x > t``) when its class is rarer
    among the rows it holds on than among the others, so that a rule names the class its rows lean to."""
    classes = list(shell.classes)
    full = np.column_stack([np.zeros(coef.shape[0]), coef]) if coef.shape[1] == 1 else coef
    base = full[0] - full[0].min()
    terms = []
    for k, i in enumerate(chosen):
        v = full[k + 1] - full[k + 1].min()
        if pairs.is_pair(cands.tests[i]):
            terms.append((cands.tests[i], v))
            continue
        j, op, t = cands.tests[i]
        top = int(np.argmax(v))
        if op == "<=" and cands.complete[j]:
            hit = cands.indicator(i) > 0
            if np.mean(yc[hit] == top) < np.mean(yc[~hit] == top):
                base = base + v
                v, op = v.max() - v, ">"
        terms.append(((j, op, t), v))
    rules = []
    for test, v in terms:
        v = np.array([round_weight(float(x)) for x in v])
        if not np.any(v > 0):
            continue
        parts = [compare(shell, *one) for one in pairs.parts(test)]
        cond = And(items=tuple(parts)) if len(parts) > 1 else parts[0]
        top = int(np.argmax(v))
        if np.count_nonzero(v) == 1:
            concl, weight = Conclusion(label=classes[top]), float(v[top])
        else:
            concl = Conclusion(label=classes[top], distribution=tuple(round_weight(float(x / v.sum())) for x in v))
            weight = round_weight(float(v.sum()))
        rules.append(Rule(id=f"s{len(rules) + 1}", condition=cond, conclusion=concl, weight=weight))
    base = tuple(round_weight(float(x)) for x in base - base.min())
    default = Conclusion(label=classes[int(np.argmax(base))], distribution=base)
    return shell.model_copy(update={"rules": tuple(rules), "default": default})


def compare(shell: RuleBase, j: int, op: str, t: float) -> Compare:
    """Candidate test ``(j, op, t)`` as a condition on ``shell``'s feature ``j``."""
    f = shell.features[j]
    return Compare(feature=f.name, op=op, value=f.domain[int(t)] if f.kind == "nominal" else t)
