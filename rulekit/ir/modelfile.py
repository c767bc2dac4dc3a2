"""The rulekit model file: pydantic models of the JSON, with a format version, and load/save.

A broken file is rejected with one line naming what is wrong; nothing here recurses, so a tree
20,000 levels deep loads and saves like any other (nodes and edges are flat lists).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from typing_extensions import NotRequired, TypedDict

import networkx as nx
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictInt, ValidationError

from rulekit import jsontext
from rulekit.errors import ModelFileError, RulekitError
from rulekit.fileio import read_text, write_atomic
from rulekit.ir.model import Combiner, Feature, Label, Model
from rulekit.ir.tree import graph_from_parts, iter_preorder
from rulekit.util import gc_paused

FORMAT = "rulekit-model"
VERSION = 2  # 2: combiner.arithmetic (float32 sums); files without it are still written as 1

_TUPLE_KEYS = frozenset(("value", "counts", "features", "weights"))
_NODE_KEYS = ("kind", "feature", "features", "weights", "threshold", "op", "precision", "missing",
              "value", "counts", "n_samples", "impurity", "feature_name")


def _not_bool(v: Any) -> Any:
    if isinstance(v, bool):
        raise ValueError("expected a number, not true/false")
    return v


Number = Annotated[float, BeforeValidator(_not_bool)]  # a JSON number or "Infinity"/"NaN", never a bool


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="strings")


class NodeFile(TypedDict):
    """One stored node. Nodes and edges are TypedDicts, validated by pydantic like the rest but
    kept as the plain dicts JSON gives: ~6x less validation time than a BaseModel per node, which
    dominated loading a 1M-node model."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    id: StrictInt
    kind: Literal["numeric", "nominal", "linear", "leaf"]
    feature: NotRequired[StrictInt | None]
    feature_name: NotRequired[str | None]
    features: NotRequired[list[StrictInt] | None]
    weights: NotRequired[list[Number] | None]
    threshold: NotRequired[Number | None]
    op: NotRequired[Literal["<=", "<"] | None]
    precision: NotRequired[Literal["float32", "float64"] | None]
    missing: NotRequired[StrictInt | None]
    value: NotRequired[list[Number] | None]
    counts: NotRequired[list[Number] | None]
    n_samples: NotRequired[Number | None]
    impurity: NotRequired[Number | None]


class EdgeFile(TypedDict):
    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    parent: StrictInt
    child: StrictInt
    branch: StrictInt
    values: NotRequired[list[StrictInt] | None]


class TreeFile(_Strict):
    root: StrictInt = 0
    nodes: list[NodeFile]
    edges: list[EdgeFile]


class ModelFile(_Strict):
    format: Literal["rulekit-model"] = FORMAT
    version: StrictInt = Field(VERSION, ge=1)
    task: Literal["classification", "regression"]
    target: str | None = None
    features: list[Feature]
    classes: list[Label] | None = None
    combiner: Combiner = Combiner()
    trees: list[TreeFile]
    source: dict[str, Any] = {}


def tree_to_file(tree: nx.DiGraph) -> TreeFile:
    """Canonical stored form: node ids 0..n-1 (renumbered in pre-order if the graph's are not),
    nodes by id, edges by (parent, branch)."""
    n = tree.number_of_nodes()
    if all(isinstance(v, int) and 0 <= v < n for v in tree.nodes):
        new_id = None
        root = tree.graph.get("root", 0)
    else:
        new_id = {node: i for i, node in enumerate(iter_preorder(tree))}
        root = 0
    ident = (lambda v: v) if new_id is None else new_id.__getitem__
    nodes = []
    for node, attrs in sorted(tree.nodes(data=True), key=lambda item: ident(item[0])):
        data = {k: attrs[k] for k in _NODE_KEYS if attrs.get(k) is not None}
        for k in ("value", "counts", "features", "weights"):
            if k in data:
                data[k] = list(data[k])
        nodes.append(NodeFile(id=ident(node), **data))
    edges = [EdgeFile(parent=ident(u), child=ident(v), branch=d["branch"])
             if d.get("values") is None else
             EdgeFile(parent=ident(u), child=ident(v), branch=d["branch"], values=list(d["values"]))
             for u, v, d in sorted(tree.edges(data=True), key=lambda e: (ident(e[0]), e[2]["branch"]))]
    return TreeFile(root=root, nodes=nodes, edges=edges)


