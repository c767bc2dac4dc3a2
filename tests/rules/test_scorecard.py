"""Scorecards (rulekit.rules.scorecard): candidate scores against a brute force, the refit against
scikit-learn, the written rule base against its own arithmetic and the fitted model, learned
behaviour on planted concepts and real data, the CLI, and every backend on a learned scorecard."""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rulekit import dsl
from rulekit.errors import RulekitError
from rulekit.rules import engine
from rulekit.rules.base import Compare
from rulekit.rules.scorecard import (MAX_TERMS, Candidates, ScorecardLearner, objective, fit_logistic, grow, select,
                                     short_cut, targets)
from rulekit.rules.vote import DIGITS
from rulekit.rules.stats import class_codes
from tests.marks import lane_examples

PLAIN = ("x0", "x1", "a")
HOSTILE = ('x "zero"', "it's one", "naïve ü; a")
HOSTILE_VALUES = ("v1", "it's v2", 'say "v3"')


# --- data ---------------------------------------------------------------------------------------------


def mixed(seed: int, n: int = 300, classes: int = 2, names=PLAIN, values=("v1", "v2", "v3")):
    """A numeric feature, a tied numeric feature with NaN cells, a nominal feature with missing
    cells; labels from a noisy score of all three (2 or 3 classes)."""
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n)
    x1 = np.round(rng.random(n) * 4) / 4
    x1[rng.random(n) < 0.2] = np.nan
    a = rng.choice(np.array(values, dtype=object), n)
    a[rng.random(n) < 0.1] = None
    band = 2.0 * (np.abs(x0 - 0.3) < 0.8)  # a band: some x0 <= t tests lean away from their class
    score = band + np.where(np.isnan(x1), 0.5, 2 * x1) + 1.5 * (a == values[1]) + rng.normal(0, 0.5, n)
    cuts = np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1])
    y = np.array(["c0", "c1", "c2"], dtype=object)[np.searchsorted(cuts, score)]
    frame = pd.DataFrame({names[0]: x0, names[1]: x1, names[2]: a})
    return frame, y


