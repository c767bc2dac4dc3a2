"""pandas' missing markers (``pd.NA`` of nullable Int64 / string columns, ``NaT``) are missing values
everywhere data is read: `fit` on Parquet, `rules --scorecard`, and the learners' feature inference
(rulekit.ir.data.is_missing_value, the one reading; a nullable column's NA was a category "<NA>"
or a pydantic error before)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.rules.features import infer_features
from rulekit.rules.induction import RuleInducer
from rulekit.rules.scorecard import ScorecardLearner


def _frame():
    return pd.DataFrame({"a": pd.array([1, 2, None, 4] * 30, dtype="Int64"),
                         "s": pd.array(["u", "v", None, "u"] * 30, dtype="string"),
                         "y": [0, 1, 1, 0] * 30})


def test_parquet_nullable_columns_read_na_as_missing(tmp_path, run):
    pytest.importorskip("pyarrow")
    _frame().to_parquet(tmp_path / "d.parquet")
    assert run("fit", "d.parquet", "--target", "y", "-o", "m.json", "-q", cwd=tmp_path).returncode == 0
    feats = {f.name: f for f in rulekit.load(tmp_path / "m.json").features}
    assert feats["a"].kind == "numeric"
    assert feats["s"].kind == "nominal" and feats["s"].domain == ("u", "v")
    r = run("rules", "d.parquet", "--target", "y", "--scorecard", "-o", "o.rules", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "<NA>" not in (tmp_path / "o.rules").read_text()


@pytest.mark.parametrize("learner", [RuleInducer, ScorecardLearner])
def test_learners_read_pd_na_as_missing(learner):
    X = _frame().drop(columns="y")
    y = _frame().y.to_numpy()
    assert [f.domain for f in infer_features(X)] == [None, ("u", "v")]
    rb = learner().fit(X, y).rule_base_
    assert (np.asarray(rb.predict(X)) == y).mean() >= 0.75
    assert all("NA" not in str(v) for f in rb.features for v in (f.domain or ()))


def test_missing_labels_include_pd_na():
    X = pd.DataFrame({"x": np.arange(10.0)})
    y = pd.array([0, 1] * 4 + [None, 1], dtype="Int64")
    for learner in (RuleInducer, ScorecardLearner):
        with pytest.raises(rulekit.RulekitError, match="missing labels"):
            learner().fit(X, y)
