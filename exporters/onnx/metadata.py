"""Model metadata (``metadata_props``): the feature schema and the input encoding, for people and tools.

Nominal features enter ``X`` as their category *code*: the 0-based index of the value in the
feature's domain listed in ``rulekit.features``. Any number that is not a code (for example -1)
is an unseen category; NaN is a missing value.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from rulekit.ir.modelfile_training import KEY as TRAINING_KEY

ENCODING = ("X[:, j] holds feature j of rulekit.features. Numeric features: the value (NaN = missing). "
            "Nominal features: the category code, the 0-based index of the value in the feature's "
            "domain (any other number, e.g. -1, = unseen category; NaN = missing).")


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


def features_json(features) -> str:
    out = []
    for f in features:
        item: dict[str, Any] = {"name": f.name, "kind": f.kind}
        if f.kind == "nominal":
            item["domain"] = [_jsonable(v) for v in f.domain or ()]
            item["encoding"] = "code"
            if getattr(f, "match", None):
                item["match"] = f.match
        out.append(item)
    return json.dumps(out, ensure_ascii=False)


def common(obj, *, dtype, opset: int | str, kind: str, op_dtype=None) -> dict[str, str]:
    import rulekit  # noqa: PLC0415

    meta = {
        "rulekit.version": rulekit.__version__,
        "rulekit.kind": kind,
        "rulekit.task": obj.task,
        "rulekit.dtype": np.dtype(dtype).name,
        "rulekit.opset": str(opset),
        "rulekit.features": features_json(obj.features),
        "rulekit.input_encoding": ENCODING,
        "rulekit.outputs": ("label [N], probabilities [N, K] in rulekit.classes order"
                            if obj.task == "classification" else "prediction [N]"),
    }
    if obj.classes is not None:
        meta["rulekit.classes"] = json.dumps([_jsonable(c) for c in obj.classes], ensure_ascii=False)
    if np.dtype(dtype) == np.float64:
        meta["rulekit.exactness"] = "float64 end to end: thresholds are the canonical float64 boundaries"
    elif op_dtype is not None and np.dtype(op_dtype) == np.float32:
        meta["rulekit.exactness"] = ("float32 input: thresholds are the largest float32 <= each canonical "
                                     "float64 boundary (exact for float32 inputs); probabilities are "
                                     "summed in float32 (within ~1e-6 of the float64 model)")
    else:
        meta["rulekit.exactness"] = ("float32 input, cast to float64 inside: thresholds are the largest "
                                     "float32 <= each canonical float64 boundary (exact for float32 "
                                     "inputs); scores are summed in float64; outputs are float32")
    return meta


def model_metadata(model, *, dtype, opset: int, op_dtype=None) -> dict[str, str]:
    meta = common(model, dtype=dtype, opset=opset, kind="model", op_dtype=op_dtype or dtype)
    meta["rulekit.combiner"] = model.combiner.model_dump_json()
    meta["rulekit.n_trees"] = str(len(model.trees))
    # where fit's training file lay on the machine that fitted (training_data: a local path and its
    # hash, which `rules` reads) says nothing about the model and must not ship with it
    source = {k: v for k, v in model.source.items() if k != TRAINING_KEY}
    if source:
        meta["rulekit.source"] = json.dumps(source, default=str, ensure_ascii=False)
    return meta
