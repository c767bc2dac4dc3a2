"""The readable text (dumps' default): same tests, short thresholds, 4-digit statistics, exact meaning."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulekit
from rulekit import dsl, semantics
from rulekit.dsl.stat_words import READABLE_KEYS
from rulekit.dsl.readable import readable, round_stat, short_threshold, significant_digits
from rulekit.ir.model import Feature
from rulekit.rules.base import And, Compare, Conclusion, Linear, Not, Or, Rule, RuleBase
from rulekit.testing.strategies import rule_bases, strict_repr

from tests.marks import lane_examples


def examples(n: int) -> settings:
    return settings(max_examples=lane_examples(n), deadline=None, suppress_health_check=list(HealthCheck))


def _literals(node) -> list:
    out, stack = [], [node]
    while stack:
        x = stack.pop()
        if type(x) in (And, Or):
            stack.extend(reversed(x.items))
        elif type(x) is Not:
            stack.append(x.item)
        else:
            out.append(x)
    return out


def _same_test(a, b, precision: str) -> bool:
    if type(a) is not Compare or type(a.value) is not float or a == b:
        return a == b
    if (a.feature, a.op) != (b.feature, b.op):
        return False
    ops = (">=", "<=") if a.op in ("=", "!=") else (a.op,)
    return all(semantics.canonical(o, a.value, precision) == semantics.canonical(o, b.value, precision)
               for o in ops)


@examples(600)
@given(rule_bases())
def test_readable_text_reads_back_as_the_same_tests(rb):
    text = dsl.dumps(rb)
    back = dsl.loads(text)
    assert strict_repr(back) == strict_repr(readable(rb)), text
    assert dsl.dumps(back) == text  # canonical and idempotent
    assert readable(back) == back
    for r, q in zip(rb.rules, back.rules):
        assert (r.conclusion, r.weight, r.group, r.id) == (q.conclusion, q.weight, q.group, q.id)
        la, lb = _literals(r.condition), _literals(q.condition)
        assert len(la) == len(lb)
        assert all(_same_test(a, b, rb.precision) for a, b in zip(la, lb)), text
        for k, v in r.stats.items():
            if k not in q.stats:  # the readable form keeps only the statistics a reviewer needs
                voting = rb.semantics != "first-hit" or rb.combiner is not None
                assert k not in READABLE_KEYS, k
                assert not (k == "confidence" and voting and r.weight is None), "a vote weight was dropped"
                continue
            w = q.stats[k]
            assert (v != v and w != w) or v == w or math.isclose(v, w, rel_tol=5e-4), (k, v, w)


# float32 thresholds as scikit-learn and XGBoost store them: a short decimal rounded to float32
_short_decimals = st.builds(lambda m, e: float(f"{m}e{e}"), st.integers(-99999, 99999), st.integers(-12, 12))


def _f32_neighbours(v: float) -> np.ndarray:
    f = np.float32(v)
    steps = [f]
    lo, hi = f, f
    for _ in range(3):
        lo, hi = np.nextafter(lo, np.float32(-np.inf)), np.nextafter(hi, np.float32(np.inf))
        steps += [lo, hi]
    xs = np.array(steps, dtype=np.float32).astype(np.float64)
    return np.concatenate([xs, np.nextafter(xs, -np.inf), np.nextafter(xs, np.inf), [v]])


@examples(1500)
@given(_short_decimals, st.sampled_from(["<=", "<", ">", ">=", "=", "!="]), st.booleans())
def test_short_threshold_is_the_same_float32_test(d, op, as_f32):
    t = float(np.float32(d)) if as_f32 else d  # stored as float32 (XGBoost) or as the decimal (sklearn-like)
    s = short_threshold(op, t, "float32")
    assert significant_digits(s) <= significant_digits(t)
    if as_f32 and (op, float(np.float32(d)) > d) in {("<", True), (">=", True), ("<=", False), (">", False)}:
        assert s == d or significant_digits(s) < significant_digits(d)  # d itself is the same test: nothing longer
    ops = {"<=": np.less_equal, "<": np.less, ">": np.greater, ">=": np.greater_equal, "=": np.equal,
           "!=": np.not_equal}[op]
    with np.errstate(over="ignore"):
        xs = np.concatenate([_f32_neighbours(t), _f32_neighbours(s)])
        x32 = xs.astype(np.float32).astype(np.float64)  # float32(x), compared as the source does
    np.testing.assert_array_equal(ops(x32, t), ops(x32, s))


def test_examples_of_short_thresholds():
    t = float(np.float32(2383.93))  # 2383.929931640625
    assert short_threshold("<=", t, "float32") == 2383.93  # scikit-learn: float32(x) <= t
    assert short_threshold("<", t, "float32") == 2383.9299  # 2383.93 lies above t: not the same
    assert short_threshold("<=", 2383.9300000000003, "float32") == 2383.93
    assert short_threshold("<", 0.800000011920929, "float32") == 0.8  # XGBoost: float32(x) < 0.8f
    # float32(x) <= 0.8 is NOT float32(x) <= 0.8f (0.8 lies below 0.8f): the shortest same test
    assert short_threshold("<=", 0.800000011920929, "float32") == 0.80000002
    assert short_threshold("<=", 0.1 + 0.2, "float64") == 0.1 + 0.2  # float64: only t itself


def test_statistics_round_to_four_digits_counts_stay_whole():
    assert round_stat(0.8711484593837535) == 0.8711
    assert round_stat(3.3591842906828537) == 3.359
    assert round_stat(714.0) == 714.0 and round_stat(1234567.0) == 1234567.0
    assert round_stat(8.057142857) == 8.057
    rb = RuleBase(task="classification", classes=("a", "b"), features=(Feature(name="x"),), semantics="vote",
                  rules=(Rule(condition=Compare(feature="x", op="<=", value=1.0), conclusion=Conclusion(label="a"),
                              stats={"confidence": 0.8711484593837535, "n": 3.0}),))
    # in a vote set a rule without a weight votes with its confidence: that number stays exact
    assert "confidence = 0.8711484593837535" in dsl.dumps(rb)
    # first-hit: confidence is informational; the readable form keeps the reviewer's words only
    first = dsl.dumps(rb.model_copy(update={"semantics": "first-hit"}))
    assert "confidence" not in first and first.rstrip().endswith("then a with 3 rows")
    assert "confidence = 0.8711484593837535" in dsl.dumps(rb.model_copy(update={"semantics": "first-hit"}), exact=True)


_NUM = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")


def _digits(tok: str) -> int:
    mant = tok.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(mant.rstrip("0")) if "." not in tok else len(mant)


def test_learned_rules_read_short():
    """PlayGolf, breast_cancer (scikit-learn, float32) and mushroom rule bases: no statistic or
    threshold with more than 4 significant digits unless the threshold needs them."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    rb = rulekit.to_rules(rulekit.from_sklearn(clf), prune="pessimistic", prune_data=(X, y))
    text = dsl.dumps(rb)
    for line in text.splitlines():
        if " with " in line:
            for tok in _NUM.findall(line.split(" with ", 1)[1]):
                assert _digits(tok) <= 4, line
    back = dsl.loads(text)
    np.testing.assert_array_equal(back.predict(X), rb.predict(X))
    np.testing.assert_array_equal(back.predict_proba(X), rb.predict_proba(X))
    long = [tok for tok in _NUM.findall(text.split("\n\n", 1)[1]) if "[" not in tok and _digits(tok) > 8]
    # thresholds: scikit-learn stores float32 midpoints such as 0.05592000111937523; they read short
    assert not [t for t in long if float(t) not in {p for r in rb.rules for c in [r.conclusion]
                                                    for p in (c.distribution or ())}], long


