"""The studio's impact equals the engine's predictions and `rulekit diff`'s row comparison exactly:
threshold rows, float neighbours, missing cells, a hostile feature name, every semantics."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit import dsl
from rulekit.diffing.rows import row_diff
from rulekit.rules import engine
from rulekit.studio.impact import Data, decided_by, impact, score
from rulekit.table import read_csv
from tests.studio import cases
from tests.marks import fast_cases

SEMANTICS = ["first-hit", "vote", "weighted-sum"]


@pytest.fixture
def data_file(tmp_path):
    def make(rb, n=3000, seed=0):
        path = tmp_path / "data.csv"
        cases.write_csv(path, cases.columns(rb, n, seed=seed))
        return path
    return make


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
    return a.tolist() == b.tolist()


@pytest.mark.parametrize("semantics", SEMANTICS)
@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_score_is_the_engine(semantics, precision, data_file):
    rb = cases.rulebase(60, semantics=semantics, precision=precision, seed=7)
    X = read_csv(data_file(rb))
    data = Data(X, "y")
    s = score(rb, data)
    labels, P = engine.predict_with_proba(rb, X)
    assert _same(s.predictions, labels)
    assert _same(s.proba, P)


@pytest.mark.parametrize("semantics", fast_cases(SEMANTICS, ["vote"]))
def test_impact_counts_are_rulekit_diffs(semantics, data_file):
    text = cases.text(40, semantics=semantics, seed=3)
    rb = dsl.loads(text)
    X = read_csv(data_file(rb))
    data = Data(X, "y")
    before = score(rb, data)
    checked = 0
    for k in range(25):
        edited = dsl.parse(cases.edit(text, k)).rulebase
        if edited is None:
            continue
        got = impact(before, score(edited, data), X["y"])
        want = row_diff(rb, edited, X, X["y"])
        assert got.changed == want.changed
        assert got.changed_rows == want.changed_rows
        assert got.proba_changed == want.proba_changed
        assert got.confusion == want.confusion
        checked += 1
    assert checked >= 15


def test_cached_masks_follow_the_feature_declarations(data_file):
    """The same condition under another precision is another test (float32 threshold rows)."""
    rb64 = cases.rulebase(30, seed=5, precision="float64")
    rb32 = rb64.model_copy(update={"precision": "float32"})
    X = read_csv(data_file(rb64))
    data = Data(X, "y")
    score(rb64, data)
    assert _same(score(rb32, data).predictions, engine.predict(rb32, X))


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_rule_table_counts_decided_and_correct_rows(semantics, data_file):
    rb = cases.rulebase(25, semantics=semantics, seed=11)
    X = read_csv(data_file(rb))
    data = Data(X, "y")
    s = score(rb, data)
    imp = impact(s, s, X["y"])
    assert imp.changed == 0
    y = np.asarray(X["y"], object)
    M = engine.matrix(rb, X)
    match = engine.match_matrix(rb, M)
    first = np.where(match.any(axis=1), match.argmax(axis=1), -1)
    for row in imp.rules:
        i = row.index
        if semantics == "first-hit":
            want = np.flatnonzero(first == i)
        elif i >= 0:
            want = np.flatnonzero(match[:, i])
        else:
            want = np.flatnonzero(~match.any(axis=1))
        assert decided_by(s, i).tolist() == want.tolist()
        assert row.decides == len(want)
        label = rb.rules[i].conclusion.label if i >= 0 else rb.default.label
        assert row.correct == int((y[want] == label).sum())
    if semantics == "first-hit":
        assert sum(r.decides for r in imp.rules) == imp.rows


def test_regression_rule_base(tmp_path):
    text = ("rulebase r\ntarget y: regression\nfeature x: numeric\ndefault 1.5\n"
            "if x <= 0.1 then 2.25\nif x > 0.7 then 0.125\n")
    edited_text = text.replace("x > 0.7", "x > 0.5")
    (tmp_path / "d.csv").write_text("x,y\n0.1,2\n0.1000000000000001,1\n0.6,0.125\n,3\n0.8,0\n")
    X = read_csv(tmp_path / "d.csv")
    data = Data(X, "y")
    a, b = dsl.loads(text), dsl.loads(edited_text)
    got = impact(score(a, data), score(b, data), X["y"])
    want = row_diff(a, b, X, X["y"])
    assert (got.changed, got.changed_rows) == (want.changed, want.changed_rows) == (1, [2])
    assert (got.mse_before, got.mse_after) == (want.mse_before, want.mse_after)
