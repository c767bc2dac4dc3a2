"""`rulekit.diffing`: rows against a row-by-row oracle, regions by sampling points inside and outside."""

from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.diffing import diff
from rulekit.diffing.regions import RegionsSkipped, UNSEEN_VALUE, disagreements, merged_features, witness
from rulekit.ir.data import to_matrix
from rulekit.errors import RulekitError
from rulekit.rules import engine
from rulekit.rules.base import Compare, Linear, RuleBase
from rulekit.rules.boxes import NomSet, iter_literals
from rulekit.testing import strategies as S

from tests.marks import lane_examples


@st.composite
def pairs(draw):
    """Two rule bases over the same features (plain numbers and names, so rows are easy to build)."""
    task = draw(st.sampled_from(["classification", "classification", "regression"]))
    classes = ("no", "yes", "maybe")[:draw(st.integers(2, 3))] if task == "classification" else None
    feats = draw(S.features(min_size=1, max_size=3))
    out = []
    for _ in range(2):
        rs = draw(st.lists(S.rules(task, classes, feats), max_size=5))
        kw = dict(task=task, classes=classes, features=feats, rules=tuple(rs),
                  semantics=draw(st.sampled_from(["first-hit", "first-hit", "vote", "weighted-sum"])),
                  precision=draw(st.sampled_from(["float32", "float64"])))
        if draw(st.booleans()):
            kw["default"] = draw(S.conclusions(task, classes))
        out.append(RuleBase(**kw))
    if draw(st.booleans()):  # B an edit of A: most rules shared
        a = out[0]
        keep = draw(st.lists(st.integers(0, max(0, len(a.rules) - 1)), max_size=len(a.rules)))
        extra = draw(st.lists(S.rules(task, classes, feats), max_size=2))
        out[1] = a.model_copy(update={"rules": tuple(a.rules[i] for i in keep if a.rules) + tuple(extra)})
    return out


def _probe_rows(a: RuleBase, b: RuleBase, feats, n: int, seed: int) -> pd.DataFrame:
    """Rows on and next to every threshold, missing and unseen values, and random combinations."""
    rng = np.random.default_rng(seed)
    values: dict[str, list] = {}
    for f in feats:
        if f.kind == "nominal":
            values[f.name] = list(f.domain) + [UNSEEN_VALUE, None]
            continue
        vs = [0.0, math.nan, -1.0, 1.0]
        for rb in (a, b):
            for r in rb.rules:
                for lit in iter_literals(r.condition):
                    if isinstance(lit, Compare) and lit.feature == f.name and isinstance(lit.value, float):
                        t = lit.value
                        f32 = float(np.float32(t)) if abs(t) < 3.4e38 else t
                        vs += [t, math.nextafter(t, -math.inf), math.nextafter(t, math.inf), f32,
                               math.nextafter(f32, math.inf), math.nextafter(f32, -math.inf)]
        values[f.name] = vs
    cols = {}
    for f in feats:
        pool = values[f.name]
        pick = rng.integers(0, len(pool), n)
        col = [pool[i] for i in pick]
        cols[f.name] = pd.Series(col, dtype=object) if f.kind == "nominal" else np.asarray(col, np.float64)
    # names as an object Index: pandas 3 with pyarrow cannot store a lone surrogate as a column name
    frame = pd.DataFrame(dict(enumerate(cols.values())))
    frame.columns = pd.Index(list(cols), dtype=object)
    return frame


def _inside(box, M: np.ndarray, i: int) -> bool:
    for k, c in box.items.items():
        v = M[i, k]
        if isinstance(c, NomSet):
            ok = c.missing if math.isnan(v) else int(v) in c.codes
        else:
            ok = c.missing if math.isnan(v) else any(lo.at <= v <= hi.at for lo, hi in c.intervals)
        if not ok:
            return False
    return True


def _row_differs(a, b, row: pd.DataFrame) -> bool:
    pa, pb = a.predict(row)[0], b.predict(row)[0]
    if a.task == "regression":
        return not (pa == pb or (pa != pa and pb != pb))
    if not (pa == pb or (pa != pa and pb != pb)):
        return True
    return not np.array_equal(a.predict_proba(row)[0], b.predict_proba(row)[0], equal_nan=True)


@settings(max_examples=lane_examples(120), deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs(), st.integers(0, 2**32 - 1))
def test_diff_against_a_row_by_row_oracle(pair, seed):
    a, b = pair
    for rb in pair:
        try:
            engine.validate(rb)
            engine.outcomes(rb)
        except RulekitError:
            assume(False)
    feats = merged_features(a.features, b.features)
    X = _probe_rows(a, b, feats, 60, seed)
    d = diff(a, b, X)
    oracle = [i for i in range(len(X)) if _row_differs(a, b, X.iloc[[i]])]
    got = sorted(set(d.rows.changed_rows) | set(_proba_rows(a, b, X)))
    assert got == oracle
    try:
        regions, features = disagreements(a, b)
    except RegionsSkipped:
        assert any(isinstance(x, Linear) for rb in (a, b) for r in rb.rules for x in iter_literals(r.condition))
        return
    assert d.regions_computed and d.n_regions == sum(len(r.boxes) for r in regions)
    M = to_matrix(X, features)
    for i in range(len(X)):  # a point is in a region exactly when the two sides disagree on it
        inside = any(_inside(bx, M, i) for r in regions for bx in r.boxes)
        assert inside == (i in oracle), (i, X.iloc[i].tolist())
    for r in regions:  # and a point taken inside each region disagrees
        W, reachable = witness(r.boxes, features)
        for j in range(len(W)):
            assert not reachable[j] or _row_differs(a, b, W.iloc[[j]])


