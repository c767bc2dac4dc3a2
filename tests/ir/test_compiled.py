"""The evaluators against an independent oracle: a row-by-row walk of the graph that applies each
source's comparison literally (cast to float32 then compare, or compare in float64)."""

import math
import shutil

import numpy as np
import pytest

from rulekit.ir import compiled
from rulekit.ir.tree import children_by_branch
from tests import zoo
from tests.marks import slow_cases


def test_fast_path_is_built_where_a_compiler_exists():
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: rulekit runs on its numpy evaluator")
    assert compiled._fastpath is not None


def _holds(a, x):
    """The split's own test on a value, as its source library writes it."""
    if a["precision"] == "float32":
        x = float(np.float32(x))  # overflow to inf is what the cast does
    return x <= a["threshold"] if a["op"] == "<=" else x < a["threshold"]


def oracle_leaf(tree, row):
    node = tree.graph["root"]
    while tree.nodes[node]["kind"] != "leaf":
        a = tree.nodes[node]
        kids = children_by_branch(tree, node)
        if a["kind"] == "nominal":
            x = row[a["feature"]]
            if math.isnan(x):
                node = kids[a["missing"]]
                continue
            by_value = {v: c for c in kids for v in (tree.edges[node, c]["values"] or ())}
            other = [c for c in kids if tree.edges[node, c]["values"] is None]
            node = by_value.get(int(x), other[0] if other else kids[a["missing"]])
            continue
        if a["kind"] == "linear":
            s = 0.0
            first = True
            for f, w in zip(a["features"], a["weights"]):
                s = w * row[f] if first else s + w * row[f]
                first = False
            x = s
        else:
            x = row[a["feature"]]
        if math.isnan(x):
            node = kids[a["missing"]]
        else:
            with np.errstate(over="ignore"):
                node = kids[0] if _holds(a, x) else kids[1]
    return node


@pytest.mark.parametrize("name", slow_cases(zoo.zoo_names(), ["chain_deep"]))
def test_evaluators_match_the_oracle(name):
    model, data = zoo.get(name)
    M = model.matrix(data)
    if len(M) > 600:
        M = M[np.random.default_rng(0).choice(len(M), 600, replace=False)]
    cts = model._compiled_trees()
    numpy_leaves = compiled.apply_all(cts, None, M)
    forest = compiled.build_forest(cts)
    c_leaves = compiled.apply_all(cts, forest, M) if forest is not None else numpy_leaves
    for t, (tree, ct) in enumerate(zip(model.trees[:20], cts[:20])):
        want = [oracle_leaf(tree, row) for row in M]
        assert list(ct.node_ids[numpy_leaves[t]]) == want, f"numpy walker, tree {t}"
        assert list(ct.node_ids[c_leaves[t]]) == want, f"C walker, tree {t}"
