"""A conclusion whose shares make another class more probable concludes that class (audit finding
1: ``default yes {no: 304/600, yes: 296/600}``, which ``rulekit check`` rejects)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd

import rulekit
from rulekit import dsl
from rulekit.commands import check, rules
from rulekit.dsl.lint_base import conclusion_problems
from rulekit.rules.agree import agreeing, agreeing_labels
from rulekit.rules.base import Conclusion
from tests.rules.helpers import fit_default


def test_a_contradicted_label_takes_the_most_probable_class():
    c = agreeing(Conclusion(label="yes", distribution=(0.5067, 0.4933)), ["no", "yes"])
    assert c.label == "no" and c.distribution == (0.5067, 0.4933)
    assert not conclusion_problems(c, ["no", "yes"])


def test_a_tie_or_an_agreeing_label_stays():
    for d in [(0.5, 0.5), (0.2, 0.8)]:
        c = Conclusion(label="yes", distribution=d)
        assert agreeing(c, ["no", "yes"]) is c
    bare = Conclusion(label="yes")
    assert agreeing(bare, ["no", "yes"]) is bare


def test_three_classes_the_first_most_probable():
    c = agreeing(Conclusion(label="a", distribution=(0.2, 0.4, 0.4)), ["a", "b", "c"])
    assert c.label == "b"


def test_rules_and_default_counted():
    rb = dsl.loads("rulebase t\ntarget y: classes {no, yes}\nfeature f: nominal {a, b}\n"
                       "semantics first-hit\ndefault yes {no: 0.6, yes: 0.4}\n\n"
                       "r1: if f = a then no {no: 0.1, yes: 0.9}\nr2: if f = b then yes {no: 0.3, yes: 0.7}\n")
    out, n = agreeing_labels(rb)
    assert n == 2
    assert [r.conclusion.label for r in out.rules] == ["yes", "yes"] and out.default.label == "no"


def test_the_audit_coin_writes_a_file_check_accepts(tmp_path):
    """50/50 noise on the default path (the audit's repro_default_contradicts.sh, smaller)."""
    rng = np.random.default_rng(5)
    n = 1200
    df = pd.DataFrame({f"f{j}": rng.choice(list("abc"), n) for j in range(6)})
    df["y"] = np.where(rng.random(n) < 0.5, "yes", "no")
    df.iloc[:600].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[600:].to_csv(tmp_path / "prune.csv", index=False)
    fit_default(tmp_path)
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        rules.run(model=tmp_path / "m.json", prune_data=tmp_path / "prune.csv", dnf=True, order="first-hit",
                  output=tmp_path / "r.rules")
        assert check.run(tmp_path / "r.rules", quiet=True) == 0


def test_the_step_says_what_changed():
    from rulekit.rules.steps import Steps

    rng = np.random.default_rng(5)
    n = 1200
    X = pd.DataFrame({f"f{j}": rng.choice(list("abc"), n) for j in range(6)})
    y = np.where(rng.random(n) < 0.5, "yes", "no")
    from rulekit.learners import CARTClassifier

    model = CARTClassifier(random_state=0).fit(X.iloc[:600], y[:600]).model_
    steps = Steps()
    rb = rulekit.to_rules(model, prune="pessimistic", tree_prune=True, dnf=True, prune_data=(X.iloc[600:], y[600:]),
                          train_data=(X.iloc[:600], y[:600]), steps=steps)
    changed = [line for line in steps.lines() if line.startswith("labels from the shares")]
    assert changed == ["labels from the shares (1 conclusion chosen on other rows now concludes the most frequent "
                       f"class of the rows its shares count): {len(rb.rules)} rule, 1 condition, accuracy on the pruning data "
                       f"{float(np.mean(rb.predict(X.iloc[600:]) == y[600:])):.4f}"]
