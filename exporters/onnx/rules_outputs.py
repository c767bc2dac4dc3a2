"""The ONNX rule export's outputs from the fired matrix, per the rule base's semantics:
``first-hit`` = ArgMax over [fired..., default], ``vote``/``weighted-sum`` = MatMul with the rules'
weighted conclusions, ensembles = first hit per group, then the model's combiner."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
from onnx import TensorProto, helper

from rulekit.errors import ExportError
from rulekit.rules.base import RuleBase
from rulekit.rules.outcomes import Outcomes
from rulekit.semantics import combiners

from .decision import decision_label
from .float32 import link32, sum32
from .graph import GraphBuilder
from .labels import label_array

DOUBLE = TensorProto.DOUBLE
F32 = TensorProto.FLOAT
I64 = TensorProto.INT64


def _no_decision(classes: list, elem: int) -> Any:
    if elem == TensorProto.STRING:  # "" unless it is a class: then a text no class is
        word, n = "", 0
        while word in classes:
            n += 1
            word = f"<no decision{'' if n == 1 else f' {n}'}>"
        return word
    if elem == TensorProto.DOUBLE:
        return math.nan
    if elem == TensorProto.INT64:
        return -1 if -1 not in classes else min(classes) - 1
    raise ExportError("a rule base with boolean labels and no default cannot say 'no decision' in ONNX: "
                      "add a default rule")


def outputs(gb: GraphBuilder, rb: RuleBase, out: Outcomes, fired: str | None, fired_x: str, dtype, elem):
    """Outputs from the fired matrix ([N, R] uint8) per the rule base's semantics and combiner."""
    R = len(rb.rules)
    meta: dict[str, str] = {}

    def finish(values: str, name: str) -> str:
        if dtype == np.float64:
            return gb.op("Identity", [values], out=name)
        return gb.op("Cast", [values], to=TensorProto.FLOAT, out=name)

    classification = rb.task == "classification"
    labels = None
    if classification:
        arr, label_elem = label_array(out.classes)
        can_undecide = rb.combiner is None and not out.has_default
        if can_undecide:
            sentinel = _no_decision(list(arr), label_elem)
            meta["rulekit.no_decision_label"] = json.dumps(sentinel if not isinstance(sentinel, float) else None)
            arr = np.concatenate([arr, np.asarray([sentinel], dtype=arr.dtype)])
        labels = gb.const(arr, "classes")
        K = len(out.classes)
        cls = np.where(out.cls < 0, K, out.cls).astype(np.int64)
    if rb.combiner is not None:
        return _ensemble(gb, rb, out, fired_x, finish, labels, elem), meta
    if rb.semantics == "first-hit":
        hit = gb.op("ArgMax", [fired_x], axis=1, keepdims=0, select_last_index=0, hint="hit")
        if not classification:
            finish(gb.op("Gather", [gb.const(out.vec[:, 0], "values"), hit], axis=0), "prediction")
            return [helper.make_tensor_value_info("prediction", elem, ["N"])], meta
        vec = out.vec.copy()
        if not out.has_default:
            vec[R] = np.nan
        finish(gb.op("Gather", [gb.const(vec, "proba_table"), hit], axis=0), "probabilities")
        gb.op("Gather", [labels, gb.op("Gather", [gb.const(cls, "class_of_rule"), hit], axis=0)], axis=0,
              out="label")
        return _class_outputs(label_elem, elem, K), meta
    # vote / weighted-sum: MatMul of the fired matrix with the rules' weighted conclusions
    if fired is None:
        fired = gb.op("Slice", [fired_x, gb.const(np.array([0], np.int64)), gb.const(np.array([0], np.int64)),
                                gb.const(np.array([1], np.int64))])
    m = gb.op("Cast", [fired], to=DOUBLE, hint="fired64")
    if R:  # no rule fired
        none = gb.op("Equal", [gb.reduce("ReduceMax", fired, 1), gb.const(np.zeros((), np.uint8))])
    else:
        none = gb.op("Cast", [fired_x], to=TensorProto.BOOL)
    w = out.weight[:R]
    default = out.vec[R]
    if rb.semantics == "vote":
        if not classification:
            wv = gb.op("MatMul", [m, gb.const((w * out.vec[:R, 0]).reshape(R, 1), "wv")])
            tot = gb.op("MatMul", [m, gb.const(w.reshape(R, 1), "w")])
            val = gb.op("Where", [none, gb.const(default[:1]), gb.op("Div", [wv, tot])])
            finish(gb.to_vector(val), "prediction")
            return [helper.make_tensor_value_info("prediction", elem, ["N"])], meta
        onehot = np.zeros((R, K))
        onehot[np.arange(R), out.cls[:R]] = w
        votes = gb.op("MatMul", [m, gb.const(onehot, "votes")], hint="votes")
        proba = _normalise(gb, votes)
        dflt = default.copy() if out.has_default else np.full(K, np.nan)
        finish(gb.op("Where", [none, gb.const(dflt.reshape(1, K), "default"), proba]), "probabilities")
        idx = gb.op("Where", [gb.to_vector(none), gb.const(np.asarray(cls[R], np.int64)),
                              gb.op("ArgMax", [votes], axis=1, keepdims=0, select_last_index=0)])
        gb.op("Gather", [labels, idx], axis=0, out="label")
        return _class_outputs(label_elem, elem, K), meta
    # weighted-sum: default + sum of weight * value over matching rules
    total = gb.op("Add", [gb.const(default.reshape(1, -1), "base"),
                          gb.op("MatMul", [m, gb.const(w[:, None] * out.vec[:R], "wvec")])], hint="total")
    if not classification:
        finish(gb.to_vector(gb.op("Gather", [total, gb.const(np.array([0], np.int64))], axis=1)), "prediction")
        return [helper.make_tensor_value_info("prediction", elem, ["N"])], meta
    finish(_normalise(gb, total), "probabilities")
    gb.op("Gather", [labels, gb.op("ArgMax", [total], axis=1, keepdims=0, select_last_index=0)], axis=0,
          out="label")
    return _class_outputs(label_elem, elem, K), meta