def edge_rows(rb, frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Rows of ``frame`` with one cell set to each rule's threshold and its two neighbouring doubles,
    to each nominal value, and to missing (three base rows each), plus an all-missing row."""
    rng = np.random.default_rng(seed)
    edits = []
    for r in rb.rules:
        c = r.condition
        if rb.feature(c.feature).kind == "nominal":
            edits.append((c.feature, c.value))
        else:
            edits += [(c.feature, v) for v in (np.nextafter(c.value, -np.inf), c.value, np.nextafter(c.value, np.inf))]
    edits += [(f.name, None if f.kind == "nominal" else np.nan) for f in rb.features]
    rows = []
    for name, value in edits:
        for i in rng.integers(0, len(frame), 3):
            row = frame.iloc[int(i)].to_dict()
            row[name] = value
            rows.append(row)
    rows.append({f.name: None if f.kind == "nominal" else np.nan for f in rb.features})
    out = pd.DataFrame(rows, columns=list(frame.columns))
    for f in rb.features:
        if f.kind != "nominal":
            out[f.name] = out[f.name].astype(float)
    return out


def points(rb, frame: pd.DataFrame) -> np.ndarray:
    """The scorecard computed from its own rules, independently of the engine: the default's
    distribution, plus ``weight * distribution`` (one-hot label when absent) where the test holds
    (a missing value never holds)."""
    classes = list(rb.classes)
    P = np.tile(np.asarray(rb.default.distribution, dtype=float), (len(frame), 1))
    for r in rb.rules:
        c = r.condition
        if rb.feature(c.feature).kind == "nominal":
            hit = np.array([v == c.value for v in frame[c.feature].tolist()], dtype=bool)
        else:
            x = frame[c.feature].to_numpy(dtype=float)
            with np.errstate(invalid="ignore"):
                hit = x <= c.value if c.op == "<=" else x > c.value
        d = r.conclusion.distribution
        vec = np.asarray(d, dtype=float) if d is not None else np.eye(len(classes))[classes.index(r.conclusion.label)]
        P[hit] += r.weight * vec
    return P


def labels_of(rb, P: np.ndarray) -> list:
    return [rb.classes[k] for k in np.argmax(P, axis=1)]  # argmax: ties to the first class


def learn(frame, y, **kw):
    return ScorecardLearner(**kw).fit(frame, y).rule_base_


# --- 1. candidate scores -----------------------------------------------------------------------------


def brute_scores(M: np.ndarray, tests, G: np.ndarray, W: np.ndarray, lam: float) -> np.ndarray:
    """Per test, the square root of the Newton gain summed over the columns: per column ``c``, the
    fall of the quadratic model with weights ``W_c`` and gradient ``G_c`` when the indicator ``b``
    (NaN never holds; penalty ``lam`` on its weight) joins a free intercept, from an explicit 2 x 2
    solve less the intercept's own gain."""
    out = []
    for j, op, t in tests:
        col = M[:, j]
        with np.errstate(invalid="ignore"):
            b = (col <= t if op == "<=" else col > t if op == ">" else col == t).astype(float)
        X = np.column_stack([np.ones(b.size), b])
        gain = 0.0
        for c in range(G.shape[1]):
            g, w = G[:, c], W[:, c]
            H = (X * w[:, None]).T @ X + np.diag([0.0, lam])
            gain += g @ X @ np.linalg.solve(H, X.T @ g) - g.sum() ** 2 / w.sum()
        out.append(np.sqrt(max(gain, 0.0)))
    return np.array(out)


@st.composite
def candidate_data(draw):
    """A matrix of numeric (ties, NaN, some continuous) and nominal-code columns, residuals ``Y - P``
    and Newton weights ``P (1 - P)`` of 2 (one column) or 3 classes, a penalty, and the candidate
    limits."""
    n = draw(st.integers(3, 40))
    nominal = draw(st.lists(st.booleans(), min_size=1, max_size=4))
    cols = []
    for nom in nominal:
        pool = [0.0, 1.0, 2.0, 4.0] if nom else [-1.5, 0.0, 0.1, 0.2, 0.3, 1.0, 2.5]
        cell = st.sampled_from(pool + [np.nan])
        if not nom:
            cell = st.one_of(cell, st.floats(-10, 10))
        cols.append(draw(st.lists(cell, min_size=n, max_size=n)))
    M = np.array(cols, dtype=float).T
    K = draw(st.sampled_from([2, 3]))
    yc = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    raw = draw(hnp.arrays(np.float64, (n, K), elements=st.floats(0.01, 1.0)))
    P = raw / raw.sum(axis=1, keepdims=True)
    Y = np.eye(K)[yc]
    G, W = (Y - P, P * (1 - P)) if K > 2 else ((Y - P)[:, 1:], (P * (1 - P))[:, 1:])
    lam = draw(st.sampled_from([0.25, 1.0, 4.0]))
    return M, nominal, G, W, lam, draw(st.integers(1, 8)), draw(st.integers(1, 3))


def check_tests(M: np.ndarray, nominal, tests, max_cuts: int, min_rows: int) -> None:
    """Each numeric ``<=`` threshold splits two neighbouring values; ``>`` mirrors them exactly where
    the column has missing cells; ``=`` tests name a code seen often enough."""
    n = M.shape[0]
    for j, nom in enumerate(nominal):
        col = M[:, j]
        mine = [(op, t) for jj, op, t in tests if jj == j]
        if nom:
            assert all(op == "=" for op, _ in mine)
            codes = col[~np.isnan(col)]
            want = sorted(v for v in set(codes.tolist()) if min_rows <= np.sum(codes == v) <= n - min_rows)
            assert [t for _, t in mine] == want
            continue
        has_missing = bool(np.isnan(col).any())
        vals = np.unique(col[~np.isnan(col)])
        for op in ("<=", ">"):
            ts = [t for o, t in mine if o == op]
            if op == ">" and not has_missing:
                assert ts == []
                continue
            assert len(ts) <= max_cuts and len(set(ts)) == len(ts)
            hold = (lambda t: np.sum(col <= t)) if op == "<=" else (lambda t: np.sum(col > t))
            for t in ts:
                k = np.searchsorted(vals, t, side="right")
                assert 0 < k < vals.size and vals[k - 1] <= t < vals[k]
                assert min_rows <= hold(t) <= n - min_rows
            valid = [vals[k] for k in range(vals.size - 1) if min_rows <= hold(vals[k]) <= n - min_rows]
            if len(valid) <= max_cuts:
                assert len(ts) == len(valid)


@settings(deadline=None, max_examples=lane_examples(200))
@given(candidate_data())
def test_candidate_scores_equal_the_brute_force(case):
    M, nominal, G, W, lam, max_cuts, min_rows = case
    cands = Candidates(M, nominal, max_cuts, min_rows)
    check_tests(M, nominal, cands.tests, max_cuts, min_rows)
    # the scores are square roots of gains: compare the gains, since near 0 a root turns a rounding
    # difference of 1e-14 into 1e-7 (a 1.19e-7 against 0.0 failed at atol 1e-7)
    np.testing.assert_allclose(cands.scores(G, W, lam) ** 2, brute_scores(M, cands.tests, G, W, lam) ** 2,
                               rtol=1e-7, atol=1e-12)
    for i, (j, op, t) in enumerate(cands.tests):
        with np.errstate(invalid="ignore"):
            want = M[:, j] <= t if op == "<=" else M[:, j] > t if op == ">" else M[:, j] == t
        assert cands.indicator(i).tolist() == want.astype(float).tolist()


def test_greater_tests_hold_on_min_rows():
    """``min_rows``: a test must hold on at least that many rows, ``x > t`` included."""
    M = np.array([[1.0, 2.0, 3.0] + [np.nan] * 10]).T
    cands = Candidates(M, [False], 64, 2)
    assert all(cands.indicator(i).sum() >= 2 for i in range(len(cands.tests)))


# --- 2. the refit ------------------------------------------------------------------------------------


def design(seed: int, n: int = 300, p: int = 5, K: int = 2):
    """An intercept and ``p`` 0/1 indicator columns, labels of ``K`` classes drawn from a softmax."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, p))
    B = np.column_stack([np.ones(n), (Z > rng.normal(0, 0.7, p)).astype(float)])
    W = rng.normal(0, 1.5, (p + 1, K))
    S = B @ W
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    yc = np.array([rng.choice(K, p=row) for row in P])
    return B, yc


def sklearn_fit(B: np.ndarray, yc: np.ndarray, l2: float):
    linear = pytest.importorskip("sklearn.linear_model")
    return linear.LogisticRegression(C=l2, tol=1e-12, max_iter=100_000).fit(B[:, 1:], yc)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("l2", [0.1, 1.0, 10.0])
def test_binary_refit_is_scikit_learns_logistic_regression(seed, l2):
    B, yc = design(seed)
    coef = fit_logistic(B, (yc == 1).astype(float)[:, None], l2)
    est = sklearn_fit(B, yc, l2)
    np.testing.assert_allclose(coef[1:, 0], est.coef_[0], atol=1e-5)
    np.testing.assert_allclose(coef[0, 0], est.intercept_[0], atol=1e-5)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("l2", [0.1, 1.0, 10.0])
def test_multinomial_refit_is_scikit_learns_logistic_regression(seed, l2):
    """Weights are penalised, so the same in both; intercepts are free up to a shared shift: compared
    centred, and through the probabilities."""
    B, yc = design(seed, K=3)
    coef = fit_logistic(B, np.eye(3)[yc], l2)
    est = sklearn_fit(B, yc, l2)
    np.testing.assert_allclose(coef[1:], est.coef_.T, atol=1e-5)
    np.testing.assert_allclose(coef[0] - coef[0].mean(), est.intercept_ - est.intercept_.mean(), atol=1e-5)
    Z = B @ coef
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    np.testing.assert_allclose(P / P.sum(axis=1, keepdims=True), est.predict_proba(B[:, 1:]), atol=1e-6)


# --- 3. the written rule base ------------------------------------------------------------------------


CASES = [(0, 2), (1, 3), (2, 2), (3, 3), (8, 2)]  # seed 8: a `<=` test written as `>`


def check_shape(rb, max_terms: int) -> None:
    """Positive weights, a non-negative default, one literal per rule, at most ``max_terms`` rules;
    weights and distributions to DIGITS significant digits (the written card is the measured one)."""
    assert rb.semantics == "weighted-sum" and rb.task == "classification"
    assert 0 < len(rb.rules) <= max_terms
    assert min(rb.default.distribution) >= 0 and len(rb.default.distribution) == len(rb.classes)
    assert all(digits_of(Decimal(repr(float(w)))) <= DIGITS for w in rb.default.distribution)
    for r in rb.rules:
        assert isinstance(r.condition, Compare) and r.condition.op in ("<=", ">", "=")
        assert r.weight > 0
        assert all(digits_of(Decimal(repr(float(w)))) <= DIGITS for w in (r.weight, *(r.conclusion.distribution or ())))
        d = r.conclusion.distribution
        if d is not None:
            assert min(d) >= 0 and abs(sum(d) - 1) < 1e-3 and rb.classes[int(np.argmax(d))] == r.conclusion.label


@pytest.mark.parametrize("seed, classes", CASES)
def test_rule_base_is_its_own_arithmetic_on_thresholds_and_missing_cells(seed, classes):
    frame, y = mixed(seed, classes=classes)
    rb = learn(frame, y, max_terms=8)
    check_shape(rb, 8)
    rows = pd.concat([frame, edge_rows(rb, frame, seed)], ignore_index=True)
    P = points(rb, rows)
    assert rb.predict(rows).tolist() == labels_of(rb, P)
    np.testing.assert_allclose(rb.predict_proba(rows), P / P.sum(axis=1, keepdims=True), rtol=0, atol=1e-12)
    again = dsl.loads(dsl.dumps(rb))
    assert again.predict(rows).tolist() == rb.predict(rows).tolist()
    assert np.array_equal(again.predict_proba(rows), rb.predict_proba(rows))


def breast_cancer():
    datasets = pytest.importorskip("sklearn.datasets")
    d = datasets.load_breast_cancer(as_frame=True)
    return d.data, d.target.to_numpy()


@pytest.mark.parametrize("seed, classes", CASES + [("breast_cancer", 2)])
def test_rule_base_is_the_fitted_model(seed, classes):
    """Class differences of the written points are the refit's logits (up to the 4-digit rounding of
    the weights), and the refit is scikit-learn's L2 logistic regression on the chosen tests.
    (breast_cancer: complete features, some of its twelve tests written as ``>``.)"""
    real = seed == "breast_cancer"
    frame, y = breast_cancer() if real else mixed(seed, classes=classes)
    terms = 12 if real else 8
    rb = learn(frame, y, max_terms=terms)
    M = engine.matrix(rb, frame)
    cands = Candidates(M, [f.kind == "nominal" for f in rb.features], 64, 2)
    yc = class_codes(list(y), list(rb.classes))
    chosen, coef = select(cands, yc, classes, terms, 1.0)
    assert [(rb.features[cands.tests[i][0]].name) for i in chosen] == [r.condition.feature for r in rb.rules]
    assert not real or any(r.condition.op == ">" for r in rb.rules)
    B = np.column_stack([np.ones(len(frame))] + [cands.indicator(i) for i in chosen])
    Z = B @ coef if classes > 2 else np.column_stack([np.zeros(len(frame)), B @ coef])
    P = points(rb, frame)
    tol = 1e-3 * (1 + np.abs(coef).sum())
    np.testing.assert_allclose(P - P[:, :1], Z - Z[:, :1], atol=tol)
    est = sklearn_fit(B, yc, 1.0)
    weights = coef[1:, 0] if classes == 2 else coef[1:].T
    np.testing.assert_allclose(weights, est.coef_[0] if classes == 2 else est.coef_, atol=1e-4)


# --- 4. thresholds -------------------------------------------------------------------------------------


def digits_of(x: Decimal) -> int:
    """Significant digits of an exact decimal (0 has one)."""
    s = str(abs(int(x.scaleb(-x.as_tuple().exponent)))).rstrip("0") if x != 0 else "0"
    return max(1, len(s))


def fewest_digits(lo: float, hi: float) -> int:
    """The fewest significant digits of a decimal ``s`` with ``lo <= float(s) < hi``: on every grid
    ``10^q`` the nearest points to ``lo`` either side (the shortest such decimal is one of them)."""
    best = 17
    exps = [Decimal(v).adjusted() for v in (lo, hi) if v != 0] or [0]
    for q in range(max(exps) + 2, min(exps) - 19, -1):
        for rounding in (ROUND_FLOOR, ROUND_CEILING):
            s = Decimal(lo).scaleb(-q).to_integral_value(rounding=rounding).scaleb(q)
            if lo <= float(s) < hi:
                best = min(best, digits_of(s))
    return best


finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)
short = st.builds(lambda m, e: float(f"{m}e{e}"), st.integers(-999, 999), st.integers(-12, 12))


@st.composite
def cut_pairs(draw):
    """Two neighbouring values: arbitrary doubles, short decimals, adjacent doubles, or neighbours on
    a decimal grid (data read from text)."""
    if draw(st.booleans()):
        k, d = draw(st.integers(-999, 999)), draw(st.integers(0, 6))
        return float(f"{k}e-{d}"), float(f"{k + 1}e-{d}")
    lo = draw(st.one_of(finite, short))
    hi = draw(st.one_of(finite, short, st.just(float(np.nextafter(lo, np.inf)))))
    lo, hi = min(lo, hi), max(lo, hi)
    if lo == hi:
        hi = float(np.nextafter(lo, np.inf))
    return lo, hi


@settings(deadline=None, max_examples=lane_examples(500))
@given(cut_pairs())
def test_short_cut_is_the_shortest_decimal_between_two_values(pair):
    lo, hi = pair
    t = short_cut(lo, hi)
    assert lo <= t < hi
    assert digits_of(Decimal(repr(t))) <= fewest_digits(lo, hi)


def test_short_cut_examples():
    """Data on a grid of short decimals gets the grid's own values as thresholds."""
    assert [short_cut(lo, hi) for lo, hi in [(0.1, 0.15), (0.2, 0.3), (0.3, 0.4), (0.95, 1.05), (-0.15, -0.1),
                                             (1.0, 1.0000001), (0.0, 1e-300)]] == [
        0.1, 0.2, 0.3, 1.0, -0.15, 1.0, 0.0]


