"""Class labels as an ONNX constant and the ``label`` output: ArgMax over probabilities, then Gather.

Strings become a string tensor, integers int64, booleans bool, floats double; mixed types are
written as strings (``str(label)``). ArgMax keeps the first maximum, as numpy's argmax does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from onnx import TensorProto

from .graph import GraphBuilder


def label_array(classes: Sequence) -> tuple[np.ndarray, int]:
    """The classes as a numpy array ONNX can hold, and its element type."""
    kinds = {type(c) for c in classes}
    if kinds == {bool} or kinds <= {bool, np.bool_}:
        return np.asarray(classes, dtype=bool), TensorProto.BOOL
    if all(isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)) for c in classes):
        return np.asarray(classes, dtype=np.int64), TensorProto.INT64
    if all(isinstance(c, (float, np.floating)) for c in classes):
        return np.asarray(classes, dtype=np.float64), TensorProto.DOUBLE
    return np.asarray([str(c) for c in classes], dtype=object), TensorProto.STRING


def is_range(classes: Sequence) -> bool:
    """True for integer classes 0..K-1: the class index is the label."""
    arr, elem = label_array(classes)
    return elem == TensorProto.INT64 and np.array_equal(arr, np.arange(len(arr)))


def label_output(gb: GraphBuilder, classes: Sequence, scores: str | None = None, *,
                 index: str | None = None, out: str = "label") -> int:
    """Emit ``label = classes[argmax(scores, axis=1)]`` (or ``classes[index]`` for an int64 [N] class
    index). Classes ``0..K-1`` are their own index: no Gather. Returns the label element type."""
    arr, elem = label_array(classes)
    identity = is_range(classes)
    if index is None:
        index = gb.op("ArgMax", [scores], axis=1, keepdims=0, select_last_index=0,
                      out=out if identity else None, hint="class_index")
        if identity:
            return elem
    elif identity:
        gb.op("Identity", [index], out=out)
        return elem
    gb.op("Gather", [gb.const(arr, "classes"), index], axis=0, out=out)
    return elem