def _normalise(gb: GraphBuilder, scores: str) -> str:
    """scores / row sum where the sum is positive, else 0 (the engine's proba of votes and sums)."""
    tot = gb.reduce("ReduceSum", scores, 1)
    pos = gb.op("Greater", [tot, gb.const(np.zeros(()))])
    safe = gb.op("Where", [pos, tot, gb.const(np.ones(()))])
    return gb.op("Where", [pos, gb.op("Div", [scores, safe]), gb.const(np.zeros(()))])


def _class_outputs(label_elem: int, elem: int, K: int) -> list:
    return [helper.make_tensor_value_info("label", label_elem, ["N"]),
            helper.make_tensor_value_info("probabilities", elem, ["N", K])]


def _scan_add(gb: GraphBuilder, init: str, xs: str, elem: int, width: int, mask: str | None = None) -> str:
    """``init`` ([N, width]) plus each group's ``xs[:, g]`` ([N, G, width or 1]) in group order, in
    ``elem``'s precision (float addition is not associative, so no ReduceSum); with ``mask``
    ([G, width] bool) group ``g`` adds to the columns ``mask[g]`` selects only."""
    nodes = [helper.make_node("Add", ["state", "x"], ["added" if mask else "next"])]
    inputs = [helper.make_tensor_value_info("state", elem, ["N", width]),
              helper.make_tensor_value_info("x", elem, ["N", None])]
    if mask:
        nodes.append(helper.make_node("Where", ["mask", "added", "state"], ["next"]))
        inputs.append(helper.make_tensor_value_info("mask", TensorProto.BOOL, [width]))
    body = helper.make_graph(nodes, "add_group", inputs,
                             [helper.make_tensor_value_info("next", elem, ["N", width])])
    return gb.op("Scan", [init, xs] + ([mask] if mask else []), body=body, num_scan_inputs=1 + bool(mask),
                 scan_input_axes=[1, 0] if mask else [1], hint="group_sum")