# --- 5. behaviour -------------------------------------------------------------------------------------


def planted(seed: int, n: int, grid: bool):
    """``y = x0 <= 0.3`` without noise, and two irrelevant features; ``grid``: x0 on a 0.1 grid."""
    rng = np.random.default_rng(seed)
    x0 = rng.integers(0, 10, n) / 10 if grid else rng.random(n)
    X = pd.DataFrame({"x0": x0, "x1": rng.random(n), "x2": rng.normal(size=n)})
    return X, np.where(X.x0 <= 0.3, "pos", "neg")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_threshold_is_exact_and_stops_early(seed):
    X, y = planted(seed, 1000, grid=True)
    rb = learn(X, y)
    check_shape(rb, 12)
    assert len(rb.rules) < 12  # STOP_GAIN: every row right, and a further test barely helps
    assert any(r.condition == Compare(feature="x0", op="<=", value=0.3) for r in rb.rules)
    assert (rb.predict(X) == y).all()
    fresh, _ = planted(seed + 100, 2000, grid=False)
    assert (rb.predict(fresh) == np.where(fresh.x0 <= 0.3, "pos", "neg")).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_continuous_threshold_is_one_test(seed):
    """60 rows: every cut is a candidate, so the concept's own cut is one; one test is exact."""
    X, y = planted(seed, 60, grid=False)
    rb = learn(X, y)
    assert len(rb.rules) == 1 and rb.rules[0].condition.feature == "x0"
    assert (rb.predict(X) == y).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_continuous_threshold_is_exact_on_many_rows(seed):
    """1,000 rows, continuous x0: the cut at 0.3 is not among the 64 scored quantile cuts; refine
    moves the chosen cut to the best one between its neighbours, so one exact rule is found."""
    X, y = planted(seed, 1000, grid=False)
    rb = learn(X, y)
    assert (rb.predict(X) == y).all() and len(rb.rules) < 12


