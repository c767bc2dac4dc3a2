"""Model files of our own making for the fuzz and hostile-file tests: small valid ones to mutate,
and the hostile shapes an attacker sent (each function returns the file's bytes or text)."""

from __future__ import annotations

import json
import struct

import numpy as np


def lightgbm_chain(depth: int, *, decision_type: int = 4, threshold: float = 0.5,
                   n_features: int | None = None) -> str:
    """A LightGBM text model: one tree, a chain of ``depth`` splits (feature i % n_features),
    each sending ``x <= threshold`` to a leaf and the rest down the chain. decision_type 4 is
    zero-as-missing with the default side right: each split becomes three IR tests with its
    children copied, the expansion that used to grow as 2**depth."""
    nf = n_features or depth
    n = depth
    lines = ["tree", "version=v4", "num_class=1", "num_tree_per_iteration=1", "label_index=0",
             f"max_feature_idx={nf - 1}", "objective=binary sigmoid:1",
             "feature_names=" + " ".join(f"f{j}" for j in range(nf)),
             "feature_infos=" + " ".join("[-10:10]" for _ in range(nf)), "", "Tree=0",
             f"num_leaves={n + 1}", "num_cat=0",
             "split_feature=" + " ".join(str(i % nf) for i in range(n)),
             "split_gain=" + " ".join("1" for _ in range(n)),
             "threshold=" + " ".join(repr(threshold) for _ in range(n)),
             "decision_type=" + " ".join(str(decision_type) for _ in range(n)),
             "left_child=" + " ".join(str(-(i + 1)) for i in range(n)),
             "right_child=" + " ".join(str(i + 1) if i + 1 < n else str(-(n + 1)) for i in range(n)),
             "leaf_value=" + " ".join(repr(0.01 * (i + 1)) for i in range(n + 1)),
             "leaf_count=" + " ".join("1" for _ in range(n + 1)),
             "internal_count=" + " ".join("1" for _ in range(n)),
             "is_linear=0", "shrinkage=1", "", "", "end of trees", ""]
    return "\n".join(lines)


def rulekit_chain(n_splits: int, *, n_features: int = 4) -> str:
    """A rulekit model file: one tree, a chain of ``n_splits`` numeric splits (2n+1 nodes)."""
    nodes, edges = [], []
    for i in range(n_splits):
        nodes.append({"id": 2 * i, "kind": "numeric", "feature": i % n_features,
                      "threshold": float(i % 97) / 7.0, "op": "<=", "precision": "float64",
                      "missing": i % 2})
        nodes.append({"id": 2 * i + 1, "kind": "leaf", "value": [float(i % 3 == 0), float(i % 3 != 0)]})
        edges.append({"parent": 2 * i, "child": 2 * i + 1, "branch": 0})
        edges.append({"parent": 2 * i, "child": 2 * i + 2, "branch": 1})
    nodes.append({"id": 2 * n_splits, "kind": "leaf", "value": [0.5, 0.5]})
    doc = {"format": "rulekit-model", "version": 1, "task": "classification",
           "features": [{"name": f"x{j}", "kind": "numeric"} for j in range(n_features)],
           "classes": ["a", "b"], "combiner": {"kind": "single"},
           "trees": [{"root": 0, "nodes": nodes, "edges": edges}]}
    return json.dumps(doc)


def ubjson_claim(count: int, kind: bytes = b"[") -> bytes:
    """An XGBoost-looking UBJSON document whose first container claims ``count`` elements."""
    return b"{U\x07learner" + kind + b"#L" + struct.pack(">q", count) + b"i\x01}"


def rows(n_features: int, n: int = 50, seed: int = 0) -> np.ndarray:
    """Random rows with zeros, tiny values and NaNs (the rows LightGBM's missing types decide)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    X[rng.random(X.shape) < 0.2] = 0.0
    X[rng.random(X.shape) < 0.1] = np.nan
    X[rng.random(X.shape) < 0.05] = 1e-36
    return X


def rulekit_balanced(depth: int, *, n_features: int = 8, seed: int = 0) -> str:
    """A rulekit model file: one complete binary tree of ``depth`` levels (2**(depth+1) - 1 nodes,
    depth 19: 1,048,575), random features and thresholds, nodes in breadth-first order."""
    rng = np.random.default_rng(seed)
    n_inner = (1 << depth) - 1
    feats = rng.integers(0, n_features, n_inner)
    ths = np.round(rng.normal(size=n_inner), 3)
    miss = rng.integers(0, 2, n_inner)
    parts = []
    for i in range(n_inner):
        parts.append(f'{{"id":{i},"kind":"numeric","feature":{int(feats[i])},"threshold":{float(ths[i])!r},'
                     f'"op":"<=","precision":"float64","missing":{int(miss[i])}}}')
    for i in range(n_inner, 2 * n_inner + 1):
        p = (i % 7) / 6
        parts.append(f'{{"id":{i},"kind":"leaf","value":[{p!r},{1 - p!r}]}}')
    edges = []
    for i in range(n_inner):
        edges.append(f'{{"parent":{i},"child":{2 * i + 1},"branch":0}}')
        edges.append(f'{{"parent":{i},"child":{2 * i + 2},"branch":1}}')
    features = ",".join(f'{{"name":"x{j}","kind":"numeric"}}' for j in range(n_features))
    return ('{"format":"rulekit-model","version":1,"task":"classification","features":['
            + features + '],"classes":["no","yes"],"combiner":{"kind":"single"},"trees":[{"root":0,'
            '"nodes":[' + ",".join(parts) + '],"edges":[' + ",".join(edges) + "]}]}")
