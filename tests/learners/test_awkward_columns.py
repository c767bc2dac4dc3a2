"""Constant, single-value and all-missing columns (audit item 1): every learner fits next to them
and never tests them (CART's subset split crashed on a one-value domain; ID3 on a column with no
known value in a level)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import learners as L
from rulekit.cli import main
from rulekit.rules import to_rules
from rulekit.rules.induction import RuleInducer
from rulekit.rules.scorecard import ScorecardLearner
from rulekit.rules.walk import iter_literals

AWKWARD = ("ctext", "cnum", "mtext", "mnum", "half")


def _frame(n: int = 160, seed: int = 5) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Two informative numbers and the awkward columns: constant text, constant number, all-missing
    text and number, one value or missing (independent of the target)."""
    rng = np.random.default_rng(seed)
    x, z = rng.normal(size=n), rng.normal(size=n)
    X = pd.DataFrame({"x": x, "ctext": pd.Series(["K"] * n, dtype=object), "z": z,
                      "cnum": np.full(n, 7.0), "mtext": pd.Series([None] * n, dtype=object),
                      "mnum": np.full(n, np.nan),
                      "half": pd.Series([None if v else "Q" for v in rng.random(n) < 0.5], dtype=object)})
    return X, np.where(x + 0.4 * z > 0, "a", "b"), 2 * x + z


def _tested(est) -> set[str]:
    """Names of the columns some split of the fitted tree(s) tests (linear splits included)."""
    trees = getattr(est, "flat_trees_", None) or [est.flat_tree_]
    names = list(est.feature_names_in_)
    used: set[str] = set()
    for t in trees:
        split = t.kind != 0
        used |= {names[f] for f in t.feature[split] if f >= 0}
        for feats, _ in t.linear.values():
            used |= {names[int(f)] for f in feats}
    return used


CLASSIFIERS = {
    "cart": lambda: L.CARTClassifier(), "cart-entropy": lambda: L.CARTClassifier(criterion="entropy"),
    "cart-ccp": lambda: L.CARTClassifier(prune="cost-complexity"),
    "cart-lda": lambda: L.CARTClassifier(oblique="lda"), "cart-logistic": lambda: L.CARTClassifier(oblique="logistic"),
    "c45": lambda: L.C45Classifier(), "c45-lda": lambda: L.C45Classifier(oblique="lda"),
    "id3": lambda: L.ID3Classifier(),
    "bagging": lambda: L.BaggingClassifier(n_estimators=4, random_state=0),
    "forest": lambda: L.RandomForestClassifier(n_estimators=4, random_state=0),
    "extra": lambda: L.ExtraTreesClassifier(n_estimators=4, random_state=0),
}
REGRESSORS = {
    "cart-mse": lambda: L.CARTRegressor(), "cart-sdr": lambda: L.CARTRegressor(criterion="sdr"),
    "cart-lda": lambda: L.CARTRegressor(oblique="lda"),
    "forest": lambda: L.RandomForestRegressor(n_estimators=4, random_state=0),
    "extra": lambda: L.ExtraTreesRegressor(n_estimators=4, random_state=0),
}


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_classifier_fits_and_never_tests_an_awkward_column(name):
    X, y, _ = _frame()
    est = CLASSIFIERS[name]().fit(X, y)
    assert est.score(X, y) > 0.8
    assert _tested(est) and not _tested(est) & set(AWKWARD)


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_regressor_fits_and_never_tests_an_awkward_column(name):
    X, _, t = _frame()
    est = REGRESSORS[name]().fit(X, t)
    assert est.score(X, t) > 0.8
    assert _tested(est) and not _tested(est) & set(AWKWARD)


@pytest.mark.parametrize("learner", [lambda: RuleInducer(random_state=0), lambda: ScorecardLearner()],
                         ids=["induce", "scorecard"])
def test_rule_learners_fit_and_never_test_an_awkward_column(learner):
    X, y, _ = _frame()
    rb = learner().fit(X, y).rule_base_
    used = {lit.feature for r in rb.rules for lit in iter_literals(r.condition)}
    assert used and not used & set(AWKWARD)


@pytest.mark.parametrize("algorithm,task", [("cart", "classification"), ("cart", "regression"),
                                            ("c45", "classification"), ("id3", "classification")])
def test_fit_command_with_a_constant_text_column(tmp_path, capsys, algorithm, task):
    X, y, t = _frame(n=60)
    X["target"] = y if task == "classification" else t
    X.to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(SystemExit) as ex:
        main(["fit", str(tmp_path / "d.csv"), "--target", "target", "--algorithm", algorithm,
              "--task", task, "-o", str(tmp_path / "m.json")])
    assert ex.value.code == 0, capsys.readouterr().err
    rb = to_rules(rulekit.load(tmp_path / "m.json"))
    assert {lit.feature for r in rb.rules for lit in iter_literals(r.condition)} <= {"x", "z"}
