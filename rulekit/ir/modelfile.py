"""The rulekit model file: pydantic models of the JSON, with a format version, and load/save.

A broken file is rejected with one line naming what is wrong; nothing here recurses, so a tree
20,000 levels deep loads and saves like any other (nodes and edges are flat lists).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx
from pydantic import ValidationError

from rulekit import jsontext
from rulekit.errors import ModelFileError, RulekitError
from rulekit.fileio import read_text
from rulekit.ir.model import Model
# The format and the writer live in modelfile_format (Model.save needs them; they need no Model):
from rulekit.ir.modelfile_format import (  # noqa: F401 - re-exported: their old home
    FORMAT, VERSION, EdgeFile, ModelFile, NodeFile, Number, TreeFile, dumps_model, model_to_file,
    save_model, tree_to_file)
from rulekit.ir.tree import graph_from_parts
from rulekit.util import gc_paused

_TUPLE_KEYS = frozenset(("value", "counts", "features", "weights"))


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


def load_model(path: str | Path) -> Model:
    return loads_model(read_text(path), file=str(path))
