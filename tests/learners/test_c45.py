"""C4.5: fractional instances for missing values (Quinlan's worked example), the missing branch,
pessimistic pruning (Quinlan's U_CF figures), numeric thresholds at every midpoint."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.learners import C45Classifier
from rulekit.learners import criteria as C
from rulekit.learners.pruning import add_errors
from tests.learners.util import describe, load


def _playgolf_with_unknown_outlook():
    """Quinlan (1993, ch. 3): the case (overcast, 72, 90, true, Play) with outlook unknown."""
    df = load("playgolf")
    row = df.index[(df.outlook == "overcast") & (df.temperature == "mild") & (df.humidity == "high")
                   & (df.wind == "strong")]
    assert len(row) == 1
    df.loc[row, "outlook"] = None
    return df


def test_fractional_gain_and_split_information_of_quinlans_example():
    df = _playgolf_with_unknown_outlook()
    gain, si = C.fractional_gain(df.outlook, df.play)
    assert gain == pytest.approx(0.199, abs=5e-4)  # 13/14 * (0.961 - 0.747)
    assert si == pytest.approx(1.809, abs=5e-4)
    assert gain / si == pytest.approx(0.110, abs=5e-4)


def test_fractional_instances_in_the_tree():
    df = _playgolf_with_unknown_outlook()
    est = C45Classifier(prune=None, min_samples_leaf=1, max_depth=1).fit(df[["outlook"]], df.play)
    t = est.flat_tree_
    assert t.gain[0] / t.weight[0] == pytest.approx(C.fractional_gain(df.outlook, df.play)[0], rel=1e-12)
    dom = est.model_.features[0].domain
    kids = {dom[j]: t.weight[t.child_start[0] + j] for j in range(len(dom))}
    assert kids == pytest.approx({"overcast": 3 + 3 / 13, "rainy": 5 + 5 / 13, "sunny": 5 + 5 / 13})
    assert t.weight[t.child_start[0]:t.child_start[0] + t.n_children[0]].sum() == pytest.approx(14.0)
    # the overcast leaf holds the fractional "yes": 3 + 3/13 of class yes
    overcast = t.child_start[0] + dom.index("overcast")
    assert t.stats[overcast].tolist() == pytest.approx([0.0, 3 + 3 / 13])
    # prediction: a missing outlook goes down the heaviest branch (rainy and sunny tie: the first)
    assert t.missing[0] == dom.index("rainy")
    assert est.predict_proba(pd.DataFrame({"outlook": [None]}))[0] == pytest.approx(
        est.predict_proba(pd.DataFrame({"outlook": ["rainy"]}))[0])


def test_full_c45_tree_with_missing_values_predicts_training_data():
    df = _playgolf_with_unknown_outlook()
    est = C45Classifier(prune=None, min_samples_leaf=1).fit(df.drop(columns="play"), df.play)
    assert est.score(df.drop(columns="play"), df.play) >= 13 / 14
    est.model_.validate()


def test_quinlan_pessimistic_figures():
    # U_25%(0, 6) = 0.206, U_25%(0, 9) = 0.143, U_25%(0, 1) = 0.750, U_25%(1, 16) = 0.157
    assert add_errors(6, 0, 0.25) / 6 == pytest.approx(0.206, abs=5e-4)
    assert add_errors(9, 0, 0.25) / 9 == pytest.approx(0.143, abs=5e-4)
    assert add_errors(1, 0, 0.25) == pytest.approx(0.750, abs=5e-4)
    assert (1 + add_errors(16, 1, 0.25)) / 16 == pytest.approx(0.157, abs=3e-3)  # normal approximation


def test_pessimistic_pruning_collapses_quinlans_subtree():
    # education spending = n: democrat (6), y: democrat (9), u: republican (1): the subtree's
    # estimated errors 6*0.206 + 9*0.143 + 1*0.750 = 3.27 exceed the leaf's 16*0.157 = 2.51
    X = pd.DataFrame({"education": ["n"] * 6 + ["y"] * 9 + ["u"]})
    y = ["democrat"] * 15 + ["republican"]
    grown = C45Classifier(prune=None).fit(X, y)
    assert describe(grown.model_) == {"education": {"n": "democrat", "u": "republican", "y": "democrat"}}
    pruned = C45Classifier().fit(X, y)
    assert describe(pruned.model_) == "democrat"
    assert pruned.get_n_leaves() == 1


def test_pessimistic_pruning_shrinks_noisy_trees_without_losing_accuracy():
    rng = np.random.default_rng(0)
    n = 1200
    X = pd.DataFrame({"a": rng.choice(list("pqrs"), n), "b": rng.normal(size=n), "c": rng.choice(list("xyz"), n)})
    clean = (X.a.isin(["p", "q"])) ^ (X.b > 0.3)
    y = np.where(clean ^ (rng.random(n) < 0.15), "pos", "neg")
    tr, te = slice(0, 800), slice(800, None)
    grown = C45Classifier(prune=None).fit(X[tr], y[tr])
    pruned = C45Classifier().fit(X[tr], y[tr])
    assert pruned.get_n_leaves() < grown.get_n_leaves() / 2
    assert pruned.score(X[te], y[te]) >= grown.score(X[te], y[te]) - 0.01


def test_numeric_thresholds_every_midpoint_and_reuse():
    """C4.5 finds the one threshold that separates, however many distinct values there are."""
    rng = np.random.default_rng(1)
    x = rng.permutation(np.arange(1000) * 0.37)
    y = ((x > 77.7) & (x <= 201.1)).astype(int)  # needs the numeric feature twice on a path
    est = C45Classifier(prune=None).fit(x.reshape(-1, 1), y)
    assert est.score(x.reshape(-1, 1), y) == 1.0
    t = est.flat_tree_
    thr = sorted(t.threshold[t.kind == 1])
    gaps = [(x[x <= c].max(), x[x > c].min()) for c in (77.7, 201.1)]
    assert thr == [float(C.readable_threshold(a, b)[0]) for a, b in gaps]
    assert [repr(float(t)) for t in thr] == ["77.9", "201.1"]  # the shortest decimals near each gap's middle
