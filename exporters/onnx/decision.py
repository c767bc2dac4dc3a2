"""The ``label`` output of a boosted model whose combiner sets a raw-score decision (``Reduction.label``).

scikit-learn's boosting and XGBoost label a row from its raw score, not from its probabilities
(which may tie, or round to a tie in float32, while the raw score does not): sigmoid ``classes[1]``
iff ``raw >= 0`` ("raw>=0") or ``raw > 0`` ("raw>0"); softmax: the first largest raw score
("raw-argmax"). One function for the float64 graph (:mod:`.model`) and the float32 one (:mod:`.float32`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from onnx import TensorProto

from rulekit.semantics.combiners import Reduction

from .graph import GraphBuilder
from .labels import is_range, label_array, label_output


def decision_label(gb: GraphBuilder, classes: Sequence, red: Reduction, raw: str, dtype, *,
                   labels: str | None = None) -> int:
    """Emit ``label`` from the raw scores ``raw`` ([N, width], element type ``dtype``) by ``red.label``;
    returns the label's element type. ``labels``: a constant of the classes already in the graph
    (the rule export's) to gather from, instead of the model export's own."""
    if labels is not None:
        if red.label == "raw-argmax":
            idx = gb.op("ArgMax", [raw], axis=1, keepdims=0, select_last_index=0, hint="class_index")
        else:
            zero = gb.const(np.zeros((), dtype=dtype), "zero")
            hit = gb.op("GreaterOrEqual" if red.label == "raw>=0" else "Greater", [raw, zero])
            idx = gb.to_vector(gb.op("Cast", [hit], to=TensorProto.INT64))
        gb.op("Gather", [labels, idx], axis=0, out="label")
        return label_array(classes)[1]
    if red.label == "raw-argmax":
        return label_output(gb, classes, raw)
    zero = gb.const(np.zeros((), dtype=dtype), "zero")
    hit = gb.to_vector(gb.op("GreaterOrEqual" if red.label == "raw>=0" else "Greater", [raw, zero]))
    if is_range(classes):
        gb.op("Cast", [hit], to=TensorProto.INT64, out="label")
        return TensorProto.INT64
    return label_output(gb, classes, index=gb.op("Cast", [hit], to=TensorProto.INT64))
