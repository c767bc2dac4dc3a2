"""rulekit's own ONNX exports read back into the model they came from.

The metadata rulekit writes (``rulekit.features``, ``rulekit.classes``, ``rulekit.combiner``,
``rulekit.task``) gives the schema and the combiner; the trees come from the tree-ensemble
operator, whose layout :mod:`rulekit.exporters.onnx.flatten` describes: boosting base scores are
leading one-leaf trees; multiclass v5 forests are written once per class (target-major); float32
sums, and averaged float64 classifiers added in tree order, give each tree targets of its own
(tree t's class q: target t*K + q); legacy double models write leaf *numbers* that a
``Gather`` maps to the double weights of ``leaf_table``; nominal features are tested as codes in
derived columns after ``X`` (set chains, which come back as two-way nominal splits); oblique
splits are derived 0/1 columns whose weights and bounds are read from the graph's constants.
Predictions equal the exported model's.
"""

from __future__ import annotations

import json

import numpy as np
from onnx import numpy_helper

from rulekit.importers.onnx_combine import scaled_outputs
from rulekit.importers.onnx_graph import ENSEMBLES, ML_DOMAIN, describe, ml_opset
from rulekit.importers.onnx_tree_ir import TreeReader
from rulekit.importers.onnx_trees import OnnxModelError, decode
from rulekit.ir.model import Model
from rulekit.ir.schema import Combiner, Feature


def metadata(proto) -> dict[str, str]:
    return {p.key: p.value for p in proto.metadata_props}


def is_rulekit(proto) -> bool:
    return proto.producer_name == "rulekit" and "rulekit.kind" in metadata(proto)


def convert(proto) -> Model:
    meta = metadata(proto)
    if meta.get("rulekit.kind") != "model":
        raise OnnxModelError(f"a rulekit {meta.get('rulekit.kind')} exported to ONNX (standard operators, "
                             f"no tree ensemble); import the rules file it was made from")
    try:
        features = [Feature(**{k: v for k, v in f.items() if k in ("name", "kind", "domain", "match")})
                    for f in json.loads(meta["rulekit.features"])]
        combiner = Combiner.model_validate_json(meta["rulekit.combiner"])
        classes = json.loads(meta["rulekit.classes"]) if "rulekit.classes" in meta else None
        task = meta["rulekit.task"]
        n_trees = int(meta["rulekit.n_trees"])
    except (KeyError, ValueError, TypeError) as err:
        raise OnnxModelError(f"rulekit metadata is incomplete or invalid ({type(err).__name__}: {err})") from None
    nodes = [n for n in proto.graph.node if n.op_type in ENSEMBLES and n.domain == ML_DOMAIN]
    if len(nodes) != 1:
        raise OnnxModelError(f"a rulekit ONNX model with {len(nodes)} tree-ensemble nodes (expected 1)")
    ens = decode(nodes[0], ml_opset(proto))
    n_features = len(features)
    nominal = [j for j, f in enumerate(features) if f.kind == "nominal"]
    codes = {n_features + i: j for i, j in enumerate(nominal)}
    linear = _oblique_columns(proto, n_features + len(nominal))
    if any(f >= n_features + len(nominal) + len(linear) for f in ens.feature):
        raise OnnxModelError(f"{describe(nodes[0])}: tests a derived column rulekit did not write")
    float32 = meta.get("rulekit.dtype") == "float32"
    reader = TreeReader(ens, n_features, float32=float32, code_columns=codes, linear_columns=linear)
    values = _leaf_vectors(proto, ens)
    trees = _trees(ens, reader, values, combiner, task, classes, n_trees)
    source = json.loads(meta["rulekit.source"]) if "rulekit.source" in meta else {}
    source["onnx"] = {"dtype": meta.get("rulekit.dtype"), "opset": meta.get("rulekit.opset")}
    return Model(trees, features, task=task, classes=classes, combiner=combiner, source=source)


def _oblique_columns(proto, first: int) -> dict[int, dict]:
    """The oblique tests rulekit computed before the ensemble (:func:`exporters.onnx.model.
    _oblique_tests`), from its constants in creation order: per term k, ``terms`` (column of
    each test), ``w`` (weight) and optionally ``valid``; then ``bound`` and ``missing_side``.
    Column ``first + i`` holds test ``i`` as an IR ``linear`` node."""
    consts = {}
    for t in proto.graph.initializer:
        hint, _, number = t.name.rpartition("_")
        if hint in ("terms", "w", "valid", "bound", "missing_side") and number.isdigit():
            consts[int(number)] = (hint, numpy_helper.to_array(t))
    terms: list[dict] = []
    bound = missing = None
    for _, (hint, value) in sorted(consts.items()):
        if hint == "terms":
            terms.append({"cols": value.reshape(-1), "w": None, "valid": None})
        elif hint in ("w", "valid") and terms:
            terms[-1][hint] = value.reshape(-1)
        elif hint == "bound":
            bound = value.reshape(-1)
        elif hint == "missing_side":
            missing = value.reshape(-1)
    if not terms:
        return {}
    if bound is None or missing is None or any(t["w"] is None for t in terms):
        raise OnnxModelError("a rulekit ONNX model whose oblique-test constants are incomplete")
    out = {}
    for i in range(bound.size):
        feats, weights = [], []
        for t in terms:
            if t["valid"] is None or t["valid"][i]:
                feats.append(int(t["cols"][i]))
                weights.append(float(t["w"][i]))
        out[first + i] = {"kind": "linear", "features": tuple(feats), "weights": tuple(weights),
                          "threshold": float(bound[i]), "op": "<=", "precision": "float64",
                          "missing": int(missing[i])}
    return out


