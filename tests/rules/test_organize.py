"""C4.5rules' second half (`rulekit.rules.prune.organize`) on hand-made rule bases (issue #17):
a too-general rule does not hide the narrow rules it subsumes; rules a wider rule subsumes go with
it; a class cheaper to describe as the rest becomes the default instead of getting rules."""

from __future__ import annotations

import zlib

import numpy as np

import rulekit
from rulekit.rules.prune import organize
from tests.rules.helpers import NOMINAL_HEAD, nominal_grid


def _rules(text: str):
    return rulekit.dsl.loads(NOMINAL_HEAD + text)


def test_a_too_general_rule_does_not_remove_the_rules_it_subsumes():
    X = nominal_grid(10)
    y = (((X.a == "p") & (X.b == "u")) | ((X.a == "q") & (X.b == "v"))).astype(int).to_numpy()
    rb = _rules("r1: if a in {p, q} then 1\nr2: if a = p and b = u then 1\nr3: if a = q and b = v then 1\n")
    for mdl in (True, False):
        out = organize(rb, X, y, mdl=mdl)
        assert np.array_equal(np.asarray(out.predict(X)).astype(int), y), rulekit.dsl.dumps(out)


def test_a_generalised_rule_takes_the_rules_it_subsumes_with_it():
    X = nominal_grid(6)
    y = (X.a == "p").astype(int).to_numpy().copy()
    # one cell of the concept, (p, v, k), has a noisy majority: the fragments leave it out
    cell = np.flatnonzero(((X.a == "p") & (X.b == "v") & (X.z == "k")).to_numpy())
    y[cell[:4]] = 0
    rb = _rules("r1: if a = p and z != k then 1\nr2: if a = p and b = u then 1\n"
                "r3: if a = p and z != l and b = u then 1\nr4: if a = p and z != m and b = u then 1\n")
    out = organize(rb, X, y, mdl=True)
    assert len(out.rules) == 1, rulekit.dsl.dumps(out)
    assert np.array_equal(np.asarray(out.predict(X)).astype(int), (X.a == "p").astype(int).to_numpy())


def test_the_class_left_over_is_the_default(tmp_path, run):
    """Noisy pruning rows made fragments of 'not the concept' (each with an irrelevant feature)
    cheaper in false positives than the concept's rules: C4.5rules put class 0 first, chose
    default 1 and deleted the positive rules behind them (13 conditions, not exact)."""
    from rulekit.testing import concepts as C

    concept = C.nominal_dnf(11)  # two terms of 3 literals over a0..a4, 5% noise
    rng = np.random.default_rng(zlib.crc32(b"dnf11"))
    for name, n in (("train", 3000), ("prune", 1000)):
        X, y = concept.sample(n, rng)
        X.assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    r = run("rules", "m.json", "--prune-data", "prune.csv", "-o", "m.rules", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rb = rulekit.load(tmp_path / "m.rules")
    assert rb.default.label == 0 and {r.conclusion.label for r in rb.rules} == {1}, rulekit.dsl.dumps(rb)
    assert C.recovered(concept, rb.predict, {"a0", "a1", "a2", "a3", "a4"}), rulekit.dsl.dumps(rb)


def test_a_set_test_naming_all_values_but_one_prints_the_positive_form():
    from rulekit.rules.prune import drop_unseen_missing

    X = nominal_grid(3)
    y = ((X.a == "p") | (X.a == "q")).astype(int).to_numpy()
    rb = _rules("r1: if a not in {q, r, s} then 1\nr2: if a not in {p, r, s} and b != u then 1\n"
                "r3: if a != s then 1\n")
    out = drop_unseen_missing(rb, X, y)
    text = rulekit.dsl.dumps(out)
    assert "if a = p then 1" in text and "a = q and b = v" in text and "not in {" not in text, text
    assert "a != s" in text  # naming one value is already the short form
    assert np.array_equal(out.predict(X), rb.predict(X))  # the same on the domain
    Xu = X.copy()
    Xu.loc[0, "a"] = "t"  # a value the domain lacks: the data shows one, the negative form stays
    assert "a not in {q, r, s}" in rulekit.dsl.dumps(drop_unseen_missing(rb, Xu, y))
