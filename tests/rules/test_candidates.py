"""Pooled candidates for the rule choice (``to_rules(candidates=)``, ``rules`` with training rows).

Trees regrown on bootstrap samples of the training rows offer the rule choice more rules; a rule
joins when its tree's out-of-bag rows and the pruning rows support it (docs/rules.md, session 7).
``candidates="tree"`` (the default) is the rule choice before: the model's own rules alone.
"""

from __future__ import annotations

import copy
import hashlib
import re
import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.errors import RulekitError
from rulekit.learners import CARTClassifier
from rulekit.rules import to_rules
from rulekit.rules import engine
from rulekit.rules.candidates import pool, regrowable, supported
from rulekit.rules.prune import ucf
from rulekit.table import read_csv
from rulekit.testing import concepts as C
from tests.rules.helpers import fit_default

HEAD = """rulebase rules
target y: classes {0, 1}
feature x0: numeric
feature x1: numeric
semantics first-hit
precision float64
default 0

"""


def _rb(body: str):
    return rulekit.dsl.loads(HEAD + body)


def _held_out(rb, n=100):
    X = pd.DataFrame({"x0": (np.arange(n) + 0.5) / n, "x1": np.zeros(n)})
    return [(engine.matrix(rb, X), (X.x0 <= 0.5).astype(int).to_numpy())]


def test_a_bootstrap_rule_joins_only_when_the_rows_that_did_not_grow_it_support_it():
    rb = _rb("r1: if x0 <= 0.5 then 1\n"       # right on all 50 rows it covers
             "r2: if x0 > 0.4 then 1\n"        # right on 10 of 60
             "r3: if x0 <= 0.02 then 1\n"      # right on its 2 rows: too few to tell (U = 0.5)
             "r4: if x1 > 5 then 1\n"          # no held-out row
             "r5: if x0 > 0.5 then 0\n"        # the other class, right on all 50
             "r6: if x0 > 0.45 then 0\n")      # right on 50 of 55: U_0.25 = 0.14
    keep = lambda share: [r.id for r in supported(rb, _held_out(rb), np.asarray(share)).rules]  # noqa: E731
    assert keep([0.5, 0.5]) == ["r1", "r5", "r6"]
    assert keep([0.9, 0.1]) == ["r1", "r5"]  # below the smaller class share: 0.1
    assert ucf(5, 55, 0.25) < 0.5 and not ucf(5, 55, 0.25) < 0.1
    got = pool(rb, [rb, rb])
    assert got.rules[:6] == rb.rules and len({r.id for r in got.rules}) == 18


def _rows(n, rng, noise=0.05):
    X = pd.DataFrame({"x0": rng.uniform(0, 1, n).round(3), "x1": rng.uniform(0, 1, n).round(3),
                      "x2": rng.uniform(0, 1, n).round(3)})
    y = ((X.x0 <= 0.5) & (X.x1 <= 0.6)).astype(int).to_numpy()
    flip = rng.uniform(0, 1, n) < noise
    return X, np.where(flip, 1 - y, y)


def _unrecorded(model):
    """The same tree without the record of the learner that grew it (as an imported model)."""
    out = copy.copy(model)
    out.source = {}
    return out


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16), noise=st.sampled_from([0.0, 0.05, 0.1]))
def test_candidates_tree_is_the_tree_s_own_choice(seed, noise):
    rng = np.random.default_rng(seed)
    train, prune = _rows(300, rng, noise), _rows(60, rng, noise)
    model = CARTClassifier(random_state=0).fit(*train).model_
    kw = dict(prune="pessimistic", prune_data=prune, tree_prune=True, cf=0.5, dnf=True, train_data=train)
    tree = rulekit.dsl.dumps(to_rules(model, candidates="tree", **kw))
    assert tree == rulekit.dsl.dumps(to_rules(model, **kw))  # the Python default
    # a model no rulekit learner grew cannot be regrown: pool is the tree's own rules there
    assert not regrowable(_unrecorded(model))
    assert tree == rulekit.dsl.dumps(to_rules(_unrecorded(model), candidates="pool", **kw))


