"""Find the one tree-ensemble node in an ONNX graph and check that everything around it is harmless.

Converters put a few nodes around the operator: skl2onnx and onnxmltools a ``Cast`` of the label
and a ``ZipMap`` of the probabilities, LightGBM's converter ``Identity`` nodes, double-input models
a ``Cast`` of the input. Those change no value rulekit reproduces (a ``Cast`` of the input to float
makes the operator compare in float, which the IR's float32 splits say). Any other node, a second
ensemble, a second input or an output that does not come from the ensemble is refused, naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

from onnx import ModelProto, NodeProto, TensorProto, numpy_helper

from rulekit.importers.onnx_trees import OnnxModelError

ML_DOMAIN = "ai.onnx.ml"
ENSEMBLES = ("TreeEnsembleClassifier", "TreeEnsembleRegressor", "TreeEnsemble")
PASS_THROUGH = ("Identity", "Cast")
FLOATS = {TensorProto.FLOAT: "float", TensorProto.DOUBLE: "double"}
LABEL_CASTS = (TensorProto.INT64, TensorProto.INT32, TensorProto.STRING)
SHAPING = ("Reshape", "Squeeze", "Flatten", "Identity")
LABEL_OPS = ("ArgMax", "ArrayFeatureExtractor", "Reshape", "Squeeze", "Flatten")


@dataclass
class Found:
    node: NodeProto
    ml_version: int
    input_name: str
    input_type: str  # "float" | "double"
    compare_type: str  # the operator's input type: "float" | "double"
    n_features: int | None  # from the input's shape, when it says
    label_used: bool  # a graph output is the operator's label


def describe(node: NodeProto) -> str:
    """``node 'name' (OpType)``; text from the file is quoted where it is not plain printable."""
    op = node.op_type
    if isinstance(op, bytes):  # protobuf hands back bytes for a field that is not UTF-8
        op = op.decode("utf-8", "replace")
    op = op if op.isprintable() else repr(op)
    return f"node {node.name!r} ({op})" if node.name else f"a {op} node"


def ml_opset(model: ModelProto) -> int:
    versions = [o.version for o in model.opset_import if o.domain == ML_DOMAIN]
    return max(versions) if versions else 1


def find_ensemble(model: ModelProto) -> Found:
    graph = model.graph
    inits = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in inits]
    if len(inputs) != 1:
        names = ", ".join(repr(i.name) for i in inputs) or "none"
        raise OnnxModelError(f"the graph has {len(inputs)} inputs ({names}); rulekit imports models with "
                             f"one input of shape [N, features]")
    x = inputs[0]
    tt = x.type.tensor_type if x.type.HasField("tensor_type") else None
    if tt is None or tt.elem_type not in FLOATS:
        raise OnnxModelError(f"input {x.name!r} must be a float or double tensor")
    dims = list(tt.shape.dim) if tt.HasField("shape") else []
    if dims and len(dims) != 2:
        raise OnnxModelError(f"input {x.name!r} has {len(dims)} dimensions; rulekit reads [N, features]")
    n_features = dims[1].dim_value if len(dims) == 2 and dims[1].HasField("dim_value") else None
    producer: dict[str, NodeProto] = {}
    ensembles = []
    for node in graph.node:
        if node.op_type in ENSEMBLES and node.domain == ML_DOMAIN:
            ensembles.append(node)
        elif node.op_type not in PASS_THROUGH + ("ZipMap",) + LABEL_OPS:
            raise OnnxModelError(f"{describe(node)}: rulekit imports a tree ensemble with Cast, Identity, "
                                 f"ZipMap and an ArgMax label around it, nothing else")
        for out in node.output:
            producer[out] = node
    if not ensembles:
        raise OnnxModelError("the graph has no ai.onnx.ml tree-ensemble node")
    if len(ensembles) > 1:
        raise OnnxModelError(f"{describe(ensembles[1])}: a second tree ensemble (rulekit imports one)")
    ens = ensembles[0]
    compare = _trace_input(ens, producer, x.name, FLOATS[tt.elem_type])
    label_used = False
    consts = {t.name: t for t in graph.initializer}
    for out in graph.output:
        if _argmax_label(out.name, producer, consts, ens):
            continue
        source, through = _trace_output(out.name, producer)
        if source is not ens:
            raise OnnxModelError(f"output {out.name!r} does not come from the tree ensemble")
        if ens.op_type == "TreeEnsembleClassifier" and out_index(ens, through[0]) == 0:
            label_used = True
            for node in through[1:]:
                if node.op_type != "Identity" and _cast_to(node) not in LABEL_CASTS:
                    raise OnnxModelError(f"{describe(node)}: changes the label's type")
        elif any(n.op_type == "Cast" and _cast_to(n) not in FLOATS for n in through[1:]):
            raise OnnxModelError(f"output {out.name!r} casts the scores to a non-float type")
    return Found(ens, ml_opset(model), x.name, FLOATS[tt.elem_type], compare, n_features, label_used)


def out_index(node: NodeProto, name: str) -> int:
    return list(node.output).index(name)


def _cast_to(node: NodeProto) -> int | None:
    for a in node.attribute:
        if a.name == "to":
            return a.i
    return None


def _trace_input(ens: NodeProto, producer: dict, x: str, x_type: str) -> str:
    """The operator's input type, following Cast/Identity back to the graph input."""
    if len(ens.input) != 1:
        raise OnnxModelError(f"{describe(ens)} has {len(ens.input)} inputs")
    name, steps = ens.input[0], 0
    types = []
    while name != x:
        node = producer.get(name)
        if node is None or node.op_type not in PASS_THROUGH or len(node.input) != 1:
            raise OnnxModelError(f"{describe(ens)} does not read the graph input (through Cast/Identity)")
        if node.op_type == "Cast":
            to = _cast_to(node)
            if to not in FLOATS:
                raise OnnxModelError(f"{describe(node)}: casts the input to a non-float type")
            types.append(FLOATS[to])
        name = node.input[0]
        steps += 1
        if steps > len(producer):
            raise OnnxModelError("the graph has a cycle")
    # a cast to float and back to double still rounds the input to float
    return "float" if x_type == "float" or "float" in types else "double"