def test_nominal_concept_uses_an_equality_test():
    rng = np.random.default_rng(5)
    n = 1000
    X = pd.DataFrame({"a": rng.choice(["v1", "v2", "v3"], n), "x1": rng.random(n)})
    y = np.where(X.a == "v2", "yes", "no")
    rb = learn(X, y)
    assert Compare(feature="a", op="=", value="v2") in [r.condition for r in rb.rules]
    assert (rb.predict(X) == y).all()


def test_three_classes():
    frame, y = mixed(7, n=600, classes=3)
    learner = ScorecardLearner().fit(frame, y)
    rb = learner.rule_base_
    check_shape(rb, 12)
    assert rb.classes == ("c0", "c1", "c2") and list(learner.classes_) == ["c0", "c1", "c2"]
    assert (learner.predict(frame) == y).mean() >= 0.75
    P = learner.predict_proba(frame)
    assert P.shape == (600, 3) and np.allclose(P.sum(axis=1), 1)


def test_missing_cells_never_fire_a_test():
    """x1 decides the class where present; its tests (``<=`` and ``>``) never hold on a missing x1."""
    rng = np.random.default_rng(3)
    n = 800
    x1 = rng.random(n)
    x1[rng.random(n) < 0.3] = np.nan
    X = pd.DataFrame({"x0": rng.random(n), "x1": x1})
    y = np.where(np.isnan(x1), X.x0 > 0.5, x1 > 0.5).astype(int)
    rb = learn(X, y)
    on_x1 = [i for i, r in enumerate(rb.rules) if r.condition.feature == "x1"]
    assert on_x1
    match = engine.match_matrix(rb, engine.matrix(rb, X))
    assert not match[np.isnan(x1)][:, on_x1].any()
    assert match[~np.isnan(x1)][:, on_x1].any(axis=0).all()
    assert (rb.predict(X) == y).mean() >= 0.97


