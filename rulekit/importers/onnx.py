"""ONNX tree ensembles -> rulekit Model, reproducing what onnxruntime computes from the file.

    >>> model = load_file("model.onnx")            # rulekit import model.onnx --format onnx
    >>> model = from_onnx(proto_or_bytes_or_path)  # rulekit.from_onnx

Reads ai.onnx.ml TreeEnsembleClassifier/Regressor (ml opsets 1-3) and TreeEnsemble (ml opset 5)
as skl2onnx, onnxmltools (XGBoost, LightGBM) and CatBoost write them (:mod:`.onnx_graph` says which
nodes may sit around the operator), and rulekit's own exports (:mod:`.onnx_rulekit`). The operator
compares in float for float input (float32 splits in the IR) and in double for double input.

Exactness (measured against onnxruntime 1.32, one thread): double operators bit-identical, except
legacy classifiers fed double input with float weights (skl2onnx forests with a double input):
onnxruntime sums the float weights in double and rounds the probabilities to float, the IR keeps
the double average (within 3.0e-8, no label seen to differ; docs/onnx.md); float operators compare
in float, and boosting/regression sums and the summed probabilities of float
classifiers (skl2onnx forests: ``average`` with ``arithmetic="float32"``) are float32 sums in
onnxruntime's order (bit-identical; see :func:`.onnx_combine._averaged` for what keeps a float64
average). onnxruntime's own multi-threaded float sums merge partial sums and differ from its
single-threaded result by 1 ulp on some rows (and then in the label on rows that tie).

Hostile files: the file is read whole up to :data:`MAX_BYTES` (protobuf's own 2 GB limit) and
parsed without following external data; every node reference is checked and a tree may hold at
most the nodes the file lists (no expansion), so memory stays proportional to the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rulekit.errors import RulekitError
from rulekit.importers import onnx_rulekit
from rulekit.importers.onnx_combine import combine
from rulekit.importers.onnx_graph import describe, find_ensemble
from rulekit.importers.onnx_tree_ir import TreeReader
from rulekit.importers.onnx_trees import OnnxModelError, decode
from rulekit.ir.model import Feature, Model

MAX_BYTES = 2**31 - 1  # protobuf cannot parse a message this big


def from_onnx(obj: Any) -> Model:
    """A rulekit Model from an ``onnx.ModelProto``, the bytes of an ONNX file or its path."""
    from onnx import ModelProto

    if isinstance(obj, ModelProto):
        return convert(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return convert(parse(bytes(obj)))
    if isinstance(obj, (str, Path)):
        return load_file(obj)
    raise RulekitError(f"from_onnx takes an onnx.ModelProto, bytes or a path, not {type(obj).__name__}")


def load_file(path: str | Path) -> Model:
    """The Model in an ONNX file (``rulekit import F --format onnx``)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise RulekitError(f"{p}: is a directory, expected an ONNX file")
        if size > MAX_BYTES:
            raise OnnxModelError(f"{p}: {size} bytes, more than an ONNX protobuf can hold (2 GB)")
        data = p.read_bytes()
    except FileNotFoundError:
        raise RulekitError(f"{p}: no such file") from None
    except OSError as err:
        raise RulekitError(f"{p}: cannot read ({err.strerror or err})") from None
    try:
        model = convert(parse(data))
    except RulekitError as err:
        raise type(err)(f"{p}: {err.message}") from None
    model.source.setdefault("file", p.name)
    return model


def parse(data: bytes):
    """An ``onnx.ModelProto`` from bytes, refusing what is not one and external data."""
    from google.protobuf.message import DecodeError
    from onnx import ModelProto

    if len(data) > MAX_BYTES:
        raise OnnxModelError(f"{len(data)} bytes, more than an ONNX protobuf can hold (2 GB)")
    proto = ModelProto()
    try:
        proto.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as err:
        raise OnnxModelError(f"not an ONNX model ({str(err).splitlines()[0] if str(err) else 'protobuf error'})") \
            from None
    if not proto.HasField("graph") or not proto.graph.node:
        raise OnnxModelError("not an ONNX model (no graph nodes)")
    return proto


def _refuse_external(proto) -> None:
    from onnx import TensorProto

    tensors = list(proto.graph.initializer)
    for node in proto.graph.node:
        tensors.extend(a.t for a in node.attribute if a.HasField("t"))
    for t in tensors:
        if t.data_location == TensorProto.EXTERNAL:
            raise OnnxModelError(f"tensor {t.name!r} keeps its data in an external file; rulekit reads "
                                 f"self-contained ONNX files only")


def convert(proto) -> Model:
    """The Model for a parsed ONNX model."""
    _refuse_external(proto)
    if onnx_rulekit.is_rulekit(proto):
        return onnx_rulekit.convert(proto)
    found = find_ensemble(proto)
    ens = decode(found.node, found.ml_version)
    width = max(ens.feature, default=-1) + 1
    n_features = found.n_features if found.n_features is not None else width
    if n_features < width:
        raise OnnxModelError(f"{describe(found.node)} reads feature {width - 1} of an input with "
                             f"{n_features} columns")
    float32 = found.compare_type == "float"
    reader = TreeReader(ens, n_features, float32=float32)
    parts = combine(ens, reader, float32=float32, label_used=found.label_used)
    features = [Feature(name=f"x{j}", kind="nominal", domain=reader.domains[j], match="exact")
                if j in reader.domains else Feature(name=f"x{j}") for j in range(n_features)]
    source = {"library": "onnx", "producer": proto.producer_name or None,
              "producer_version": proto.producer_version or None, "operator": found.node.op_type,
              "ml_opset": found.ml_version, "input": found.input_type,
              "compares_in": found.compare_type}
    try:
        return Model(parts.trees, features, task=parts.task, classes=parts.classes, combiner=parts.combiner,
                     source={k: v for k, v in source.items() if v is not None})
    except RulekitError as err:
        raise OnnxModelError(f"{describe(found.node)}: {err.message}") from None
