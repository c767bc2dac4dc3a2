"""Helpers for the learner tests: the bundled data sets and a readable view of a learned tree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import rulekit
from rulekit.ir.tree import children_by_branch, root_of

DATA = Path(rulekit.__file__).parent / "data"


def load(name: str) -> pd.DataFrame:
    return pd.read_csv(DATA / f"{name}.csv", dtype=str if name != "taxable_income" else None)


def describe(model) -> dict | str:
    """A nominal/numeric tree as nested dicts: {feature: {value-or-test: subtree-or-label}}.

    Only branches with training rows are shown (empty ID3 branches and the "other" edge are left
    out); leaves show their predicted label. Built with an explicit stack.
    """
    g = model.graph
    labels = model.classes

    def label(node):
        return labels[int(np.argmax(g.nodes[node]["value"]))]

    root = root_of(g)
    if g.nodes[root]["kind"] == "leaf":
        return label(root)
    out: dict = {}
    stack = [(root, out)]
    while stack:
        node, slot = stack.pop()
        a = g.nodes[node]
        feat = model.features[a["feature"]]
        branches: dict = {}
        slot[feat.name] = branches
        for branch, child in enumerate(children_by_branch(g, node)):
            c = g.nodes[child]
            if c.get("n_samples", 1.0) == 0:
                continue
            if a["kind"] == "nominal":
                vals = g.edges[node, child]["values"]
                key = "other" if vals is None else ",".join(str(feat.domain[v]) for v in vals)
            else:
                key = ("<=" if branch == 0 else ">") + repr(a["threshold"])
            if c["kind"] == "leaf":
                branches[key] = label(child)
            else:
                sub: dict = {}
                branches[key] = sub
                stack.append((child, sub))
    return out