def test_one_term():
    frame, y = mixed(0)
    assert len(learn(frame, y, max_terms=1).rules) <= 1


def test_a_proxy_chosen_first_is_exchanged():
    """y = x0 > 0.5 or x1 > 0.5; p = x0 + x1 is the best single test, so forward selection of two
    takes a cut of p first; the exchange pass swaps it for the other half of the concept."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x0": rng.random(400).round(3), "x1": rng.random(400).round(3), "x3": rng.random(400).round(3)})
    X.insert(2, "p", (X.x0 + X.x1).round(3))
    y = ((X.x0 > 0.5) | (X.x1 > 0.5)).astype(int).to_numpy()
    rb = learn(X, y, max_terms=2)
    assert sorted(r.condition.feature for r in rb.rules) == ["x0", "x1"]
    assert (np.asarray(rb.predict(X)).astype(int) == y).all()


@pytest.mark.parametrize("seed, classes", [(0, 2), (3, 2), (2, 3)])
def test_the_exchange_never_raises_the_penalised_loss(seed, classes):
    """The chosen tests' refit loss is at most that of as many first tests as forward selection grew."""
    frame, y = mixed(seed, classes=classes)
    rb = learn(frame, y, max_terms=12)
    M = engine.matrix(rb, frame)
    cands = Candidates(M, [f.kind == "nominal" for f in rb.features], 64, 2)
    yc = class_codes(list(y), list(rb.classes))
    chosen, coef = select(cands, yc, classes, 12, 1.0)
    grown, coefs, B = grow(cands, yc, classes, 12, 1.0)
    Y = targets(yc, classes)
    B_chosen = np.column_stack([np.ones(len(frame))] + [cands.indicator(i) for i in chosen])
    size = len(chosen)
    assert 1 <= size <= len(grown)
    assert objective(B_chosen, Y, coef, 1.0) <= objective(B[:, :size + 1], Y, coefs[size], 1.0) + 1e-9


