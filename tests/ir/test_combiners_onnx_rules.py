"""The ONNX rule export of ensemble rule bases against the combiner reference
(:mod:`rulekit.semantics.combiners`), on more forms than tests/ir/test_combiners.py's fixtures:
float32 averages of 3 classes (float32(v / n) added in group order in float32),
float64 sums started at the base and added in tree order (many trees, several outputs), each
exactly (labels and probabilities or values, onnxruntime at dtype double)."""

from __future__ import annotations

import numpy as np
import pytest

import rulekit
from rulekit.ir.model import Combiner

from .test_combiners import XS, _check, _ensemble

# values chosen so that the float64 sum in another order, or a float64 average, differs somewhere
_THIRDS = [((1 / 3, 1 / 3, 1 / 3), (0.1, 0.2, 0.7)), ((0.7, 0.2, 0.1), (1 / 3, 1 / 3, 1 / 3)),
           ((0.2, 0.5, 0.3), (0.6, 0.1, 0.3)), ((0.1, 0.1, 0.8), (0.3, 0.3, 0.4)),
           ((0.3, 0.6, 0.1), (0.5, 0.25, 0.25))]
_SUMS = [((0.1,), (0.2,)), ((0.3,), (-0.7,)), ((1e-17,), (2.5,)), ((1 / 3,), (0.1,)), ((0.7,), (-1e-16,)),
         ((-0.1,), (0.3,)), ((2.0 ** -40,), (1.1,))]

MODELS = {
    "average-f32-3": _ensemble(_THIRDS, Combiner(kind="average", arithmetic="float32"), "classification",
                               ["a", "b", "c"]),
    "sum-7": _ensemble(_SUMS, Combiner(kind="sum", base_score=(0.9,)), "regression"),
    "sum-7-sigmoid": _ensemble(_SUMS, Combiner(kind="sum", base_score=(-0.1,), link="sigmoid"),
                               "classification", [0, 1]),
    "softmax-7": _ensemble(_SUMS, Combiner(kind="sum", base_score=(0.1, 1 / 3, 0.0), link="softmax",
                                           tree_output=(0, 1, 2, 0, 1, 2, 0)), "classification",
                           ["x", "y", "z"]),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_onnxruntime_rule_base_matches_the_reference(name):
    ort = pytest.importorskip("onnxruntime")
    from rulekit.export import to_onnx

    m = MODELS[name]
    rb = rulekit.to_rules(m)
    sess = ort.InferenceSession(to_onnx(rb, dtype="double").SerializeToString(),
                                providers=["CPUExecutionProvider"])
    out = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"X": np.array([[x] for x in XS])})))
    if m.task == "regression":
        _check(m, out["prediction"], None)
        return
    labels = out["label"]
    if labels.dtype.kind in "iu" and not isinstance(m.classes[0], int):
        labels = [m.classes[int(i)] for i in labels]
    _check(m, labels, out["probabilities"], tol=1e-15 if m.combiner.link == "softmax" else 0.0)
