"""`fit --algorithm c45` then `rules --prune-data` (issue #17): a multiway tree's branches for
values the training data never showed cover no row; generalising such a rule by its pessimistic
error (1.0 on no rows) turned `a1 = v0 and a2 = v0 and a0 not in {...}` into `a1 = v0 and a2 = v0`
and the rule base collapsed to the default. Rules no row supports stay as they are (and go)."""

from __future__ import annotations

import numpy as np
import pytest

import rulekit
from rulekit.rules.prune import _prune_pessimistic
from rulekit.testing import concepts as C


def _write(path, X, y):
    df = X.copy()
    df["y"] = y
    df.to_csv(path, index=False)


@pytest.mark.parametrize("seed", [21, 33])
def test_c45_tree_then_pruning_data_finds_the_concept(tmp_path, run, seed):
    concept = C.nominal_dnf(seed, noise=0.04, irrelevant=(5, 7))
    rng = np.random.default_rng(seed + 100)
    _write(tmp_path / "train.csv", *concept.sample(1500, rng))
    _write(tmp_path / "prune.csv", *concept.sample(500, rng))
    assert run("fit", "train.csv", "--target", "y", "--algorithm", "c45", "-o", "m.json",
               cwd=tmp_path).returncode == 0
    r = run("rules", "m.json", "--prune-data", "prune.csv", "--dnf", "-o", "m.rules", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr, r.stderr
    accs = [float(line.rsplit(" ", 1)[1]) for line in r.stderr.splitlines() if "accuracy on the pruning" in line]
    rb = rulekit.load(tmp_path / "m.rules")
    assert rb.rules and accs[-1] >= accs[1] - 0.01, r.stderr  # no collapse below the pruned tree
    X, y = concept.sample(3000, np.random.default_rng(7), noisy=False)
    assert np.mean(np.asarray(rb.predict(X)) == y) >= 0.97, rulekit.dsl.dumps(rb)


def test_a_rule_no_row_supports_is_not_generalised():
    T = np.array([[True, True, False, False], [False, False, True, True]])  # no row meets both
    good = np.array([True, False, True, False])
    assert _prune_pessimistic(T, good, 0.25) == [True, True]