@pytest.mark.parametrize("y, message", [
    (["a"] * 10, "two classes"),
    (["a", "b", None, "a", "b", "a", "b", "a", "b", "a"], "missing labels"),
    ([0.0, 1.0, np.nan, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0], "missing labels"),
])
def test_bad_labels_are_errors(y, message):
    X = pd.DataFrame({"x": np.arange(10.0)})
    with pytest.raises(RulekitError, match=message):
        ScorecardLearner().fit(X, pd.Series(y, dtype=object))


def test_no_terms_is_an_error():
    frame, y = mixed(0)
    with pytest.raises(RulekitError, match="at least one term"):
        ScorecardLearner(max_terms=0).fit(frame, y)


# --- 6. real data ---------------------------------------------------------------------------------


def test_breast_cancer_floor():
    """One stratified 80/20 split: a floor on held-out accuracy at MAX_TERMS rules at most (not a target)."""
    datasets = pytest.importorskip("sklearn.datasets")
    split = pytest.importorskip("sklearn.model_selection").train_test_split
    d = datasets.load_breast_cancer(as_frame=True)
    Xtr, Xte, ytr, yte = split(d.data, d.target, test_size=0.2, stratify=d.target, random_state=0)
    rb = learn(Xtr, ytr)
    assert len(rb.rules) <= MAX_TERMS
    assert (rb.predict(Xte) == yte.to_numpy()).mean() >= 0.92


# --- 7. the CLI -------------------------------------------------------------------------------------


@pytest.fixture
def data_dir(tmp_path):
    frame, y = mixed(0)
    frame.assign(y=y).to_csv(tmp_path / "data.csv", index=False)
    frame.assign(y=y).to_csv(tmp_path / "p.csv", index=False)
    return tmp_path