# sha256 of the DSL text that rulekit 395b482 (before candidates) wrote for these cases
TODAY = {0: "ad1748eebfe193b1eac85b4f48871021fa5abf97eba95aed0c78dc93822a34fd",
         1: "0fd6a084a01056f8d53c8a2bf0a035f2d140f6a4363c16a2b95a667cde2c4eab"}


@pytest.mark.parametrize("seed", sorted(TODAY))
def test_candidates_tree_writes_today_s_rules_byte_for_byte(seed):
    rng = np.random.default_rng(seed)
    train, prune = _rows(300, rng), _rows(60, rng)
    model = CARTClassifier(random_state=0).fit(*train).model_
    rb = to_rules(model, prune="pessimistic", prune_data=prune, tree_prune=True, cf=0.5, dnf=True,
                  train_data=train, candidates="tree")
    assert hashlib.sha256(rulekit.dsl.dumps(rb).encode()).hexdigest() == TODAY[seed]


def test_pool_needs_training_rows_and_a_known_kind():
    rng = np.random.default_rng(0)
    train, prune = _rows(100, rng), _rows(30, rng)
    model = CARTClassifier(random_state=0).fit(*train).model_
    with pytest.raises(RulekitError, match="training rows"):
        to_rules(model, prune="pessimistic", prune_data=prune, tree_prune=True, candidates="pool")
    with pytest.raises(RulekitError, match="as the default path"):
        to_rules(model, prune="reduced-error", prune_data=prune, train_data=train, candidates="pool")
    with pytest.raises(RulekitError, match="tree or pool"):
        to_rules(model, prune="pessimistic", prune_data=prune, train_data=train, candidates="forest")


def _planted(tmp_path: Path):
    """A planted nominal concept at a small size, as CSV files (rulekit.testing.concepts)."""
    concept = C.nominal_dnf(1)
    rng = np.random.default_rng(7)
    for name, n in (("train", 1500), ("prune", 500)):
        X, y = concept.sample(n, rng)
        X.assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    return concept


def _rules_cmd(tmp_path: Path, out: str, **kw) -> str:
    from rulekit.commands import rules

    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rules.run(model=tmp_path / "m.json", prune_data=tmp_path / "prune.csv", dnf=True, order="first-hit",
                  output=tmp_path / out, **kw)
    return err.getvalue()


@pytest.mark.slow
def test_the_rules_command_pools_when_asked_says_so_and_finds_the_concept(tmp_path):
    concept = _planted(tmp_path)
    fit_default(tmp_path)
    said = _rules_cmd(tmp_path, "pool.rules", candidates="pool")
    lines = [ln for ln in said.splitlines() if "candidates:" in ln]
    assert len(lines) == 1 and "bootstrap samples" in lines[0] and "--candidates tree" in lines[0], said
    rb = rulekit.load(tmp_path / "pool.rules")
    text = rulekit.dsl.dumps(rb).split("\n\n", 1)[1]
    used = {f.name for f in rb.features if re.search(rf"\b{f.name}\b", text)}
    assert C.recovered(concept, rb.predict, used), rulekit.dsl.dumps(rb)
    # the default (and --candidates tree): the rule choice of the tree alone, as to_rules' default
    for out, kw in (("default.rules", {}), ("tree.rules", {"candidates": "tree"})):
        assert "candidates:" not in _rules_cmd(tmp_path, out, **kw)
    data, train = read_csv(tmp_path / "prune.csv"), read_csv(tmp_path / "train.csv")
    direct = to_rules(rulekit.load(tmp_path / "m.json"), prune="pessimistic", prune_data=data, dnf=True,
                      tree_prune=True, cf=0.5, train_data=train)
    body = rulekit.dsl.dumps(direct)  # the command's file adds a header comment on the rows counted
    assert (tmp_path / "tree.rules").read_text().endswith("\n" + body)
    assert (tmp_path / "default.rules").read_text().endswith("\n" + body)


def test_pool_without_training_rows_is_one_clear_error(tmp_path):
    _planted(tmp_path)
    fit_default(tmp_path)
    with pytest.raises(RulekitError, match="--candidates pool regrows"):
        _rules_cmd(tmp_path, "x.rules", candidates="pool", train_data=Path("none"))
    with pytest.raises(RulekitError, match="--candidates must be tree or pool"):
        _rules_cmd(tmp_path, "x.rules", candidates="bag")
