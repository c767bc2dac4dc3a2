"""The default path counts the training rows' errors pessimistically in the MDL choice.

``fit`` records its training file and ``rules --prune-data`` pools those rows with the pruning rows;
the rows the tree grew on judge its rules optimistically, so ``to_rules`` tells
``prune.organize`` where they start (``grown_from``) and their errors count as C4.5's upper bound
(docs/rules.md, session 7b). Planted concept dnf22 at a small size is found with that and missed
without it (a small rule the training rows support survives beside the concept).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import rulekit
import rulekit.dsl
from rulekit.learners import CARTClassifier
from rulekit.rules import prune as prune_module
from rulekit.rules import to_rules
from rulekit.testing import concepts as C
from tests.rules.helpers import default_path_rules

SEED = 22


def _data():
    concept = C.nominal_dnf(SEED, noise=0.05)
    rng = np.random.default_rng(SEED)
    return concept, concept.sample(1000, rng), concept.sample(300, rng)


def _found(concept, rb) -> bool:
    text = rulekit.dsl.dumps(rb).split("\n\n", 1)[1]
    used = {f.name for f in rb.features if re.search(rf"\b{f.name}\b", text)}
    return C.recovered(concept, rb.predict, used)


def test_to_rules_marks_where_the_training_rows_start(monkeypatch):
    concept, train, held = _data()
    seen = []
    original = prune_module.organize

    def spy(*args, grown_from=None, **kw):
        seen.append((len(args[2]), grown_from))
        return original(*args, grown_from=grown_from, **kw)

    monkeypatch.setattr(prune_module, "organize", spy)
    model = CARTClassifier(random_state=0).fit(*train).model_
    rb = to_rules(model, prune="pessimistic", prune_data=held, tree_prune=True, cf=0.5, dnf=True,
                  train_data=train)
    # pruning rows first, then the training rows: the mark is the number of pruning rows
    assert seen and all(n == 1300 and g == 300 for n, g in seen), seen
    assert _found(concept, rb), rulekit.dsl.dumps(rb)
    # without training rows there is nothing to mark
    seen.clear()
    to_rules(model, prune="pessimistic", prune_data=held, tree_prune=True, cf=0.5, dnf=True)
    assert seen and all(g is None for _, g in seen), seen


def test_the_default_cli_path_finds_the_concept(tmp_path: Path):

    concept, train, held = _data()
    for name, (X, y) in (("train", train), ("prune", held)):
        X.assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    rb = default_path_rules(tmp_path)
    assert _found(concept, rb), rulekit.dsl.dumps(rb)


def _cli(args, capsys):
    from rulekit.cli import main

    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ex.value.code, out.err


def test_the_cli_passes_candidates_through(tmp_path: Path, capsys):
    concept, train, held = _data()
    for name, (X, y) in (("train", train), ("prune", held)):
        X.assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    code, _ = _cli(["fit", tmp_path / "train.csv", "--target", "y", "-o", tmp_path / "m.json", "-q"], capsys)
    assert code == 0
    base = ["rules", tmp_path / "m.json", "--prune-data", tmp_path / "prune.csv", "--dnf"]
    code, err = _cli(base + ["--candidates", "pool", "-o", tmp_path / "pool.rules"], capsys)
    assert code == 0 and "bootstrap samples" in err, err
    for kind in ("tree", None):
        out = tmp_path / f"{kind}.rules"
        code, err = _cli(base + (["--candidates", kind] if kind else []) + ["-o", out], capsys)
        assert code == 0 and "bootstrap samples" not in err, err
    assert (tmp_path / "tree.rules").read_text() == (tmp_path / "None.rules").read_text()
    code, err = _cli(base + ["--candidates", "bag", "-o", tmp_path / "x.rules"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "bag" in err, err


def test_only_the_default_path_charges_the_training_rows(monkeypatch):
    """--prune pessimistic / reduced-error with training rows choose as before (7b measured the
    default path only)."""
    _, train, held = _data()
    seen = []
    original = prune_module.organize

    def spy(*args, grown_from=None, **kw):
        seen.append(grown_from)
        return original(*args, grown_from=grown_from, **kw)

    monkeypatch.setattr(prune_module, "organize", spy)
    model = CARTClassifier(random_state=0).fit(*train).model_
    for kw in ({"prune": "pessimistic"}, {"prune": "reduced-error"},
               {"prune": "reduced-error", "tree_prune": True}):
        seen.clear()
        to_rules(model, prune_data=held, train_data=train, **kw)
        assert seen and all(g is None for g in seen), (kw, seen)


def test_the_steps_say_what_left_the_choice_and_why_pool_did_nothing():
    import copy

    from rulekit.rules.steps import Steps

    _, train, held = _data()
    model = CARTClassifier(random_state=0).fit(*train).model_
    steps = Steps()  # without tree pruning most leaves meet no pruning row
    to_rules(model, prune="pessimistic", prune_data=held, train_data=train, steps=steps)
    said = [t for _, t in steps.notes if "no pruning row meets" in t]
    dropped = re.match(r"(\d+) of (\d+) rules left out", said[0]) if said else None
    assert dropped and 0 < int(dropped[1]) < int(dropped[2]), steps.lines()
    imported = copy.copy(model)
    imported.source = {}  # as an imported tree: no learner to regrow it with
    steps = Steps()
    to_rules(imported, prune="pessimistic", prune_data=held, tree_prune=True, cf=0.5, train_data=train,
             candidates="pool", steps=steps)
    assert any("tree's rules alone" in t and "not grown" in t for _, t in steps.notes), steps.lines()
