"""rulekit's own ONNX exports read back: the feature schema, classes and combiner from the metadata
rulekit wrote (``rulekit.features``, ``rulekit.classes``, ``rulekit.combiner``), the trees from the
tree-ensemble operator."""

from __future__ import annotations

import json

from rulekit.importers.onnx_trees import OnnxModelError


def metadata(proto) -> dict[str, str]:
    return {p.key: p.value for p in proto.metadata_props}


def is_rulekit(proto) -> bool:
    return proto.producer_name == "rulekit" and "rulekit.kind" in metadata(proto)


def convert(proto):
    meta = metadata(proto)
    if meta.get("rulekit.kind") != "model":
        raise OnnxModelError(f"a rulekit {meta.get('rulekit.kind')} exported to ONNX (standard operators, "
                             f"no tree ensemble); import the rules file it was made from")
    raise OnnxModelError("reading rulekit's own ONNX models back is not built yet")


__all__ = ["convert", "is_rulekit", "json"]
