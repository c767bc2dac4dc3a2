"""Widened rules in the MDL refinement (`rulekit.rules.widen`, issue #17 dnf6): a rule whose set
test leaves out a cell of its own class gains that value when the cell's rows, the training rows
among them, are pessimistically mostly its class, also when the pruning rows alone are too few for
the join to take it in; a cell of mostly other classes stays out; and the default path finds a
planted term whose `!=` test the tree wrote as a set test without the cell, and a term C4.5's
multiway splits cut into pieces as one rule (the widened rule subsumes the pieces)."""

from __future__ import annotations

import io
import re
import zlib
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
import rulekit.dsl
from rulekit.rules import widen
from rulekit.rules.boxes import Box, NomSet
from rulekit.rules.prune import _grown_extra, organize, ucf
from rulekit.testing import concepts as C
from tests.marks import lane_examples
from tests.rules.helpers import NOMINAL_HEAD, default_path_rules

RULE = NOMINAL_HEAD + "r1: if b = u and a in {p, q} then 1\n"


def _rows(cells: dict[tuple[str, str], tuple[int, int]]) -> tuple[pd.DataFrame, np.ndarray]:
    """``(a, b) -> (rows of class 1, rows of class 0)``, spread over z."""
    X, y = [], []
    for (a, b), (pos, neg) in cells.items():
        for i in range(pos + neg):
            X.append((a, b, "klm"[i % 3]))
            y.append(1 if i < pos else 0)
    return pd.DataFrame(X, columns=["a", "b", "z"], dtype=object), np.array(y)


def _data(s_cell: tuple[int, int], s_cell_grown: tuple[int, int]) -> tuple[pd.DataFrame, np.ndarray, int]:
    """Pruning rows, then training rows (from the returned index on): `b = u and a in {p, q}` is
    class 1, `a = r` and `b = v` class 0; the cell `a = s, b = u` has the given (class 1, class 0)
    rows among the pruning and among the training rows."""
    base = {("p", "u"): (12, 0), ("q", "u"): (12, 0), ("r", "u"): (0, 40),
            **{(a, "v"): (0, 12) for a in "pqrs"}}
    Xp, yp = _rows({**base, ("s", "u"): s_cell})
    Xt, yt = _rows({**{k: (3 * p, 3 * n) for k, (p, n) in base.items()}, ("s", "u"): s_cell_grown})
    return pd.concat([Xp, Xt], ignore_index=True), np.concatenate([yp, yt]), len(yp)


def test_a_cell_of_the_class_joins_the_rule_on_its_training_rows():
    """The cell `a = s` has 2 pruning rows (too few for the join's cell test) and 30 training rows,
    all class 1: the refinement puts `s` into the rule's set test, and every row is right."""
    X, y, grown_from = _data((2, 0), (30, 0))
    out = organize(rulekit.dsl.loads(RULE), X, y, mdl=True, grown_from=grown_from)
    assert np.array_equal(np.asarray(out.predict(X)).astype(int), y), rulekit.dsl.dumps(out)


def test_a_cell_of_mostly_the_other_class_stays_out():
    """The cell `a = s` holds 1 class 1 row and 2 class 0 rows among the pruning rows, 10 and 20
    among the training rows: the rule keeps its set test."""
    X, y, grown_from = _data((1, 2), (10, 20))
    out = organize(rulekit.dsl.loads(RULE), X, y, mdl=True, grown_from=grown_from)
    cell = ((X.a == "s") & (X.b == "u")).to_numpy()
    assert (np.asarray(out.predict(X[cell])).astype(int) == 0).all(), rulekit.dsl.dumps(out)


@st.composite
def _case(draw):
    sizes = draw(st.lists(st.integers(2, 5), min_size=1, max_size=4))
    n = draw(st.integers(10, 150))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 31)))
    codes = [rng.integers(-1, s, n).astype(float) for s in sizes]  # -1: a value the domain lacks
    for c in codes:
        c[rng.random(n) < 0.1] = np.nan
    good = rng.random(n) < draw(st.floats(0.1, 0.9))
    grown = rng.random(n) < draw(st.floats(0.0, 1.0))
    items = {}
    for f, s in enumerate(sizes):
        if rng.random() < 0.7:
            items[f] = NomSet(frozenset(int(v) for v in rng.choice(s, int(rng.integers(1, s + 1)), replace=False)), s,
                              bool(rng.random() < 0.3))
    return codes, sizes, good, grown, Box(items)


def _other_rate(rows, good, grown):
    """The pessimistic rate of other classes among ``rows``, the training rows' errors charged."""
    return ucf(int((rows & ~good).sum()) + _grown_extra(rows, good, grown), int(rows.sum()))