def _trace_output(name: str, producer: dict) -> tuple[NodeProto | None, list]:
    """(the ensemble node, [the ensemble output name, nodes after it]) for a graph output."""
    chain = []
    steps = 0
    while True:
        node = producer.get(name)
        if node is None:
            return None, []
        if node.op_type in ENSEMBLES:
            return node, [name] + list(reversed(chain))
        if len(node.input) != 1 or node.op_type not in PASS_THROUGH + ("ZipMap",):
            return None, []
        chain.append(node)
        name = node.input[0]
        steps += 1
        if steps > len(producer):
            raise OnnxModelError("the graph has a cycle")


def _argmax_label(name: str, producer: dict, consts: dict, ens: NodeProto) -> bool:
    """Whether output ``name`` is ``classes[argmax(probabilities)]`` (first index on a tie) of the
    ensemble, as skl2onnx and onnxmltools write labels: Reshape/Squeeze, ArrayFeatureExtractor over
    the class list, ArgMax(axis=1) of the probabilities. That is the IR's own label rule; any other
    use of these nodes is refused."""

    node = _skip(name, producer, SHAPING + ("Cast",))
    if node is None or node.op_type != "ArrayFeatureExtractor" or node.input[0] not in consts:
        return False
    argmax = _skip(node.input[1], producer, SHAPING)
    if argmax is None or argmax.op_type != "ArgMax":
        return False
    attrs = {a.name: a.i for a in argmax.attribute}
    if attrs.get("axis", 0) not in (1, -1) or attrs.get("select_last_index", 0):
        raise OnnxModelError(f"{describe(argmax)}: rulekit reads ArgMax over axis 1, first index on a tie")
    source, through = _trace_output(argmax.input[0], producer)
    if source is not ens or ens.op_type != "TreeEnsembleClassifier" or out_index(ens, through[0]) != 1:
        raise OnnxModelError(f"{describe(argmax)}: an ArgMax that is not over the ensemble's probabilities")
    labels = numpy_helper.to_array(consts[node.input[0]]).reshape(-1).tolist()
    labels = [v.decode() if isinstance(v, bytes) else v for v in labels]
    attrs = {a.name: a for a in ens.attribute}
    ints = list(attrs["classlabels_int64s"].ints) if "classlabels_int64s" in attrs else None
    strings = [v.decode() for v in attrs["classlabels_strings"].strings] if "classlabels_strings" in attrs else None
    if labels != (ints if ints is not None else strings):
        raise OnnxModelError(f"{describe(node)}: the label list differs from the ensemble's classes")
    return True


def _skip(name: str, producer: dict, ops: tuple) -> NodeProto | None:
    """The first node producing ``name`` that is not one of ``ops`` (single-input shaping)."""
    for _ in range(len(producer) + 1):
        node = producer.get(name)
        if node is None or node.op_type not in ops:
            return node
        name = node.input[0]
    raise OnnxModelError("the graph has a cycle")