def _ensemble(gb: GraphBuilder, rb: RuleBase, out: Outcomes, fired_x: str, finish, labels, elem) -> list:
    """Groups are trees: the first hit within each group (or the default), then the combiner."""
    c = rb.combiner
    R = len(rb.rules)
    by: dict[int, list[int]] = {}
    for i, r in enumerate(rb.rules):
        by.setdefault(r.group, []).append(i)
    grs = [idx for _, idx in sorted(by.items())]
    G = len(grs)
    if G == 0:
        raise ExportError("an ensemble rule base needs rules")
    if c.tree_output is not None and len(c.tree_output) != G:
        raise ExportError(f"the combiner names {len(c.tree_output)} trees but the rules form {G} groups")
    width = max(len(g) for g in grs) + 1
    cols = np.full((G, width), R, np.int64)  # column R of fired_x is the always-true default
    for g, idx in enumerate(grs):
        cols[g, :len(idx)] = idx
    pos = gb.op("ArgMax", [gb.op("Gather", [fired_x, gb.const(cols, "group_cols")], axis=1)], axis=2,
                keepdims=0, select_last_index=0, hint="group_hit")
    flat = gb.op("Add", [pos, gb.const(np.arange(G, dtype=np.int64) * width, "group_base")])
    rule = gb.op("Gather", [gb.const(cols.reshape(-1), "group_rules"), flat], axis=0, hint="group_rule")
    K = len(out.classes)
    red = combiners.reduction(c, G, task=rb.task, value_size=K if rb.task == "classification" else 1)
    # float32 averages: each group's term float32(v / G), divided in double (as combine_avg32)
    table = (out.vec / G).astype(np.float32) if red.scale == "term" else out.vec
    vals = gb.op("Gather", [gb.const(table, "rule_values"), rule], axis=0, hint="group_values")  # [N, G, W]
    if c.kind == "sum" and c.arithmetic == "float32":  # XGBoost's float32 sums and link
        v0 = gb.op("Gather", [vals, gb.const(np.asarray(0, np.int64))], axis=2)  # [N, G]
        n_out = red.width
        raw = sum32(gb, v0, list(red.outputs), n_out, base=red.base or (0.0,) * n_out)
        if rb.task == "regression":
            finish(gb.op("Cast", [gb.to_vector(raw)], to=DOUBLE), "prediction")
            return [helper.make_tensor_value_info("prediction", elem, ["N"])]
        proba = link32(gb, raw, c.link, n_out)
        if red.label == "argmax":
            gb.op("Gather", [labels, gb.op("ArgMax", [proba], axis=1, keepdims=0, select_last_index=0)], axis=0,
                  out="label")
        else:  # a raw-score decision: the float32 probabilities may tie where the raw score does not
            decision_label(gb, out.classes, red, raw, np.float32, labels=labels)
        finish(gb.op("Cast", [proba], to=DOUBLE), "probabilities")
        return _class_outputs(label_array(out.classes)[1], elem, K)
    if c.kind == "sum":
        # from the base, each tree added to its output in tree order in double (float addition is
        # not associative: base + (t0 + t1) is not (base + t0) + t1)
        v0 = gb.op("Gather", [vals, gb.const(np.array([0], np.int64))], axis=2)  # [N, G, 1]
        n_out = red.width
        mask = np.zeros((G, n_out), bool)
        mask[np.arange(G), red.outputs] = True
        shape = gb.op("Concat", [gb.op("Shape", [vals], end=1), gb.const(np.array([n_out], np.int64))], axis=0)
        base = np.asarray(red.base or (0.0,) * n_out, np.float64).reshape(1, -1)
        start = gb.op("Expand", [gb.const(base, "base"), shape])
        raw = _scan_add(gb, start, v0, DOUBLE, n_out, mask=gb.const(mask, "tree_output"))
        if rb.task == "regression":
            finish(gb.to_vector(gb.op("Gather", [raw, gb.const(np.array([0], np.int64))], axis=1)), "prediction")
            return [helper.make_tensor_value_info("prediction", elem, ["N"])]
        if c.link == "sigmoid":
            p1 = gb.op("Sigmoid", [raw])
            proba = gb.op("Gemm", [p1, gb.const(np.array([[-1.0, 1.0]]), "pm"), gb.const(np.array([1.0, 0.0]))])
        elif c.link == "softmax":
            proba = gb.op("Softmax", [raw], axis=1)
        else:
            raise ExportError("a boosted classifier needs a sigmoid or softmax link")
        finish(proba, "probabilities")
        decision = getattr(c, "decision", None)
        if decision is not None and c.link == "sigmoid":
            hit = gb.op("GreaterOrEqual" if decision == "raw>=0" else "Greater", [raw, gb.const(np.zeros(()))])
            idx = gb.to_vector(gb.op("Cast", [hit], to=I64))
        else:
            idx = gb.op("ArgMax", [raw if decision is not None else proba], axis=1, keepdims=0,
                        select_last_index=0)
        gb.op("Gather", [labels, idx], axis=0, out="label")
        return _class_outputs(label_array(out.classes)[1], elem, K)
    if c.kind == "vote":
        # one vote per tree for its first most probable class: Equal against 0..K-1, not OneHot
        # (onnxruntime 1.32 has no OneHot with double values: the model would not load)
        winner = gb.op("ArgMax", [vals], axis=2, keepdims=1, select_last_index=0)  # [N, G, 1]
        onehot = gb.op("Cast", [gb.op("Equal", [winner, gb.const(np.arange(K, dtype=np.int64), "class_ids")])],
                       to=DOUBLE)  # [N, G, K]
        total = gb.op("Div", [gb.reduce("ReduceSum", onehot, 1, keepdims=0), gb.const(np.asarray(float(G)))])
    elif red.scale == "term":  # float32: the terms added in group order from 0, two classes [1 - s, s]
        shape = gb.op("Concat", [gb.op("Shape", [vals], end=1), gb.const(np.array([K or 1], np.int64))], axis=0)
        zeros = gb.op("ConstantOfShape", [shape], value=helper.make_tensor("zero", F32, [1], [0.0]))
        total = _scan_add(gb, zeros, vals, F32, K or 1)
        if red.link == "complement":  # one product and one addition per entry, as 1 - s rounds in float32
            total = gb.op("Gemm", [gb.column(total, 1, keep=True), gb.const(np.float32([[-1.0, 1.0]]), "pm"),
                                   gb.const(np.float32([1.0, 0.0]), "bias")])
        total = gb.op("Cast", [total], to=DOUBLE)
    else:
        total = gb.reduce("ReduceSum", vals, 1, keepdims=0)
        if c.kind == "average":
            total = gb.op("Div", [total, gb.const(np.asarray(float(G)))])
    if rb.task == "regression":
        finish(gb.to_vector(gb.op("Gather", [total, gb.const(np.array([0], np.int64))], axis=1)), "prediction")
        return [helper.make_tensor_value_info("prediction", elem, ["N"])]
    finish(total, "probabilities")
    gb.op("Gather", [labels, gb.op("ArgMax", [total], axis=1, keepdims=0, select_last_index=0)], axis=0,
          out="label")
    return _class_outputs(label_array(out.classes)[1], elem, K)


__all__ = ["outputs"]