def tree_from_file(tf: TreeFile, where: str) -> nx.DiGraph:
    """The graph of one stored tree; node ids must be 0..n-1 (any order), edges name existing ids.
    The validated node dicts become the graph's attribute dicts (``tf`` is used up)."""
    n = len(tf.nodes)
    nodes: list[dict[str, Any] | None] = [None] * n
    for nf in tf.nodes:
        i = nf["id"]
        if not 0 <= i < n:
            raise ModelFileError(f"{where}: node id {i} out of range 0..{n - 1}")
        if nodes[i] is not None:
            raise ModelFileError(f"{where}: node id {i} appears twice")
        attrs: dict[str, Any] = nf  # type: ignore[assignment]  # validated copy: ours to reuse
        del attrs["id"]
        if None in attrs.values():
            for k in [k for k, v in attrs.items() if v is None]:
                del attrs[k]
        for k in _TUPLE_KEYS.intersection(attrs):
            attrs[k] = tuple(attrs[k])
        nodes[i] = attrs
    edges = []
    seen: set[tuple[int, int]] = set()
    for ef in tf.edges:
        u, v = ef["parent"], ef["child"]
        if not (0 <= u < n and 0 <= v < n):
            raise ModelFileError(f"{where}: edge {u}->{v} names node {u if not 0 <= u < n else v}, "
                                 f"which does not exist")
        if (u, v) in seen:
            raise ModelFileError(f"{where}: edge {u}->{v} appears twice")
        seen.add((u, v))
        attrs = {"branch": ef["branch"]}
        if nodes[u]["kind"] == "nominal":
            values = ef.get("values")
            attrs["values"] = None if values is None else tuple(values)
        edges.append((u, v, attrs))
    if not 0 <= tf.root < n:
        raise ModelFileError(f"{where}: root {tf.root} is not a node")
    g = graph_from_parts(nodes, edges, root=tf.root)
    if g.in_degree(tf.root) != 0:
        raise ModelFileError(f"{where}: root {tf.root} has a parent")
    return g


def model_to_file(model: Model) -> ModelFile:
    return ModelFile(version=2 if model.combiner.arithmetic else 1,
                     task=model.task, target=model.target, features=model.features,
                     classes=model.classes, combiner=model.combiner,
                     trees=[tree_to_file(t) for t in model.trees], source=model.source)


def model_from_file(mf: ModelFile) -> Model:
    if mf.version > VERSION:
        raise ModelFileError(f"model file format version {mf.version} is newer than this rulekit "
                             f"reads ({VERSION}); upgrade rulekit")
    trees = [tree_from_file(tf, f"tree {i}") for i, tf in enumerate(mf.trees)]
    try:
        return Model(trees, mf.features, task=mf.task, classes=mf.classes, combiner=mf.combiner,
                     target=mf.target, source=mf.source)
    except ModelFileError:
        raise
    except RulekitError as err:
        raise ModelFileError(err.message) from None


def dumps_model(model: Model) -> str:
    return model_to_file(model).model_dump_json(exclude_none=True)


def loads_model(text: str, *, file: str | None = None) -> Model:
    with gc_paused():
        return _loads_model(text, file=file)


def _loads_model(text: str, *, file: str | None) -> Model:
    data = jsontext.loads(text, file=file, error=ModelFileError)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelFileError(f"not a rulekit model file (expected \"format\": \"{FORMAT}\")", file=file)
    try:
        mf = ModelFile.model_validate(data)
    except ValidationError as err:
        e = err.errors()[0]
        loc = ".".join(str(p) for p in e["loc"]) or "file"
        more = f" (and {len(err.errors()) - 1} more)" if len(err.errors()) > 1 else ""
        raise ModelFileError(f"{loc}: {e['msg']}{more}", file=file) from None
    del data  # the raw JSON objects: a second copy of the model, not needed past validation
    try:
        return model_from_file(mf)
    except ModelFileError as err:
        raise ModelFileError(err.message, file=file) from None


def save_model(model: Model, path: str | Path) -> None:
    write_atomic(path, dumps_model(model))


def load_model(path: str | Path) -> Model:
    return loads_model(read_text(path), file=str(path))