def test_oblique_and_float64_tests_are_untouched():
    lin = Linear(terms=((0.1, "x"), (0.2, "y")), op="<=", value=0.30000001192092896)
    rb = RuleBase(task="classification", classes=("a",), precision="float32",
                  features=(Feature(name="x"), Feature(name="y")),
                  rules=(Rule(condition=lin, conclusion=Conclusion(label="a")),))
    assert readable(rb) == rb


@pytest.mark.slow
def test_rules_command_writes_readable_text_and_every_digit_with_exact(tmp_path):
    import subprocess
    import sys

    from sklearn.tree import DecisionTreeClassifier

    X = np.array([[0.1, 1.0], [0.2, 2.0], [0.35, 1.5], [0.9, 3.0], [0.7, 0.5], [0.3, 2.5]])
    y = np.array([0, 0, 1, 1, 1, 0])
    model = rulekit.from_sklearn(DecisionTreeClassifier(random_state=0).fit(X, y))
    model.save(tmp_path / "m.json")
    out = {}
    for flag in ([], ["--exact"]):
        path = tmp_path / f"r{len(flag)}.rules"
        r = subprocess.run([sys.executable, "-m", "rulekit", "rules", str(tmp_path / "m.json"), "-o", str(path),
                            "-q", *flag], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        out[bool(flag)] = path.read_text()
    assert dsl.loads(out[True]) == rulekit.to_rules(model)  # every digit
    assert dsl.loads(out[False]) == readable(rulekit.to_rules(model))
    assert len(out[False]) < len(out[True])


@examples(300)
@given(st.integers(1, 9998), st.integers(2, 9999), st.floats(0.001, 0.999))
def test_probabilities_print_as_fractions_and_read_back_exactly(a, b, other):
    """A probability that is the float64 quotient of two whole numbers below 10,000 prints as that
    fraction; every probability reads back bit for bit (fractions or every digit)."""
    a = min(a, b - 1)
    p, q = a / b, (b - a) / b
    rb = RuleBase(task="classification", classes=("no", "yes"), features=(Feature(name="h"),),
                  default=Conclusion(label="yes" if q >= p else "no", distribution=(p, q)),
                  rules=(Rule(condition=Compare(feature="h", op=">", value=1.0),
                              conclusion=Conclusion(label="no", distribution=(other, 1 - other))),))
    text = dsl.dumps(rb)
    back = dsl.loads(text)
    assert back.default.distribution == (p, q) and back.rules[0].conclusion.distribution == (other, 1 - other)
    default_line = next(line for line in text.splitlines() if line.startswith("default"))
    for v in (p, q):
        if _digits(repr(v)) > 4:
            assert "/" in default_line.split("{")[1], default_line
    assert "/" not in dsl.dumps(rb, exact=True)  # exact: every digit


@pytest.mark.slow
def test_learned_distributions_read_short():
    """PlayGolf (ID3, C4.5) and breast_cancer (CART, pruned) rules files: no number outside the
    conditions with more than 4 significant digits (distributions read as fractions, 5/14)."""
    from sklearn.datasets import load_breast_cancer

    from rulekit.learners import C45Classifier, CARTClassifier, ID3Classifier

    golf = pd.read_csv("rulekit/data/playgolf.csv")
    bases = []
    for learner in (ID3Classifier, C45Classifier):
        model = learner().fit(golf.drop(columns="play"), golf["play"])
        bases.append(rulekit.to_rules(model.model_))
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    model = CARTClassifier(max_depth=4).fit(X, y)
    bases.append(rulekit.to_rules(model.model_, prune="pessimistic", prune_data=(X, y)))
    for rb in bases:
        text = dsl.dumps(rb)
        for line in text.splitlines():
            conclusion = line.split(" then ", 1)[1] if " then " in line else line if line.startswith(
                ("default", "    then")) else ""
            for tok in _NUM.findall(conclusion):
                assert _digits(tok) <= 4, line
        back = dsl.loads(text)
        assert [r.conclusion for r in back.rules] == [r.conclusion for r in rb.rules]
        assert back.default == rb.default