def test_cli_writes_a_scorecard(data_dir, run):
    r = run("rules", "data.csv", "--target", "y", "--scorecard", "--terms", "5", "-o", "out.rules", cwd=data_dir)
    assert r.returncode == 0, r.stderr
    rb = dsl.loads((data_dir / "out.rules").read_text())
    check_shape(rb, 5)
    said = re.search(r"scorecard: (\d+) rules?\b", r.stderr)
    assert said and int(said.group(1)) == len(rb.rules), r.stderr
    assert run("check", "out.rules", cwd=data_dir).returncode == 0


@pytest.mark.parametrize("args", [
    ["--scorecard", "--induce"],
    ["--scorecard", "--prune-data", "p.csv"],
    ["--scorecard", "--dnf"],
    ["--scorecard", "--order", "vote"],
    ["--terms", "3"],
    ["--scorecard", "--terms", "0"],
    ["--scorecard", "NO_TARGET"],
])
def test_cli_bad_combinations_are_one_line_errors(data_dir, run, args):
    target = [] if "NO_TARGET" in args else ["--target", "y"]
    r = run("rules", "data.csv", *target, *[a for a in args if a != "NO_TARGET"], "-o", "out.rules", cwd=data_dir)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert not (data_dir / "out.rules").exists()


def test_cli_hostile_names_end_to_end(tmp_path, run):
    frame, y = mixed(1, names=HOSTILE, values=HOSTILE_VALUES)
    frame.assign(**{"the class": y}).to_csv(tmp_path / "data.csv", index=False)
    r = run("rules", "data.csv", "--target", "the class", "--scorecard", "-o", "out.rules", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert run("check", "out.rules", cwd=tmp_path).returncode == 0
    rb = dsl.loads((tmp_path / "out.rules").read_text())
    assert {f.name for f in rb.features} == set(HOSTILE)
    assert {r.condition.feature for r in rb.rules} == set(HOSTILE)
    back = pd.read_csv(tmp_path / "data.csv")
    want = ScorecardLearner().fit(back.drop(columns="the class"), back["the class"]).rule_base_
    assert dsl.dumps(rb) == dsl.dumps(want.model_copy(update={"target": rb.target, "comments": rb.comments}))


# --- 8. backends ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_scorecard():
    frame, y = mixed(2, n=400, classes=3, names=HOSTILE, values=HOSTILE_VALUES)
    rb = learn(frame, y)
    assert {r.condition.feature for r in rb.rules} == set(HOSTILE)
    return rb, pd.concat([frame, edge_rows(rb, frame, 2)], ignore_index=True)


@pytest.mark.parametrize("name", ["python", "python-batch", "sqlite", "duckdb", "onnx", "onnx-double"])
def test_backends_agree_with_the_engine(hostile_scorecard, name):
    from rulekit import runtimes
    from rulekit.table import from_data

    rb, rows = hostile_scorecard
    try:
        got = runtimes.runner(name)(rb, from_data(rows, rb.features))
    except runtimes.Unavailable as err:
        pytest.skip(f"{name}: {err}")
    assert [str(v) for v in got.prediction] == [str(v) for v in rb.predict(rows)]
    np.testing.assert_allclose(got.proba, rb.predict_proba(rows), rtol=0, atol=1e-12)


def test_float_onnx_agrees_with_the_engine_on_float_inputs(hostile_scorecard):
    """Float input: the engine on the float32-cast rows; probabilities to 1e-6, labels the same
    except where the engine's two best classes are within 1e-6."""
    from rulekit import runtimes
    from rulekit.table import from_data

    rb, rows = hostile_scorecard
    try:
        got = runtimes.runner("onnx-float")(rb, from_data(rows, rb.features))
    except runtimes.Unavailable as err:
        pytest.skip(f"onnx-float: {err}")
    M = engine.matrix(rb, rows).astype(np.float32).astype(np.float64)
    P = engine.proba_matrix(rb, M)
    np.testing.assert_allclose(got.proba, P, rtol=0, atol=1e-6)
    top = np.sort(P, axis=1)
    close = top[:, -1] - top[:, -2] <= 1e-6
    want = engine.predict_matrix(rb, M)
    differ = np.array([str(a) != str(b) for a, b in zip(got.prediction, want)])
    assert not (differ & ~close).any()