def _counts_rate(n, e, ng, eg):
    """``_other_rate`` as ``widened`` gets it: from a cell's counts."""
    return ucf(e + (ng * ucf(eg, ng, 0.05) - eg if ng else 0.0), n)


@settings(max_examples=lane_examples(200), deadline=None)
@given(_case())
def test_a_widened_rule_is_its_parent_with_one_cell_of_mostly_its_class(case):
    codes, sizes, good, grown, box = case

    def member(b):
        rows = [np.isin(codes[k], sorted(c.codes)) | (c.missing & np.isnan(codes[k])) for k, c in b.items.items()]
        return np.logical_and.reduce(rows) if rows else np.ones(len(good), bool)

    match = member(box)
    found = []
    for out, m in widen.widened(box, match, good, grown, codes.__getitem__, member, _counts_rate):
        assert np.array_equal(m, member(out))
        diff = [k for k in set(box.items) | set(out.items) if box.items.get(k) != out.items.get(k)]
        assert len(diff) == 1
        k = diff[0]
        (v,) = out.items[k].codes - box.items[k].codes
        assert out.items[k] == NomSet(box.items[k].codes | {v}, sizes[k], box.items[k].missing)
        cell = m & ~match
        assert np.array_equal(m & ~match, member(Box({**box.items, k: NomSet(frozenset({v}), sizes[k])})))
        # the cell taken in holds rows of the class, and pessimistically most of its rows are
        assert (cell & good).any() and _other_rate(cell, good, grown) < 0.5
        found.append((k, v))
    # and every such cell is proposed, in test then value order
    expected = []
    for k, c in box.items.items():
        for v in range(sizes[k]):
            cell = member(Box({**box.items, k: NomSet(frozenset({v}), sizes[k])}))
            if v not in c.codes and (cell & good).any() and _other_rate(cell, good, grown) < 0.5:
                expected.append((k, v))
    assert found == expected


@pytest.mark.slow
def test_the_default_path_finds_a_set_test_short_of_one_value(tmp_path: Path):
    """dnf6 of the planted concepts on the benchmark's draw 8 (docs/rules.md): the tree leaves the
    terms `a3 = v1 and a2 = v1 and a1 != v2` and `... a1 != v3 ...` as set tests short of a cell
    each, with 5-11 pruning rows there; the default path now writes the concept exactly."""
    concept = C.nominal_dnf(6)
    rng = np.random.default_rng([zlib.crc32(concept.name.encode()), 8])
    for name, n in (("train", 3000), ("prune", 1000)):
        X, y = concept.sample(n, rng)
        X.assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    rb = default_path_rules(tmp_path)
    text = rulekit.dsl.dumps(rb)
    used = {f.name for f in rb.features if re.search(rf"\b{f.name}\b", text.split("\n\n", 1)[1])}
    assert C.recovered(concept, rb.predict, used), text


@pytest.mark.slow
def test_a_widened_rule_takes_the_place_of_the_rules_it_subsumes(tmp_path: Path):
    """dnf11 of the planted concepts, draw 0, on the c45 path (``fit --algorithm c45``): the multiway
    splits leave the term `a1 = v1 and a3 != v5 and a0 != v2` as four rules, one per few values
    of a3 and a0; widening the largest over the cells the others cover lets them go, and the rules
    are the concept's two terms (6 literals; 15 when a widened rule kept the pieces beside it)."""
    from rulekit.commands import fit, rules

    concept = C.nominal_dnf(11)
    rng = np.random.default_rng(zlib.crc32(concept.name.encode()))
    for name, n in (("train", 3000), ("prune", 1000)):
        X, y = concept.sample(n, rng)
        X.assign(y=y).to_csv(tmp_path / f"{name}.csv", index=False)
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        fit.run(data=tmp_path / "train.csv", target="y", algorithm="c45", task=None, criterion=None,
                max_depth=None, min_samples_leaf=1, prune="none", prune_data=None, ensemble=None, n_trees=100,
                seed=0, output=tmp_path / "m.json", quiet=True)
        rules.run(model=tmp_path / "m.json", prune_data=tmp_path / "prune.csv", dnf=True, order="first-hit",
                  output=tmp_path / "r.rules")
    rb = rulekit.load(tmp_path / "r.rules")
    text = rulekit.dsl.dumps(rb)
    used = {f.name for f in rb.features if re.search(rf"\b{f.name}\b", text.split("\n\n", 1)[1])}
    assert C.recovered(concept, rb.predict, used), text
    body = text.split("\n\n", 1)[1]
    assert len(re.findall(r"\b(?:a|z)\d+ (?:=|!=|in|not in) ", body)) <= 6, text
