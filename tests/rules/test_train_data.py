"""Training rows in the rule choice (``to_rules(train_data=...)``, ``rules --train-data``).

On a few dozen pruning rows most of C4.5rules' choices are ties there and the theory bits pick the
shorter rule base; the rows the tree was grown on hold the evidence (docs/rules.md, session 4).
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.errors import RulekitError
from rulekit.learners import CARTClassifier
from rulekit.rules import to_rules
from tests.rules.helpers import fit_default


def _rows(n, rng, where=None):
    X = pd.DataFrame({"x0": rng.uniform(0, 1, n).round(3), "x1": rng.uniform(0, 1, n).round(3)})
    if where is not None:
        X = X[where(X)].reset_index(drop=True)
    return X, ((X.x0 <= 0.5) & (X.x1 <= 0.5)).astype(int).to_numpy()


def _case():
    """y = x0 <= 0.5 and x1 <= 0.5; no pruning row has x0 > 0.5 and x1 <= 0.5, so on the pruning
    rows alone ``x1 <= 0.5`` is as good as the concept and shorter."""
    rng = np.random.default_rng(0)
    train = _rows(400, rng)
    prune = _rows(80, rng, lambda X: ~((X.x0 > 0.5) & (X.x1 <= 0.5)))
    test = _rows(2000, rng)
    return CARTClassifier(random_state=0).fit(*train).model_, train, prune, test


def _acc(rb, test):
    return float(np.mean(np.asarray(rb.predict(test[0])) == test[1]))


def test_training_rows_keep_a_condition_the_pruning_rows_cannot_judge():
    model, train, prune, test = _case()
    kw = dict(prune="pessimistic", prune_data=prune, tree_prune=True, cf=0.5, dnf=True)
    alone = to_rules(model, **kw)
    both = to_rules(model, train_data=train, **kw)
    assert _acc(alone, test) < 0.8  # 'x1 <= 0.5 then 1'
    assert _acc(both, test) >= 0.99, rulekit.dsl.dumps(both)
    # the pruning rows still judge: reduced-error's promise holds on them
    assert _acc(both, prune) >= _acc(alone, prune)


def test_the_rules_command_reads_training_rows_from_csv(tmp_path):
    from rulekit.commands import rules

    model, train, prune, test = _case()
    for name, (X, y) in (("train", train), ("prune", prune)):
        X.assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    fit_default(tmp_path)
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        for out, td in (("alone.rules", Path("none")), ("both.rules", tmp_path / "train.csv")):
            rules.run(model=tmp_path / "m.json", prune_data=tmp_path / "prune.csv", dnf=True,
                      order="first-hit", output=tmp_path / out, quiet=True, train_data=td)
    assert _acc(rulekit.load(tmp_path / "alone.rules"), test) < 0.8
    assert _acc(rulekit.load(tmp_path / "both.rules"), test) >= 0.99


def test_training_rows_need_pruning(tmp_path):
    from rulekit.commands import rules

    model, train, prune, _ = _case()
    with pytest.raises(RulekitError, match="need pruning data"):
        to_rules(model, train_data=train)
    with pytest.raises(RulekitError, match="--train-data"):
        rules.run(model=tmp_path / "m.json", prune_data=None, dnf=False, order="first-hit",
                  output=tmp_path / "o.rules", train_data=tmp_path / "t.csv")


def test_the_cli_option_and_a_bad_training_cell(tmp_path, run):
    _, train, prune, _ = _case()
    for name, (X, y) in (("train", train), ("prune", prune)):
        X.assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    bad = train[0].assign(y=train[1]).astype(object)
    bad.loc[3, "x0"] = "n/a?"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", "-q", cwd=tmp_path).returncode == 0
    r = run("rules", "m.json", "--prune-data", "prune.csv", "--train-data", "train.csv", "--dnf", "-o", "m.rules",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "MDL subset per class (on the training and pruning rows): " in r.stderr, r.stderr
    r = run("rules", "m.json", "--prune-data", "prune.csv", "--train-data", "bad.csv", "-o", "b.rules", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == ["rulekit: bad.csv:5: column 'x0' (field 1): 'n/a?' is not a number"]


def test_a_rule_no_pruning_row_meets_is_not_chosen_on_training_rows_alone():
    from rulekit.rules.pipeline import met_rules

    rb = rulekit.dsl.loads("rulebase r\ntarget y: classes {0, 1}\nfeature x0: numeric\nfeature x1: numeric\n"
                           "semantics first-hit\ndefault 0\n\n"
                           "r1: if x0 <= 0.5 then 1\nr2: if x0 > 0.9 and x1 > 0.9 then 1\n")
    X = pd.DataFrame({"x0": [0.1, 0.7, 0.95], "x1": [0.2, 0.3, 0.5]})
    assert [r.id for r in met_rules(rb, X).rules] == ["r1"]
    assert met_rules(rb, X.assign(x1=0.95)).rules == rb.rules


@pytest.mark.slow
def test_the_default_path_keeps_out_a_rule_only_training_rows_show(tmp_path, run):
    """Planted dnf8, the benchmark's sample 1: a rule that no pruning row meets, chosen on the
    training rows that grew it, cost the exact concept (docs/rules.md, session 5)."""
    import zlib

    from rulekit.testing import concepts as C

    concept = C.nominal_dnf(8)
    rng = np.random.default_rng([zlib.crc32(b"dnf8"), 1])
    for name, n in (("train", 3000), ("prune", 1000)):
        X, y = concept.sample(n, rng)
        X.assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", "-q", cwd=tmp_path).returncode == 0
    r = run("rules", "m.json", "--prune-data", "prune.csv", "--dnf", "-o", "m.rules", cwd=tmp_path)
    assert r.returncode == 0 and "using the training rows recorded by fit" in r.stderr, r.stderr
    rb = rulekit.load(tmp_path / "m.rules")
    used, stack = set(), [x.condition for x in rb.rules]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "items", ()) or ())
        if getattr(node, "feature", None):
            used.add(node.feature)
    assert C.recovered(concept, rb.predict, used), rulekit.dsl.dumps(rb)
