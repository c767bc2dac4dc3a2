"""Pictures name, per branch of a nominal split, the values that really take it
(rulekit.semantics.routing): with overlapping value lists the last edge wins, and a value no edge
lists goes to the "other" edge, else to the missing branch, as every backend routes it."""

from __future__ import annotations

import pandas as pd

from rulekit.ir.model import Model
from rulekit.ir.schema import Feature
from rulekit.ir.tree import TreeBuilder
from rulekit.render import branch_tests


def _model():
    b = TreeBuilder()
    root = b.nominal(0, missing=1)
    b.connect(root, b.leaf((1.0,)), 0, values=(0, 1))
    b.connect(root, b.leaf((2.0,)), 1, values=(1, 2))  # code 1 listed twice: this edge wins
    # code 3 ("d") is listed by no edge and there is no "other" edge: the missing branch (1) takes it
    return Model([b.graph], [Feature(name="f", kind="nominal", domain=["a", "b", "c", "d"])],
                 task="regression")


def test_each_branch_names_the_values_it_takes():
    model = _model()
    assert branch_tests(model, model.trees[0], 0) == ["= a", "in {b, c, d} (or missing)"]


def test_the_picture_agrees_with_the_evaluator():
    model = _model()
    got = model.predict(pd.DataFrame({"f": ["a", "b", "c", "d", None]}))
    assert list(got) == [1.0, 2.0, 2.0, 2.0, 2.0]
