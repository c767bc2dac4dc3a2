"""Issue #18: `rulekit rules` never writes a file its own lint flags. Over the test zoo, the rule base
written with default and common options (--dnf, --prune-data, vote order, pruning in vote order),
read back from its text as `rulekit check` reads it, has no lint error or warning (notes allowed)."""

from __future__ import annotations

import pytest

from rulekit import dsl
from rulekit.errors import RulekitError
from rulekit.rules import to_rules
from tests import zoo
from tests.marks import ZOO_FAST

OPTIONS = ("default", "dnf", "prune", "vote", "prune-vote")
_SLOW = {"chain_deep"}
# pruned vote sets overlap with different labels. Lint tells an overlap only where it ties the vote or
# a rule changes no label (docs/lint-and-diff.md). With confidence as the weight these two sets each
# held a tie (two error-free rules of different classes meeting where no training row lies); the
# vote pass (rules/vote.py) now weighs rules by their evidence and resolves exact ties, so they pass.


def _cases():
    for name in zoo.zoo_names():
        for opt in OPTIONS:
            marks = [pytest.mark.slow] if name in _SLOW or name not in ZOO_FAST else []
            yield pytest.param(name, opt, id=f"{name}-{opt}", marks=marks)


def _options(opt: str, model, data) -> dict:
    if opt == "default":
        return {}
    if opt == "dnf":
        return {"dnf": True}
    if opt == "vote":
        return {"order": "vote"}
    out = {"prune": "pessimistic", "prune_data": (data, model.predict(data))}
    return out | ({"order": "vote"} if opt == "prune-vote" else {})


@pytest.mark.parametrize("name, opt", list(_cases()))
def test_rules_output_has_no_lint_findings(name, opt):
    model, data = zoo.get(name)
    try:
        rb = to_rules(model, **_options(opt, model, data))
    except RulekitError as e:  # dnf and pruning need a single classification tree
        assert "need" in str(e)
        pytest.skip(str(e))
    back = dsl.loads(dsl.dumps(rb))
    assert _flagged(back) == [], dsl.dumps(rb)[:2000]
    assert _flagged(rb) == []


def _flagged(rb) -> list:
    """Errors and warnings; notes (a test true for every present value, a set of all values but one)
    are how a tree routes missing and undeclared values apart, which its rules must keep."""
    return [f for f in rb.lint() if f.severity != "note"]
