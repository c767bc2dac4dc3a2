"""Float32 combiner arithmetic (``Combiner.arithmetic == "float32"``) as ONNX nodes: XGBoost's sums
and links, and the float32 sums of ``average`` classifiers (:func:`combine_avg32`).

The tree-ensemble operator sums in an order of its own, so each tree writes its float32 leaf value
to a target of its own ([N, n_trees], exact in either operator type); a ``Scan`` then adds the
columns in tree order in float32 (base-score trees first: ``0 + base`` is ``base``), each tree to
its output. The links follow :mod:`rulekit.semantics.float32`: exp computed in double and rounded once to
float32, every other step in float32; softmax sums its exps left to right in double.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from onnx import TensorProto, helper

from .decision import decision_label
from .flatten import Forest
from .graph import GraphBuilder
from .labels import label_output

F = TensorProto.FLOAT


def per_tree(forest: Forest) -> Forest:
    """The same forest with tree ``t`` adding to target ``t`` only."""
    return dataclasses.replace(forest, tree_targets=[(t,) for t in range(forest.n_trees)],
                               n_targets=forest.n_trees)


def _f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def _body(n_outputs: int) -> object:
    """Scan body: ``state[:, k] += x`` in float32 where ``mask[k]``, other outputs unchanged."""
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    nodes = [
        helper.make_node("Constant", [], ["axes"], value=axes),
        helper.make_node("Unsqueeze", ["x", "axes"], ["x1"]),
        helper.make_node("Add", ["state", "x1"], ["added"]),
        helper.make_node("Where", ["mask", "added", "state"], ["next"]),
    ]
    return helper.make_graph(
        nodes, "add_tree",
        [helper.make_tensor_value_info("state", F, ["N", n_outputs]),
         helper.make_tensor_value_info("x", F, ["N"]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, [n_outputs])],
        [helper.make_tensor_value_info("next", F, ["N", n_outputs])])


def sum32(gb: GraphBuilder, scores: str, outputs: list[int], n_outputs: int, base=None) -> str:
    """[N, n_trees] per-tree values (any float type) -> [N, n_outputs] float32 sums in tree order,
    starting from ``base`` (float32 values; default zeros)."""
    cols = gb.op("Cast", [scores], to=F, hint="tree_values")
    mask = np.zeros((len(outputs), n_outputs), bool)
    mask[np.arange(len(outputs)), outputs] = True
    shape = gb.op("Concat", [gb.op("Shape", [cols], end=1),
                             gb.const(np.array([n_outputs], np.int64), "n_outputs")], axis=0)
    zeros = gb.op("ConstantOfShape", [shape], value=helper.make_tensor("zero", F, [1], [0.0]))
    if base is not None:
        zeros = gb.op("Add", [zeros, gb.const(_f32(base).reshape(1, -1), "base")])
    return gb.op("Scan", [zeros, cols, gb.const(mask, "tree_output")], hint="raw32",
                 body=_body(n_outputs), num_scan_inputs=2, scan_input_axes=[1, 0])


def _exp(gb: GraphBuilder, x: str) -> str:
    """exp in double, rounded once to float32 (as :func:`rulekit.semantics.float32.exp32`)."""
    return gb.op("Cast", [gb.op("Exp", [gb.op("Cast", [x], to=TensorProto.DOUBLE)])], to=F)


def sigmoid32(gb: GraphBuilder, raw: str) -> str:
    """[N, 1] float32 margins -> P(class 1): ``1 / ((e + 1) + 1e-16)``, ``e = exp(min(-x, 88.7))``."""
    e = _exp(gb, gb.op("Min", [gb.op("Neg", [raw]), gb.const(_f32(88.7), "clamp")]))
    one = gb.const(_f32(1.0), "one")
    d = gb.op("Add", [gb.op("Add", [e, one]), gb.const(_f32(1e-16), "eps")])
    return gb.op("Div", [one, d], hint="p1")


def softmax32(gb: GraphBuilder, raw: str, k: int) -> str:
    """[N, k] float32 margins -> probabilities: ``exp(x - max)`` each divided by the float32 of their
    left-to-right double sum."""
    e = _exp(gb, gb.op("Sub", [raw, gb.reduce("ReduceMax", raw, 1)]))
    e64 = gb.op("Cast", [e], to=TensorProto.DOUBLE)
    total = gb.column(e64, 0, keep=True)
    for j in range(1, k):
        total = gb.op("Add", [total, gb.column(e64, j, keep=True)])
    return gb.op("Div", [e, gb.op("Cast", [total], to=F)], hint="p")


def link32(gb: GraphBuilder, raw: str, link: str, n_outputs: int) -> str:
    """Float32 probabilities [N, K] from float32 margins: sigmoid as [1 - p1, p1], or softmax."""
    if link == "softmax":
        return softmax32(gb, raw, n_outputs)
    # [1 - p1, p1]: one product and one addition per entry, as 1 - p1 rounds in float32
    return gb.op("Gemm", [sigmoid32(gb, raw), gb.const(_f32([[-1.0, 1.0]]), "pm"),
                          gb.const(_f32([1.0, 0.0]), "bias")])


def combine32(gb: GraphBuilder, model, forest: Forest, ensemble, elem: int) -> list:
    """Outputs of a float32-arithmetic boosted model: per-tree values, float32 sums, float32 link,
    each output cast (exactly) to the graph's element type ``elem``. Layout (base, tree outputs),
    link and label rule are ``model.reduction()``'s; a raw-score decision labels from the float32
    sums (their probabilities may tie in float32 where the raw score does not)."""
    red = model.reduction()
    base_outputs = [k for k, b in enumerate(red.base) if b != 0.0]  # flatten's leading trees
    raw = sum32(gb, ensemble(per_tree(forest)), base_outputs + list(red.outputs), red.width)
    if model.task == "regression":
        gb.op("Cast", [gb.to_vector(raw)], to=elem, out="prediction")
        return [helper.make_tensor_value_info("prediction", elem, ["N"])]
    p = link32(gb, raw, red.link, red.width)
    if red.label == "argmax":
        label_elem = label_output(gb, model.classes, p)
    else:
        label_elem = decision_label(gb, model.classes, red, raw, np.float32)
    gb.op("Cast", [p], to=elem, out="probabilities")
    return [helper.make_tensor_value_info("label", label_elem, ["N"]),
            helper.make_tensor_value_info("probabilities", elem, ["N", model.n_classes])]


def _avg_body(width: int) -> object:
    """Scan body: ``state + x`` in float32, both [N, width]."""
    return helper.make_graph(
        [helper.make_node("Add", ["state", "x"], ["next"])], "add_tree",
        [helper.make_tensor_value_info("state", F, ["N", width]),
         helper.make_tensor_value_info("x", F, ["N", width])],
        [helper.make_tensor_value_info("next", F, ["N", width])])


def combine_avg32(gb: GraphBuilder, model, forest: Forest, ensemble, elem: int) -> list:
    """Outputs of an ``average`` classifier with float32 arithmetic (:func:`rulekit.semantics.float32.average32`):
    each tree writes its leaf's ``float32(v / n)`` to targets of its own (exact in either operator
    type, one weight per target), a ``Scan`` adds them in tree order in float32, two classes become
    ``[1 - s, s]``. The operator's own sum would do the same on one thread only."""
    W, n = forest.width, forest.n_trees
    wide = dataclasses.replace(
        forest, weight_parts=[(np.asarray(p) / n).astype(np.float32).astype(np.float64) for p in forest.weight_parts],
        tree_targets=[tuple(t * W + q for q in range(W)) for t in range(n)], n_targets=n * W)
    cols = gb.op("Cast", [ensemble(wide)], to=F, hint="tree_values")
    per_tree = gb.op("Reshape", [cols, gb.const(np.array([0, n, W], np.int64), "per_tree")])
    shape = gb.op("Concat", [gb.op("Shape", [cols], end=1), gb.const(np.array([W], np.int64), "width")], axis=0)
    zeros = gb.op("ConstantOfShape", [shape], value=helper.make_tensor("zero", F, [1], [0.0]))
    p = gb.op("Scan", [zeros, per_tree], hint="sum32", body=_avg_body(W), num_scan_inputs=1,
              scan_input_axes=[1])
    if W == 1:  # [1 - s, s]: one product and one addition per entry, as 1 - s rounds in float32
        p = gb.op("Gemm", [p, gb.const(_f32([[-1.0, 1.0]]), "pm"), gb.const(_f32([1.0, 0.0]), "bias")])
    label_elem = label_output(gb, model.classes, p)
    gb.op("Cast", [p], to=elem, out="probabilities")
    return [helper.make_tensor_value_info("label", label_elem, ["N"]),
            helper.make_tensor_value_info("probabilities", elem, ["N", model.n_classes])]
