"""Lint errors (conclusions, ids) and coverage warnings, each at its line; none on rulekit's own outputs."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import dsl
from rulekit.dsl.lint import diagnostics
from rulekit.dsl.lint_base import uncovered
from rulekit.rules import boxes, engine
from rulekit.rules.base import Conclusion, Rule
from tests import zoo
from tests.marks import zoo_cases

HEADER = """rulebase t
target y: classes {no, yes}
feature outlook: nominal {sunny, overcast, rain}
feature h: numeric
semantics first-hit
precision float32
"""


def found(body: str, default: str | None = "default yes\n") -> list[tuple[int, str, str]]:
    """(line, severity, message) of every finding; line 1 is the first line of ``body``."""
    head = HEADER + (default or "")
    p = dsl.parse(head + body)
    assert not p.errors, p.errors
    n = head.count("\n")
    return [(d.line - n, d.severity, d.message) for d in diagnostics(p)]


@pytest.mark.parametrize("body, line, start", [
    ("r1: if h > 1 then no [0.22, 0.78]\n", 1, "the label 'no' contradicts its distribution"),
    ("r1: if h > 1 then no\nr2: if h > 0 then yes [-0.5, 1.5]\n", 2, "negative probability -0.5"),
    ("r1: if h > 1 then yes [0.5, 0.6]\n", 1, "the probabilities sum to 1.1"),
    ("r1: if h > 1 then no [0.5, nan]\n", 1, "a probability is nan"),
    ("r1: if h > 1 then no\nr1: if h > 0 then yes\n", 2, "a second rule with id 'r1'"),
])
def test_errors_at_their_line(body, line, start):
    got = [f for f in found(body) if f[1] == "error"]
    assert len(got) == 1 and got[0][0] == line and got[0][2].startswith(start), got


def test_default_errors_point_at_the_default_line():
    got = found("r1: if h > 1 then no\n", default="default yes [0.9, 0.1]\n")
    assert got == [(0, "error", "the label 'yes' contradicts its distribution: 'no' is more probable "
                               "(0.9 against 0.1)")]


def test_ties_and_rounding_are_not_contradictions():
    assert found("r1: if h > 1 then no [0.5, 0.5]\nr2: if h > 0 then yes [0.1, 0.9000000000000001]\n") == []


def test_unreachable_default_and_always_true_conditions():
    assert found("r1: if h > 1 then no\nr2: if true then yes\n") == [
        (0, "warning", "the default can never be used: rule 'r2' holds for every input")]
    got = found("r1: if h <= 2.5 or h > 2.5 or h is missing then yes\n", default=None)
    assert got == [(1, "warning", "this condition holds for every input (write 'if true' if that is meant)")]
    # float32: h <= 0.1 and h >= 0.10000000149011612 (float32(0.1)) leave no float32 value out
    got = found("if h <= 0.1 or h >= 0.10000000149011612 or h is missing then yes\n")
    assert [g[2] for g in got] == ["this condition holds for every input (write 'if true' if that is meant)",
                                   "the default can never be used: rule #1 holds for every input"]
    assert found("r1: if h <= 0.1 or h > 0.10000001 or h is missing then yes\n") == [  # it adds nothing
        (1, "warning", "this rule concludes yes, as the default does: without it the rows it matches get yes "
                       "from the default [repeats-default]")]
    p = dsl.parse(HEADER.replace("float32", "float64") + "if h <= 0.1 or h >= 0.10000000149011612 then yes\n")
    (d,) = diagnostics(p)  # float64: (0.1, 0.10000000149011612) and missing values fall through
    assert d.message.startswith("no rule fires for some inputs and there is no default (e.g. where 0.1 < h"), d
    # a tree's paths cover every input together: its default stays as a safety net, no warning
    assert found("r1: if h <= 1 or h is missing then no\nr2: if h > 1 then yes [0.2, 0.8]\n") == []


def test_gaps_without_a_default():
    got = found("r1: if h > 3 then yes\nr2: if h <= 1 then no\nr3: if h is missing then no\n", default=None)
    assert len(got) == 1 and got[0][0] == 3 and got[0][2].startswith(
        "no rule fires for some inputs and there is no default (e.g. where 1 < h <= 3)")
    assert found("r1: if outlook in {sunny, rain} then yes\nr2: if outlook = overcast then no\n", default=None)[0][2] \
        .startswith("no rule fires for some inputs")  # missing and unseen values of outlook
    assert found("r1: if outlook in {sunny, rain} or outlook is missing then yes\n"
                 "r2: if outlook not in {sunny, rain} then no\n", default=None) == []


def test_values_outside_the_domain_are_errors_of_the_parser():
    p = dsl.parse(HEADER + "default yes\nr1: if outlook = snow then no\n")
    assert p.errors and p.errors[0].line == 8


def test_rule_base_lint_api_and_check_exit_codes(tmp_path):
    rb = dsl.loads(HEADER + "r1: if h > 1 then no [0.2, 0.8]\n")
    (f,) = [f for f in rb.lint() if f.severity == "error"]
    assert f.rule == 0 and "contradicts" in f.message
    path = tmp_path / "bad.rules"
    path.write_text(HEADER + "r1: if h > 1 then no [0.2, 0.8]\n")
    r = subprocess.run([sys.executable, "-m", "rulekit", "check", str(path)], capture_output=True, text=True)
    assert r.returncode == 1 and f"{path}:7:1: error: the label 'no' contradicts" in r.stdout
    path.write_text(HEADER + "r1: if h > 1 then no\n")  # a gap, no default: a warning
    r = subprocess.run([sys.executable, "-m", "rulekit", "check", str(path)], capture_output=True, text=True)
    assert r.returncode == 0 and "warning: no rule fires" in r.stdout
    r = subprocess.run([sys.executable, "-m", "rulekit", "check", "--strict", str(path)], capture_output=True, text=True)
    assert r.returncode == 1


def test_uncovered_matches_the_engine():
    """The computed gaps hold exactly the rows no rule matches (the engine's match matrix), on
    threshold rows, float32 neighbours, missing and unseen values."""
    rb = dsl.loads(HEADER + "r1: if h > 3 and outlook = sunny then yes\nr2: if h <= 1 then no\n"
                            "r3: if outlook in {rain, overcast} and h is not missing then no\n")
    gaps = uncovered(rb)
    assert gaps
    schema = boxes.LiteralSchema(rb)
    holes = rb.model_copy(update={"rules": tuple(Rule(condition=boxes.box_condition(g, schema),
                                                      conclusion=Conclusion(label="no")) for g in gaps)})
    hs = [0.5, 1.0, float(np.nextafter(np.float32(1), np.float32(2))), 1.0000000001, 2.0, 3.0,
          float(np.nextafter(np.float32(3), np.float32(4))), 9.0, np.nan]
    X = pd.DataFrame([(o, h) for o in ["sunny", "overcast", "rain", None, "snow"] for h in hs],
                     columns=["outlook", "h"])
    none = ~engine.match_matrix(rb, engine.matrix(rb, X)).any(axis=1)
    in_gap = engine.match_matrix(holes, engine.matrix(holes, X)).any(axis=1)
    np.testing.assert_array_equal(none, in_gap)
    assert none.sum() > 5


@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_no_finding_on_rulekits_own_rules(name):
    model, X = zoo.get(name)
    if len(getattr(model, "trees", [None])) > 20:
        pytest.skip("big ensembles: the pairwise checks skip them anyway")
    rb = rulekit.to_rules(model)
    back = dsl.loads(dsl.dumps(rb))
    got = [f for f in back.lint() if f.severity != "note"]  # notes: how a test reads (a tree's routing)
    assert got == [], got[:3]  # no warning either: tree paths never shadow or contradict


@pytest.mark.parametrize("name", [n for n in zoo.zoo_names() if n.startswith(("sklearn_tree", "learned_c45",
                                                                              "learned_id3", "handmade_nominal"))])
@pytest.mark.parametrize("how", ["dnf", "pessimistic", "reduced-error-dnf"])
def test_no_finding_on_pruned_and_merged_first_hit_rules(name, how):
    """First-hit outputs of the rules passes: no finding at all (shadowing by several earlier rules
    included). (Pruned *vote* sets do overlap with different labels: those warnings are the point.)"""
    model, X = zoo.get(name)
    if model.task != "classification":
        pytest.skip("pruning and DNF merging here are for classifiers")
    y = model.predict(X)
    kw = {"dnf": {"dnf": True}, "pessimistic": {"prune": "pessimistic", "prune_data": (X, y)},
          "reduced-error-dnf": {"prune": "reduced-error", "prune_data": (X, y), "dnf": True}}[how]
    back = dsl.loads(dsl.dumps(rulekit.to_rules(model, **kw)))
    assert back.lint() == [], back.lint()[:3]


def test_a_label_is_its_class_by_type_then_value():
    """``True`` is not the class ``1`` (rulekit.semantics.values): a rule concluding True with a
    distribution that favours True contradicts nothing, though ``1 == True`` in Python."""
    from rulekit.dsl.lint_base import base_findings
    from rulekit.ir.schema import Feature
    from rulekit.rules.base import Compare, RuleBase

    def findings(label, dist):
        rb = RuleBase(task="classification", classes=(1, True), features=(Feature(name="x"),),
                      rules=(Rule(condition=Compare(feature="x", op="<=", value=1.0),
                                  conclusion=Conclusion(label=label, distribution=dist)),),
                      default=Conclusion(label=1, distribution=(0.8, 0.2)))
        return [f.message for f in base_findings(rb)]

    assert findings(True, (0.1, 0.9)) == []
    assert findings(1, (0.1, 0.9)) == ["the label 1 contradicts its distribution: True is more probable "
                                       "(0.9 against 0.1)"]