def _leaf_vectors(proto, ens):
    """``(op_tree, leaf) -> vector over the operator's targets`` (legacy double: the leaf number's
    row of ``leaf_table``)."""
    inits = {t.name: t for t in proto.graph.initializer}
    table = start = None
    for node in proto.graph.node:
        if node.op_type == "Gather" and node.input and node.input[0].startswith("leaf_table"):
            table = numpy_helper.to_array(inits[node.input[0]])
        if node.op_type == "Add" and len(node.input) == 2 and node.input[1].startswith("leaf_start"):
            start = numpy_helper.to_array(inits[node.input[1]])
    W = np.zeros((len(ens.weights), ens.n_targets))
    for j, entries in enumerate(ens.weights):
        for k, w in entries:
            W[j, k] += w
    if table is None:
        return lambda t, j: W[j]
    if start is None:
        raise OnnxModelError("a rulekit legacy double model without its leaf_start offsets")

    def from_table(t, j):
        number = int(W[j, t])  # tree t writes its leaf number to target t
        return table[int(start[t]) + number]
    return from_table


def _trees(ens, reader: TreeReader, values, combiner: Combiner, task: str, classes, n_trees: int) -> list:
    n_base = sum(1 for b in combiner.base_score if b != 0.0) if combiner.kind == "sum" else 0
    n_op = ens.n_trees
    copies = 1
    if n_op != n_base + n_trees:
        if n_base or n_op % n_trees:
            raise OnnxModelError(f"the tree ensemble has {n_op} trees; rulekit's metadata says {n_trees}")
        copies = n_op // n_trees  # v5 multiclass: the forest once per class, target-major
    n_leaves_copy = len(ens.weights) // copies
    # averaged float64 classifiers exported in tree order (exporters/onnx/model.py _average_in_order)
    in_order = (task == "classification" and combiner.kind == "average" and combiner.arithmetic is None
                and copies == len(classes) and n_trees > 1 and ens.n_targets == n_trees * len(classes))
    out = []
    for i in range(n_trees):
        t = n_base + i
        root = ens.roots[t]

        def vector(j, t=t):
            if copies == 1:
                return values(t, j)
            return np.array([values(q * n_trees + t, j + q * n_leaves_copy)[q] for q in range(copies)])

        if combiner.kind == "average" and combiner.arithmetic == "float32":
            leaf = _average32_leaf(values, t, n_trees, copies, n_leaves_copy, len(classes))
        elif in_order:  # copy q of tree t wrote class q to target t*K + q (a Scan sums the trees)
            def leaf(j, t=t, K=len(classes)):
                return tuple(float(values(q * n_trees + t, j + q * n_leaves_copy)[t * K + q]) for q in range(K))
        elif combiner.kind == "sum":
            k = t if combiner.arithmetic == "float32" else (combiner.tree_output or (0,) * n_trees)[i]

            def leaf(j, vector=vector, k=k):
                return (float(vector(j)[k]),)
        elif task == "regression":
            def leaf(j, vector=vector):
                return (float(vector(j)[0]),)
        elif len(classes) == 2:
            def leaf(j, vector=vector):
                p1 = float(vector(j)[0])
                return (1.0 - p1, p1)
        else:
            def leaf(j, vector=vector):
                return tuple(float(v) for v in vector(j)[:len(classes)])
        out.append(reader.tree(root, leaf))
    return out


def _average32_leaf(values, t: int, n_trees: int, copies: int, n_leaves_copy: int, n_classes: int):
    """Leaf values of tree ``t`` of a float32 ``average`` export, which writes ``float32(v / n)`` of
    its ``W`` classes to targets ``t * W + q``: ``v`` back as the ONNX importer reads skl2onnx's
    weights (:func:`rulekit.importers.onnx_combine.scaled_outputs`), so an imported forest comes back equal."""
    W = 1 if n_classes == 2 else n_classes

    def leaf(j):
        if copies == 1:
            row = values(t, j)
            w = [row[t * W + q] for q in range(W)]
        else:
            w = [values(q * n_trees + t, j + q * n_leaves_copy)[t * W + q] for q in range(W)]
        v = scaled_outputs(np.asarray([w], np.float64), n_trees)[0]
        return (1.0 - float(v[0]), float(v[0])) if n_classes == 2 else tuple(float(x) for x in v)
    return leaf
