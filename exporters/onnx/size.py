"""Estimate the serialized size of the exported model before building it, and refuse what cannot load.

A protobuf message cannot exceed 2 GB; the exporter refuses models estimated above ``MAX_BYTES``
(1.8 GB) with one clear line instead of failing deep inside onnx or running out of memory.
"""

from __future__ import annotations

import numpy as np

from rulekit.errors import ExportError
from rulekit.ir.model import Model

MAX_BYTES = 1_800_000_000


def _varint(n: int) -> int:
    return max(1, (max(int(n), 1).bit_length() + 6) // 7)


def copies_per_tree(model: Model) -> int:
    """How many times v5 writes each tree (one copy per target it adds to)."""
    if model.combiner.kind == "sum" or model.task == "regression" or model.n_classes == 2:
        return 1
    return model.n_classes


def count_nodes(model: Model) -> tuple[int, int, int]:
    """(binary split nodes, leaves, membership values) of the flattened model, before v5 copies."""
    splits = leaves = members = 0
    for tree in model.trees:
        for node, kind in tree.nodes(data="kind"):
            if kind == "leaf":
                leaves += 1
            elif kind == "nominal":
                deg = tree.out_degree(node)
                splits += deg + 1
                size = len(model.features[tree.nodes[node]["feature"]].domain or ())
                members += size + deg
            else:
                splits += 1
        if tree.number_of_nodes() == 1:
            splits, leaves = splits + 1, leaves + 1
    return splits, leaves, members


def estimate_model_bytes(model: Model, *, dtype, opset: int) -> int:
    splits, leaves, members = count_nodes(model)
    width = np.dtype(dtype).itemsize
    n_trees = len(model.trees)
    if opset == 5:
        copies = copies_per_tree(model)
        splits, leaves, members = splits * copies, leaves * copies, members * copies
        ref = 1 + _varint(max(splits, leaves))
        per_node = (1 + _varint(model.n_features)) + 2 * ref + 6 + 1 + width
        per_leaf = (1 + _varint(model.n_classes or 1)) + width
        return splits * per_node + leaves * per_leaf + members * width + n_trees * ref + 4096
    targets = 1 if (model.combiner.kind == "sum" or model.task == "regression") else model.n_classes
    rows = splits + leaves
    per_row = (1 + _varint(n_trees)) + (1 + _varint(rows)) * 3 + (1 + _varint(model.n_features)) \
        + 12 + (width + 1) + 2
    per_target = (1 + _varint(n_trees)) + (1 + _varint(rows)) + 2 + 5
    n_target_rows = leaves * (1 if width == 8 else targets)
    extra = leaves * 8 * (targets if width == 8 else 0)
    return rows * per_row + n_target_rows * per_target + extra + 4096


def check_size(estimate: int, max_bytes: int = MAX_BYTES) -> None:
    if estimate > max_bytes:
        raise ExportError(f"the ONNX model would take about {estimate / 1e9:.2f} GB, above the "
                          f"{max_bytes / 1e9:.2f} GB limit (protobuf cannot hold 2 GB): export fewer or "
                          f"smaller trees")
