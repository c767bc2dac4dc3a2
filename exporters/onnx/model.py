"""A rulekit Model as an ONNX graph: input preparation, one tree-ensemble operator, explicit combiner.

Graph (N rows, F features)::

    X [N, F] ─┬───────────────────────────────────────────────┐
              ├─ nominal codes normalised (Floor; unseen -> -1) ├─ Concat ─ TreeEnsemble ─ scores
              └─ oblique tests in float64 (Mul/Add left to right, <= b; NaN -> the missing side)
    scores ─ [Div n_trees] | [Sigmoid | Softmax] ─ [Gemm: 1 - p1, p1] ─ probabilities ─ ArgMax ─ [Gather] ─ label

Arithmetic follows :mod:`rulekit.semantics.combiners` (``Model.reduction()``): averages are summed then divided by the number of trees
(inside the operator when each leaf has one weight), boosting starts from the base score (leading
one-leaf trees) and applies Sigmoid/Softmax as explicit operators (never the operator's
post_transform), binary models carry class 1 only and take ``p0 = 1 - p1``; a combiner's raw-score
``decision`` rule gives the label when set.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from onnx import TensorProto, helper

from rulekit.ir.model import Model

from .decision import decision_label
from .ensemble import emit_v3, emit_v5
from .flatten import Forest, flatten
from .float32 import combine32, combine_avg32
from .graph import GraphBuilder
from .labels import label_output
from .metadata import model_metadata
from .size import check_size, estimate_model_bytes


def accumulator(model: Model, dtype, accumulate: str) -> np.dtype:
    """The operator's type. float32 input keeps a float32 operator where float32 sums are exact:
    votes, single trees and ``arithmetic="float32"`` averages (onnxruntime's own forests). Averaged
    probabilities in float64 (scikit-learn forests), regressors and boosted models are summed in
    float64 by ``auto`` (input cast, float32-rounded thresholds): a float32 sum of averaged
    probabilities ties where the float64 one does not (4 of 5,000 labels on a 100-tree forest,
    issue #20), and unbounded scores cancel."""
    if np.dtype(dtype) == np.float64 or accumulate == "float":
        return np.dtype(dtype)
    red = model.reduction()
    if (accumulate == "double" or model.task == "regression" or red.kind == "sum"
            or red.kind == "average" and not red.float32):
        return np.dtype(np.float64)
    return np.dtype(np.float32)


def build(model: Model, *, dtype: np.dtype, opset: int, max_bytes: int, accumulate: str = "auto"):
    op_dtype = accumulator(model, dtype, accumulate)
    check_size(estimate_model_bytes(model, dtype=op_dtype, opset=opset), max_bytes)
    in_order = in_tree_order(model, op_dtype, accumulate, opset)
    forest = flatten(model, full=in_order)
    gb = GraphBuilder(opset=21 if opset == 5 else 17, ml_opset=opset)
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    inputs = [helper.make_tensor_value_info("X", elem, ["N", model.n_features])]
    x = "X" if op_dtype == dtype else gb.op("Cast", ["X"], to=TensorProto.DOUBLE, hint="x64")
    feed = x
    derived = []
    if forest.nominal:
        derived.append(_nominal_codes(gb, x, forest, op_dtype))
    if forest.linear:
        derived.append(_oblique_tests(gb, x, forest, op_dtype))
    if derived:
        feed = gb.op("Concat", [x] + derived, axis=1, hint="columns")
    emit = emit_v5 if opset == 5 else emit_v3
    round32 = np.dtype(dtype) == np.float32

    def ensemble(trees: Forest | None = None, **kw):
        return emit(gb, feed, forest if trees is None else trees, op_dtype, round32=round32, **kw)

    op_elem = TensorProto.FLOAT if op_dtype == np.float32 else TensorProto.DOUBLE
    if in_order:
        outputs = _average_in_order(gb, model, forest, ensemble, op_dtype, op_elem)
    else:
        outputs = _combine(gb, model, forest, ensemble, op_dtype, op_elem)
    if op_dtype != dtype:  # float64 sums, float32 outputs
        outputs = [_cast_output(gb, o, TensorProto.FLOAT) if o.type.tensor_type.elem_type == op_elem else o
                   for o in outputs]
    doc = (f"rulekit {model!r} exported to ONNX (ai.onnx.ml opset {opset}, {np.dtype(dtype).name} "
           f"input, {np.dtype(op_dtype).name} sums). Input X[:, j] is feature j in the order of "
           f"metadata 'rulekit.features'.")
    return gb.model(inputs, outputs, name="rulekit_model", doc=doc,
                    metadata=model_metadata(model, dtype=dtype, opset=opset, op_dtype=op_dtype))


def in_tree_order(model: Model, op_dtype, accumulate: str, opset: int) -> bool:
    """Whether ``auto`` adds an averaged float64 classifier's trees in tree order outside the
    operator (:func:`_average_in_order`): onnxruntime's multi-threaded TreeEnsemble merges partial
    sums in its own order, which labels exact ties otherwise than scikit-learn (issue #20,
    docs/engines.md). Opset 5 only (opset 3's double mode gathers [N, trees, targets])."""
    red = model.reduction()
    return (accumulate == "auto" and opset == 5 and np.dtype(op_dtype) == np.float64
            and model.task == "classification" and red.kind == "average" and not red.float32
            and red.n_trees > 1)


def _add_body(elem: int, width: int) -> object:
    """Scan body: ``state + x``, both [N, width], in type ``elem``."""
    return helper.make_graph(
        [helper.make_node("Add", ["state", "x"], ["next"])], "add_tree",
        [helper.make_tensor_value_info("state", elem, ["N", width]),
         helper.make_tensor_value_info("x", elem, ["N", width])],
        [helper.make_tensor_value_info("next", elem, ["N", width])])


def _average_in_order(gb: GraphBuilder, model: Model, forest: Forest, ensemble, dtype, elem) -> list:
    """An averaged classifier as scikit-learn computes it: every class's probabilities (two classes
    included) summed in tree order from 0 in double, divided by the number of trees, first largest
    wins. Each tree writes its leaf values to targets of its own (one weight per target: exact), a
    ``Scan`` adds them in tree order, so onnxruntime's thread count does not change the result."""
    W, n = forest.width, forest.n_trees
    wide = dataclasses.replace(forest, tree_targets=[tuple(t * W + q for q in range(W)) for t in range(n)],
                               n_targets=n * W)
    cols = ensemble(wide)
    per_tree = gb.op("Reshape", [cols, gb.const(np.array([0, n, W], np.int64), "per_tree")])
    shape = gb.op("Concat", [gb.op("Shape", [cols], end=1), gb.const(np.array([W], np.int64), "width")], axis=0)
    zeros = gb.op("ConstantOfShape", [shape], value=helper.make_tensor("zero", elem, [1], [0.0]))
    total = gb.op("Scan", [zeros, per_tree], hint="sum", body=_add_body(elem, W), num_scan_inputs=1,
                  scan_input_axes=[1])
    gb.op("Div", [total, gb.const(np.asarray(n, dtype), "n_trees")], out="probabilities")
    label_elem = label_output(gb, model.classes, "probabilities")
    return [helper.make_tensor_value_info("label", label_elem, ["N"]),
            helper.make_tensor_value_info("probabilities", elem, ["N", model.n_classes])]


def _cast_output(gb: GraphBuilder, info, to: int):
    """Rename a computed output ``name`` to ``name_64`` everywhere and add ``Cast -> name``."""
    name = info.name
    inner = gb.name(name + "_64")
    for node in gb.nodes:
        for i, v in enumerate(node.input):
            if v == name:
                node.input[i] = inner
        for i, v in enumerate(node.output):
            if v == name:
                node.output[i] = inner
    gb.op("Cast", [inner], to=to, out=name)
    dims = [d.dim_param or d.dim_value for d in info.type.tensor_type.shape.dim]
    return helper.make_tensor_value_info(name, to, dims)


def _nominal_codes(gb: GraphBuilder, x: str, forest: Forest, dtype) -> str:
    """Nominal columns as the evaluator reads them: integer codes, -1 for anything unseen, NaN kept."""
    cols = gb.op("Gather", [x, gb.const(np.asarray(forest.nominal, np.int64), "nominal")], axis=1)
    sizes = gb.const(np.asarray([forest.domain_sizes[j] for j in forest.nominal], dtype), "domain_size")
    bad = gb.op("Or", [gb.op("Less", [cols, gb.const(np.asarray(0, dtype))]),
                       gb.op("GreaterOrEqual", [cols, sizes])])
    return gb.op("Where", [bad, gb.const(np.asarray(-1, dtype), "unseen"), gb.op("Floor", [cols])],
                 hint="codes")


def _oblique_tests(gb: GraphBuilder, x: str, forest: Forest, dtype) -> str:
    """One 0/1 column per oblique split: the float64 sum, left to right, compared with its bound.

    Computed with element-wise Mul/Add (a MatMul may reorder or fuse the sum), so the result equals
    :func:`rulekit.ir.compiled.linear_score` bit for bit; a NaN sum goes to the split's missing side.
    """
    xd = x if dtype == np.float64 else gb.op("Cast", [x], to=TensorProto.DOUBLE)
    lin = forest.linear
    depth = max(len(s.features) for s in lin)
    total = None
    for k in range(depth):
        valid = np.array([k < len(s.features) for s in lin])
        cols = np.array([s.features[k] if k < len(s.features) else 0 for s in lin], np.int64)
        w = np.array([s.weights[k] if k < len(s.features) else 0.0 for s in lin])
        term = gb.op("Mul", [gb.op("Gather", [xd, gb.const(cols, "terms")], axis=1), gb.const(w, "w")])
        if not valid.all():
            term = gb.op("Where", [gb.const(valid, "valid"), term, gb.const(np.asarray(0.0))])
        total = term if total is None else gb.op("Add", [total, term])
    bound = gb.const(np.array([s.bound for s in lin]), "bound")
    side = gb.op("Where", [gb.op("LessOrEqual", [total, bound]), gb.const(np.asarray(0.0)),
                           gb.const(np.asarray(1.0))])
    missing = gb.const(np.array([float(s.missing_branch) for s in lin]), "missing_side")
    z = gb.op("Where", [gb.op("IsNaN", [total]), missing, side])
    return z if dtype == np.float64 else gb.op("Cast", [z], to=TensorProto.FLOAT)


def _combine(gb: GraphBuilder, model: Model, forest: Forest, ensemble, dtype, elem) -> list:
    """The ensemble operator plus the combiner, with as few nodes as exactness allows.

    Averages: divided inside the operator when each leaf has one weight (sum, then / n_trees), else
    by an explicit Div. Boosting: base scores are leading one-leaf trees, then Sigmoid or Softmax.
    Two classes: the operator carries class 1 and ``p0 = 1 - p1``.
    """
    red = model.reduction()
    if red.kind == "sum" and red.float32:
        return combine32(gb, model, forest, ensemble, elem)
    if red.scale == "term":
        return combine_avg32(gb, model, forest, ensemble, elem)
    averaged = red.scale == "end"
    in_op = averaged and forest.width == 1
    if model.task == "regression":
        raw = ensemble(average=in_op)
        if averaged and not in_op:
            raw = gb.op("Div", [raw, gb.const(np.asarray(len(model.trees), dtype), "n_trees")])
        gb.to_vector(raw, out="prediction")
        return [helper.make_tensor_value_info("prediction", elem, ["N"])]
    label_elem = None
    if red.kind == "sum":
        raw = ensemble()
        if red.link == "softmax":
            gb.op("Softmax", [raw], axis=1, out="probabilities")
        else:
            _two_classes(gb, gb.op("Sigmoid", [raw], hint="p1"), dtype)
        if red.label != "argmax":
            label_elem = decision_label(gb, model.classes, red, raw, dtype)
    elif forest.width == 1:  # two classes: class 1 only
        _two_classes(gb, ensemble(average=in_op), dtype)
    elif averaged:
        gb.op("Div", [ensemble(), gb.const(np.asarray(len(model.trees), dtype), "n_trees")],
              out="probabilities")
    else:
        ensemble(out="probabilities")
    if label_elem is None:
        label_elem = label_output(gb, model.classes, "probabilities")
    return [helper.make_tensor_value_info("label", label_elem, ["N"]),
            helper.make_tensor_value_info("probabilities", elem, ["N", model.n_classes])]


def _two_classes(gb: GraphBuilder, p1: str, dtype) -> None:
    """probabilities = [1 - p1, p1] in one Gemm: ``p1 @ [[-1, 1]] + [1, 0]`` (each entry is one
    product and one addition, so it rounds exactly like ``1 - p1``)."""
    gb.op("Gemm", [p1, gb.const(np.array([[-1.0, 1.0]], dtype), "pm"), gb.const(np.array([1.0, 0.0], dtype), "bias")],
          out="probabilities")
