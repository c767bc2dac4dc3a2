"""The `rules` command's default path on planted concepts (issue #17): `fit` with defaults, then
`rules --prune-data P --dnf` finds the concept; every step is reported; no silent collapse;
`--select none`, `--prune reduced-error` and `--induce` from the command line."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.rules.base import Or
from rulekit.testing import concepts as C


def _write(path, X, y):
    df = X.copy()
    df["y"] = y
    df.to_csv(path, index=False)


def _concept_files(tmp_path, seed, noise=0.05, n=2000, m=700):
    concept = C.nominal_dnf(seed, noise=noise, irrelevant=(5, 8))
    rng = np.random.default_rng(seed)
    _write(tmp_path / "train.csv", *concept.sample(n, rng))
    _write(tmp_path / "prune.csv", *concept.sample(m, rng))
    return concept


def _used(rb) -> set[str]:
    out, stack = set(), [r.condition for r in rb.rules]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "items", ()) or ())
        if getattr(node, "feature", None):
            out.add(node.feature)
    return out


@pytest.mark.parametrize("seed", [4, 7, 12])
def test_default_path_recovers_a_planted_concept(tmp_path, run, seed):
    concept = _concept_files(tmp_path, seed)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    r = run("rules", "m.json", "--prune-data", "prune.csv", "--dnf", "-o", "m.rules", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rb = rulekit.load(tmp_path / "m.rules")
    assert C.recovered(concept, rb.predict, _used(rb)), rulekit.dsl.dumps(rb)
    assert "tree reduced-error pruning:" in r.stderr and "accuracy on the pruning data" in r.stderr
    assert all(not isinstance(r_.condition, Or) or r_.condition.items for r_ in rb.rules)


def test_random_pruning_labels_collapse_with_one_warning(tmp_path, run):
    concept = _concept_files(tmp_path, 4)
    rng = np.random.default_rng(1)
    X, _ = concept.sample(200, rng)
    _write(tmp_path / "prune.csv", X, np.zeros(len(X), int))  # one class only: no rule can help
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    r = run("rules", "m.json", "--prune-data", "prune.csv", "--dnf", "-q", "-o", "m.rules", cwd=tmp_path)
    assert r.returncode == 0
    warn = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warn) == 1 and "only the default class 0" in warn[0] and "try" in warn[0], r.stderr
    assert "the rules never predict 1: no row of prune.csv is of that class" in warn[0]  # one line says both
    rb = rulekit.load(tmp_path / "m.rules")
    assert not rb.rules and rb.default.label == 0  # no 'if true' rule before an unreachable default


def test_reduced_error_steps_never_lose_pruning_accuracy(tmp_path, run):
    _concept_files(tmp_path, 7, noise=0.1)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    for select in ("mdl", "none"):
        r = run("rules", "m.json", "--prune-data", "prune.csv", "--prune", "reduced-error", "--select", select,
                "-o", f"{select}.rules", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        accs = [float(line.rsplit(" ", 1)[1]) for line in r.stderr.splitlines() if "accuracy on the pruning" in line]
        assert len(accs) >= 3 and accs[-1] >= accs[0], r.stderr


@pytest.mark.slow  # ~6 s CPU: two rules runs
def test_select_none_keeps_more_conditions_than_mdl(tmp_path, run):
    from rulekit.rules.boxes import count_literals

    _concept_files(tmp_path, 12, noise=0.12)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    sizes = {}
    for select in ("mdl", "none"):
        assert run("rules", "m.json", "--prune-data", "prune.csv", "--select", select, "-q", "-o",
                   f"{select}.rules", cwd=tmp_path).returncode == 0
        sizes[select] = sum(count_literals(r.condition) for r in rulekit.load(tmp_path / f"{select}.rules").rules)
    assert sizes["none"] > sizes["mdl"]
    r = run("rules", "m.json", "--prune-data", "prune.csv", "--select", "best", "-o", "x.rules", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--select" in r.stderr


def test_induce_learns_rules_from_data(tmp_path, run):
    concept = _concept_files(tmp_path, 4, noise=0.02)
    r = run("rules", "train.csv", "--target", "y", "--induce", "-o", "i.rules", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rb = rulekit.load(tmp_path / "i.rules")
    X, y = concept.sample(2000, np.random.default_rng(99), noisy=False)
    assert np.mean(np.asarray(rb.predict(X)) == y) >= 0.97
    r = run("rules", "train.csv", "--induce", "-o", "j.rules", cwd=tmp_path)
    assert r.returncode == 2 and "--target" in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "j.rules").exists()


def test_a_rule_that_always_holds_becomes_the_default():
    from rulekit.learners import CARTClassifier
    from rulekit.rules.base import Compare, IsMissing
    from rulekit.rules.pipeline import drop_catch_all

    rb = rulekit.to_rules(CARTClassifier(max_depth=1).fit([[0], [1], [2], [3]], [0, 0, 1, 1]).model_)
    always = Or(items=(Compare(feature="x0", op="<=", value=1.5), Compare(feature="x0", op=">", value=1.5),
                       IsMissing(feature="x0")))
    rb = rb.model_copy(update={"rules": (rb.rules[0].model_copy(update={"condition": always}),) + rb.rules[1:]})
    out = drop_catch_all(rb)
    assert not out.rules and out.default.label == rb.rules[0].conclusion.label
    X = [[-1.0], [5.0], [float("nan")]]
    assert list(out.predict(X)) == list(rb.predict(X))


def test_missing_sides_the_pruning_data_never_shows_are_dropped():
    from rulekit.learners import CARTClassifier
    from rulekit.rules.base import IsMissing

    concept = C.nominal_dnf(7, noise=0.05, irrelevant=(5, 6))
    rng = np.random.default_rng(0)
    X, y = concept.sample(1500, rng)
    Xp, yp = concept.sample(500, rng)
    X, Xp = X.astype(object), Xp.astype(object)
    model = CARTClassifier(random_state=0).fit(X, y).model_

    def missing_tests(rb):
        stack, n = [r.condition for r in rb.rules], 0
        while stack:
            node = stack.pop()
            stack.extend(getattr(node, "items", ()) or ())
            n += isinstance(node, IsMissing)
        return n

    rb = rulekit.to_rules(model, prune="pessimistic", prune_data=(Xp, yp), dnf=True, tree_prune=True)
    assert rb.rules and missing_tests(rb) == 0
    Xm = Xp.copy()
    Xm.loc[::7, :] = None  # every feature missing somewhere: the tree's missing sides stay
    rbm = rulekit.to_rules(model, prune="pessimistic", prune_data=(Xm, yp), dnf=True, tree_prune=True)
    assert missing_tests(rbm) > 0


def _tiny_pruning_file(tmp_path, concept, n=40):
    X, y = concept.sample(n, np.random.default_rng(9))
    y = np.where(np.random.default_rng(3).random(n) < 0.2, 1 - y, y)
    _write(tmp_path / "tiny.csv", X, y)


def test_min_rules_keeps_rules_where_mdl_left_only_the_default(tmp_path, run):
    concept = _concept_files(tmp_path, 4)
    _tiny_pruning_file(tmp_path, concept)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    # on the pruning rows alone (the training rows fit recorded would break the MDL ties)
    r = run("rules", "m.json", "--prune-data", "tiny.csv", "--train-data", "none", "-q", "-o", "a.rules",
            cwd=tmp_path)
    warn = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warn) == 1 and "--min-rules" in warn[0] and "pruning accuracy" in warn[0], r.stderr
    assert not rulekit.load(tmp_path / "a.rules").rules
    r = run("rules", "m.json", "--prune-data", "tiny.csv", "--min-rules", "2", "--train-data", "none",
            "-o", "b.rules", cwd=tmp_path)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    assert "chosen without it (--min-rules)" in r.stderr
    assert len(rulekit.load(tmp_path / "b.rules").rules) >= 2


@pytest.mark.slow
def test_cf_sets_how_far_rules_generalise(tmp_path, run):
    _concept_files(tmp_path, 7, noise=0.1)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    conditions = {}
    for cf in ("0.01", "0.6"):
        r = run("rules", "m.json", "--prune-data", "prune.csv", "--cf", cf, "--select", "none", "-o",
                f"{cf}.rules", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        line = next(x for x in r.stderr.splitlines() if "pessimistic pruning of each rule" in x)
        conditions[cf] = int(line.split(", ")[1].split()[0].replace(",", ""))
    assert conditions["0.01"] < conditions["0.6"], conditions


@pytest.mark.parametrize("args", [["--prune-data", "prune.csv", "--cf", "1.5"], ["--min-rules", "2"],
                                  ["--prune-data", "prune.csv", "--prune", "reduced-error", "--cf", "0.1"],
                                  ["--prune-data", "prune.csv", "--min-rules", "-1"]])
def test_bad_cf_and_min_rules_are_one_line(tmp_path, run, args):
    _concept_files(tmp_path, 4, n=300, m=100)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    r = run("rules", "m.json", *args, "-o", "x.rules", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "x.rules").exists()


@pytest.mark.slow  # ~2 s: --prune pessimistic scores a full tree's rules
def test_default_cf_is_the_held_out_one_and_pessimistic_keeps_c45s(tmp_path, run):
    _concept_files(tmp_path, 12, noise=0.12)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    texts = {}
    cases = {"default": [], "0.5": ["--cf", "0.5"], "0.25": ["--cf", "0.25"], "pess": ["--prune", "pessimistic"],
             "pess0.25": ["--prune", "pessimistic", "--cf", "0.25"]}
    for name, args in cases.items():
        select = [] if name.startswith("pess") else ["--select", "none"]  # all of a full tree's rules: slow
        r = run("rules", "m.json", "--prune-data", "prune.csv", *select, *args, "-o", f"{name}.rules",
                cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        texts[name] = (tmp_path / f"{name}.rules").read_text()
    assert texts["default"] == texts["0.5"] != texts["0.25"]
    assert texts["pess"] == texts["pess0.25"]


def test_min_rules_says_when_no_rule_was_left_to_choose_from(tmp_path, run):
    """Labels unrelated to the features: the tree prunes to its root, so choosing without MDL keeps no
    rule either, and the step's line says so instead of implying rules came back."""
    rng = np.random.default_rng(0)
    for name, n in (("train", 300), ("prune", 100)):
        X = rng.normal(size=(n, 3))
        y = rng.choice(["a", "b"], size=n, p=[0.7, 0.3])
        pd.DataFrame(X, columns=["x0", "x1", "x2"]).assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    assert run("fit", "train.csv", "--target", "y", "-o", "m.json", cwd=tmp_path).returncode == 0
    r = run("rules", "m.json", "--prune-data", "prune.csv", "--min-rules", "1", "-o", "r.rules", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "chosen without it (--min-rules), 0 rules kept (no rule was left to choose from)" in r.stderr, r.stderr
    assert not rulekit.load(tmp_path / "r.rules").rules
