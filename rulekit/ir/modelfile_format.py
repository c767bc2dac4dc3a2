"""The rulekit model file's format and its writing side: pydantic models of the JSON, a Model to them.

Apart from :mod:`rulekit.ir.modelfile` (which reads files back into a Model) so that ``Model.save``
can write without an import cycle: nothing here needs the Model class, only its attributes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from typing_extensions import NotRequired, TypedDict

import networkx as nx
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictInt

from rulekit.fileio import write_atomic
from rulekit.ir.schema import Combiner, Feature, Label
from rulekit.ir.tree import iter_preorder

if TYPE_CHECKING:
    from rulekit.ir.model import Model

FORMAT = "rulekit-model"
VERSION = 2  # 2: combiner.arithmetic (float32 sums); files without it are still written as 1

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


def model_to_file(model: Model) -> ModelFile:
    return ModelFile(version=2 if model.combiner.arithmetic else 1,
                     task=model.task, target=model.target, features=model.features,
                     classes=model.classes, combiner=model.combiner,
                     trees=[tree_to_file(t) for t in model.trees], source=model.source)


def dumps_model(model: Model) -> str:
    return model_to_file(model).model_dump_json(exclude_none=True)


def save_model(model: Model, path: str | Path) -> None:
    write_atomic(path, dumps_model(model))
