"""A small ONNX graph builder: unique names, constants as initializers, opset-aware helpers.

Everything the exporter emits goes through :class:`GraphBuilder`, so names never collide and the
few operators whose signature changed between opsets (Reduce*, Squeeze) are written correctly for
the ai.onnx opset in use.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ML_DOMAIN = "ai.onnx.ml"

NP_TO_ONNX = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.bool_): TensorProto.BOOL,
    np.dtype(object): TensorProto.STRING,
}


class GraphBuilder:
    """Collects nodes and initializers of one graph; ``opset`` is the ai.onnx opset version."""

    def __init__(self, opset: int, ml_opset: int):
        self.opset = opset
        self.ml_opset = ml_opset
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._n = 0

    def name(self, hint: str) -> str:
        self._n += 1
        return f"{hint}_{self._n}"

    def const(self, value: Any, hint: str = "c", dtype: Any = None) -> str:
        """An initializer holding ``value`` (numpy array or scalar) and its name."""
        arr = np.asarray(value, dtype=dtype)
        name = self.name(hint)
        if arr.dtype.kind in "US":
            arr = arr.astype(object)
        self.initializers.append(numpy_helper.from_array(arr, name=name))
        return name

    def op(self, op_type: str, inputs: list[str], *, out: str | None = None, domain: str = "",
           hint: str | None = None, **attrs: Any) -> str:
        """Append one single-output node; returns its output name (``out`` when given)."""
        output = out or self.name(hint or op_type.lower())
        kwargs = {"domain": domain} if domain else {}
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=self.name("n_" + op_type),
                                           **kwargs, **attrs))
        return output

    def add_node(self, node: onnx.NodeProto) -> None:
        self.nodes.append(node)

    # --- opset-dependent helpers ---------------------------------------------------------------
    def reduce(self, op_type: str, x: str, axis: int, *, keepdims: int = 1, out: str | None = None) -> str:
        if self.opset >= 18 or op_type == "ReduceSum" and self.opset >= 13:
            return self.op(op_type, [x, self.const(np.array([axis], np.int64), "axes")],
                           keepdims=keepdims, out=out)
        return self.op(op_type, [x], axes=[axis], keepdims=keepdims, out=out)

    def column(self, x: str, j: int, *, keep: bool = False) -> str:
        """Column ``j`` of a [N, F] tensor: [N] (or [N, 1] with ``keep``)."""
        idx = self.const(np.array([j] if keep else j, np.int64), "col")
        return self.op("Gather", [x, idx], axis=1)

    def to_vector(self, x: str, *, out: str | None = None) -> str:
        """[N, 1] -> [N]."""
        return self.op("Reshape", [x, self.const(np.array([-1], np.int64), "shape")], out=out)

    def model(self, inputs: list[onnx.ValueInfoProto], outputs: list[onnx.ValueInfoProto], *,
              name: str, doc: str, metadata: dict[str, str]) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, name, inputs, outputs, initializer=self.initializers,
                                  doc_string=doc)
        opsets = [helper.make_opsetid("", self.opset), helper.make_opsetid(ML_DOMAIN, self.ml_opset)]
        model = helper.make_model(graph, opset_imports=opsets, producer_name="rulekit",
                                  producer_version=_version(), doc_string=doc)
        # onnx writes its newest IR version by default, which older onnxruntime builds refuse: pin the
        # smallest IR version that carries these opsets.
        model.ir_version = helper.find_min_ir_version_for(opsets, ignore_unknown=True)
        helper.set_model_props(model, metadata)
        return model


def _version() -> str:
    try:
        import rulekit  # noqa: PLC0415

        return rulekit.__version__
    except Exception:  # pragma: no cover - version is informative only
        return "0"
