"""PMML tree export routes nominal values as rulekit does (:mod:`rulekit.semantics.routing`), scored
by JPMML-Evaluator: a code no edge lists, with no "other" edge, and an unseen value take the missing
branch (not a null prediction); a code several edges list takes the last such edge in edge order
(PMML's children are first-match-wins). Checked against the prose oracle of tests/ir/test_routing.py
on every code, an unseen label and a missing value."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from rulekit import exporters
from tests.exporters.test_pmml_export import jpmml_score, pmml_schema
from tests.ir.test_routing import _label_oracle, _labels, _model, nominal_splits

lxml = pytest.importorskip("lxml.etree")


def _engine(edges, missing: int, size: int) -> list[float]:
    """JPMML's prediction for codes 0..size-1, an unseen label and a missing value."""
    text = exporters.get("pmml")(_model(edges, missing, size))
    schema = pmml_schema()
    assert schema.validate(lxml.fromstring(text.encode("utf-8"))), schema.error_log.last_error
    frame = pd.DataFrame({"f": pd.Series(_labels(size), dtype=object)})
    result = jpmml_score(text, frame)
    return [None if pd.isna(v) else float(v) for v in result.iloc[:, 0]]


CASES = {
    # codes 2, 3 listed by no edge, no "other" edge: rulekit takes the missing branch (1)
    "unlisted-no-other": ([(0, (0,)), (1, (1,))], 1, 4),
    # the same with the missing branch first in branch order
    "unlisted-no-other-missing-0": ([(0, (1,)), (1, (0,)), (2, (2,))], 0, 4),
    # code 1 listed by branches 1 and 0, in that edge order: the last edge (branch 0) takes it
    "overlap-edge-order": ([(1, (1, 2)), (0, (0, 1)), (2, None)], 2, 3),
    # overlap with the missing branch's list and an "other" edge that is not last in branch order
    "overlap-other-first": ([(0, None), (1, (0, 1)), (2, (1, 2))], 1, 4),
    # every code of branch 0 is taken by a later edge: branch 0 keeps only the missing value
    "overlap-emptied": ([(0, (0,)), (1, (0, 1)), (2, (2,))], 0, 3),
}


@pytest.mark.parametrize("name", list(CASES))
def test_pmml_nominal_routing_cases(name):
    edges, missing, size = CASES[name]
    assert _engine(edges, missing, size) == _label_oracle(edges, missing, size)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nominal_splits())
def test_pmml_nominal_routing_follows_the_rule(split):
    edges, missing, size = split
    assert _engine(edges, missing, size) == _label_oracle(edges, missing, size)
