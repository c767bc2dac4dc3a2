"""RIPPER's optimisation phase in RuleInducer (issue #17): variants pruned for the whole rule set's
error, and the phase on planted concepts."""

from __future__ import annotations

import numpy as np

from rulekit.rules.base import RuleBase
from rulekit.rules.induction import RuleInducer, _Data, _prune_in_set
from rulekit.testing import concepts as C


def _data(M, yc):
    from rulekit.ir.model import Feature

    shell = RuleBase(name="t", task="classification", target="y", classes=(0, 1),
                     features=tuple(Feature(name=f"x{j}") for j in range(M.shape[1])), precision="float64")
    return _Data(shell, M, yc, 48)


def test_prune_in_set_keeps_the_prefix_with_fewest_set_errors():
    rng = np.random.default_rng(0)
    M = rng.integers(0, 10, (400, 3)).astype(float)
    yc = ((M[:, 0] > 4) & (M[:, 1] <= 3)).astype(np.int64)  # the concept: two conditions
    data = _data(M, yc)
    rule = [(0, ">", 4.5), (1, "<=", 3.5), (2, ">", 6.5)]  # one condition too many
    idx = np.arange(400)
    pos, neg = idx[yc == 1], idx[yc == 0]
    assert _prune_in_set(data, [], rule, pos, neg) == rule[:2]
    # another rule already covers every positive: the set errs least with the whole rule
    # (it adds fewest false positives), never with the one-condition prefix
    out = _prune_in_set(data, [[(0, ">", 4.5), (1, "<=", 3.5)]], rule, pos, neg)
    assert len(out) >= 2


def test_optimisation_keeps_planted_concepts():
    accs = []
    for seed in (4, 7, 12):
        concept = C.nominal_dnf(seed, noise=0.05, irrelevant=(5, 8))
        rng = np.random.default_rng(seed)
        X, y = concept.sample(2500, rng)
        Xs, ys = concept.sample(2000, rng, noisy=False)
        rb = RuleInducer(optimize=2).fit(X.astype(object), y).rule_base_
        accs.append(np.mean(np.asarray(rb.predict(Xs.astype(object))).astype(int) == ys))
    assert min(accs) >= 0.97, accs