def _proba_rows(a, b, X):
    if a.task == "regression":
        return []
    qa, qb = np.asarray(a.predict_proba(X)), np.asarray(b.predict_proba(X))
    if qa.shape != qb.shape:
        return []
    same = np.all((qa == qb) | (np.isnan(qa) & np.isnan(qb)), axis=1)
    return np.flatnonzero(~same).tolist()


def test_regions_of_two_sklearn_trees_match_their_rows():
    """Model sides (float32 thresholds, NaN routing): a point lies in a region exactly when the two
    trees' outputs differ, on rows at every threshold, its float32/float64 neighbours and NaN."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    trees = [DecisionTreeClassifier(max_depth=4, random_state=s).fit(X[s::2], y[s::2]) for s in (0, 1)]
    a, b = [rulekit.from_sklearn(t) for t in trees]
    d = diff(a, b)
    assert d.regions_computed and d.n_regions > 0
    regions, features = disagreements(a, b)
    cols = []
    for j in range(3):
        ts = [t for tr in trees for t, f in zip(tr.tree_.threshold, tr.tree_.feature) if f == j]
        vs = [math.nan, 0.0]
        for t in ts:
            f32 = float(np.float32(t))
            vs += [t, math.nextafter(t, -math.inf), math.nextafter(t, math.inf), f32,
                   float(np.nextafter(np.float32(t), np.float32(np.inf))),
                   float(np.nextafter(np.float32(t), np.float32(-np.inf)))]
        cols.append(rng.choice(np.asarray(vs), 3000))
    Z = np.column_stack(cols)
    differs = (a.predict(Z) != b.predict(Z)) | np.any(a.predict_proba(Z) != b.predict_proba(Z), axis=1)
    M = to_matrix(Z, features)
    inside = np.array([any(_inside(bx, M, i) for r in regions for bx in r.boxes) for i in range(len(Z))])
    assert differs.any() and (~differs).any()
    assert np.array_equal(inside, differs)


@pytest.mark.parametrize("kind", [pytest.param("random-forest", marks=pytest.mark.slow), "boosting"])
def test_regions_of_small_forests_match_their_rows(kind):
    """Ensembles small enough to overlay (3-4 trees a side, one tree changed) get exact regions: a
    point lies in one exactly when the two models' outputs differ, on rows at every threshold and its
    float64/float32 neighbours and NaN."""
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier

    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    make = {"random-forest": lambda s: RandomForestClassifier(3, max_depth=3, random_state=s),
            "boosting": lambda s: GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=s)}[kind]
    first, other = make(0).fit(X, y), make(1).fit(X, y)
    second = copy.deepcopy(first)  # the same ensemble with its last tree changed
    if kind == "random-forest":
        second.estimators_[-1] = other.estimators_[-1]
    else:  # one leaf of the last tree scores more
        tree = second.estimators_[-1, 0].tree_
        tree.value[int(np.flatnonzero(tree.children_left == -1)[0])] += 0.5
    fits = [first, second]
    a, b = [rulekit.from_sklearn(m) for m in fits]
    d = diff(a, b)
    assert d.regions_computed and d.n_regions > 0, d.regions_note
    regions, features = disagreements(a, b)
    trees = [e for m in fits for e in np.ravel(m.estimators_)]
    cols = []
    for j in range(3):
        vs = [math.nan, 0.0]
        for tr in trees:
            for t, f in zip(tr.tree_.threshold, tr.tree_.feature):
                if f == j:
                    f32 = float(np.float32(t))
                    vs += [t, math.nextafter(t, -math.inf), math.nextafter(t, math.inf), f32,
                           float(np.nextafter(np.float32(t), np.float32(np.inf)))]
        cols.append(rng.choice(np.asarray(vs), 1000))
    Z = np.column_stack(cols)
    differs = (a.predict(Z) != b.predict(Z)) | np.any(a.predict_proba(Z) != b.predict_proba(Z), axis=1)
    M = to_matrix(Z, features)
    inside = np.array([any(_inside(bx, M, i) for r in regions for bx in r.boxes) for i in range(len(Z))])
    assert differs.any() and (~differs).any()
    assert np.array_equal(inside, differs)


def test_big_forests_say_why_regions_are_not_computed():
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] > 0).astype(int)
    a, b = [rulekit.from_sklearn(RandomForestClassifier(30, max_depth=4, random_state=s).fit(X, y)) for s in (0, 1)]
    d = diff(a, b, X)
    assert not d.regions_computed
    assert "cells" in d.regions_note and "--data" in d.regions_note and "as hard" in d.regions_note
    assert d.rows.changed == int(np.sum(a.predict(X) != b.predict(X)))
