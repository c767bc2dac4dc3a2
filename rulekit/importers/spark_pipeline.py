"""What each slot of a Spark tree model's ``features`` vector is, in terms of the pipeline's inputs.

A saved ``PipelineModel`` whose stages before the tree model are ``StringIndexer``,
``OneHotEncoder``, ``Imputer`` and one ``VectorAssembler`` is folded into the model exactly: each
slot of the assembled vector becomes a :class:`Slot` naming the input column (an IR feature) and
how the slot's value is derived from it. A raw numeric column is the slot itself (``x <= t``); an
imputed one is too, except that a missing value takes the surrogate's way; a string column becomes
a nominal feature on the indexer's labels, and a test on its index or on one of its one-hot slots
becomes a set of labels. A bare tree model (no pipeline) has numeric slots ``f0..f{n-1}``, made
nominal (codes ``0..k-1``) where a split treats them as categorical.

Not exact: an ``Imputer`` over an integer column. Spark casts the surrogate to the column's type
(measured: surrogate 2.333 fills 2), and the saved pipeline does not record that type, so the
surrogate is used as saved (exact for floating-point columns).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rulekit.importers.spark_files import SparkModelError, StageMetadata, read_metadata, read_parquet, stage_dirs
from rulekit.ir.model import Feature

SlotKind = Literal["raw", "imputed", "category", "index", "onehot"]
FEATURE_STAGES = ("StringIndexerModel", "OneHotEncoderModel", "ImputerModel", "VectorAssembler")


@dataclass(frozen=True)
class Slot:
    """One slot of the features vector. ``feature``: the IR feature it reads.

    ``raw``/``imputed``: the numeric value (imputed: a missing value is ``surrogate``).
    ``category`` (bare model), ``index``: the category code as a double; ``onehot``: 1.0 when the
    code is ``position``, else 0.0. ``n_codes`` labels; ``invalid_code``: the code a missing or
    unseen label gets (``StringIndexer(handleInvalid="keep")``), None when Spark refuses such rows.
    """

    feature: int
    kind: SlotKind
    surrogate: float | None = None
    position: int = -1
    n_codes: int = 0
    invalid_code: int | None = None

    def value(self, code: int) -> float:
        """The double the tree sees for category ``code`` (category/index/onehot slots)."""
        if self.kind == "onehot":
            return 1.0 if code == self.position else 0.0
        return float(code)


@dataclass
class Layout:
    """The model's IR features, its slots, and what the pipeline says about rows Spark refuses."""

    features: list[Feature]
    slots: list[Slot]
    classes: list | None = None
    notes: dict = field(default_factory=dict)


# --- bare model --------------------------------------------------------------------------------


def bare_layout(n_features: int, categorical: dict[int, int]) -> Layout:
    """Slots ``f0..`` of a model saved on its own; ``categorical``: slot -> number of categories."""
    features, slots = [], []
    for j in range(n_features):
        k = categorical.get(j)
        if k is None:
            features.append(Feature(name=f"f{j}"))
            slots.append(Slot(feature=j, kind="raw"))
        else:
            features.append(Feature(name=f"f{j}", kind="nominal", domain=tuple(range(k)), match="exact"))
            slots.append(Slot(feature=j, kind="category", n_codes=k))
    return Layout(features, slots)


# --- pipeline ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Indexed:
    source: str
    labels: tuple[str, ...]
    keep: bool


@dataclass(frozen=True)
class _OneHot:
    indexed: _Indexed
    size: int


@dataclass(frozen=True)
class _Imputed:
    source: str
    surrogate: float


@dataclass(frozen=True)
class _Assembled:
    inputs: tuple[str, ...]
    handle_invalid: str


def _in_out(meta: StageMetadata, where: str) -> list[tuple[str, str]]:
    ins = meta.param("inputCols") or ([meta.param("inputCol")] if meta.param("inputCol") else [])
    outs = meta.param("outputCols") or ([meta.param("outputCol")] if meta.param("outputCol") else [])
    if not ins or len(ins) != len(outs):
        raise SparkModelError(f"{meta.short_class}: {len(ins)} input and {len(outs)} output columns",
                              file=where)
    return list(zip(ins, outs))


def _string_indexer(meta: StageMetadata, folder: Path, columns: dict) -> None:
    table = read_parquet(folder / "data", "StringIndexerModel")
    if "labelsArray" in table.column_names:
        arrays = table.column("labelsArray").to_pylist()[0]
    elif "labels" in table.column_names:  # Spark 2.x: one column
        arrays = [table.column("labels").to_pylist()[0]]
    else:
        raise SparkModelError("StringIndexerModel data has no labels", file=str(folder))
    pairs = _in_out(meta, str(folder))
    if len(arrays) != len(pairs):
        raise SparkModelError(f"StringIndexerModel: {len(pairs)} columns but {len(arrays)} label lists",
                              file=str(folder))
    keep = meta.param("handleInvalid", "error") == "keep"
    for (src, out), labels in zip(pairs, arrays):
        if src in columns:
            raise SparkModelError(f"StringIndexer input {src!r} is made by an earlier stage; only "
                                  f"input columns can be indexed exactly", file=str(folder))
        if any(v is None for v in labels):
            raise SparkModelError(f"StringIndexer labels of {src!r} hold a null", file=str(folder))
        columns[out] = _Indexed(src, tuple(labels), keep)


def _one_hot(meta: StageMetadata, folder: Path, columns: dict) -> None:
    table = read_parquet(folder / "data", "OneHotEncoderModel")
    sizes = table.column("categorySizes").to_pylist()[0]
    pairs = _in_out(meta, str(folder))
    if len(sizes) != len(pairs):
        raise SparkModelError(f"OneHotEncoderModel: {len(pairs)} columns but {len(sizes)} sizes",
                              file=str(folder))
    drop_last = bool(meta.param("dropLast", True))
    keep = meta.param("handleInvalid", "error") == "keep"
    for (src, out), size in zip(pairs, sizes):
        indexed = columns.get(src)
        if not isinstance(indexed, _Indexed):
            raise SparkModelError(f"OneHotEncoder input {src!r} is not a StringIndexer output; only "
                                  f"indexed string columns are folded", file=str(folder))
        if size != len(indexed.labels) + indexed.keep:
            raise SparkModelError(f"OneHotEncoder sees {size} categories in {src!r}, its indexer has "
                                  f"{len(indexed.labels) + indexed.keep}", file=str(folder))
        columns[out] = _OneHot(indexed, size + keep - drop_last)


def _imputer(meta: StageMetadata, folder: Path, columns: dict) -> None:
    missing = meta.param("missingValue", "NaN")
    if not (missing == "NaN" or (isinstance(missing, float) and math.isnan(missing))):
        raise SparkModelError(f"Imputer with missingValue={missing!r}: only NaN (the default) folds "
                              f"exactly (a number would be missing while NaN is not)", file=str(folder))
    table = read_parquet(folder / "data", "ImputerModel")
    for src, out in _in_out(meta, str(folder)):
        if src in columns:
            raise SparkModelError(f"Imputer input {src!r} is made by an earlier stage; only input "
                                  f"columns are folded", file=str(folder))
        if src not in table.column_names:
            raise SparkModelError(f"Imputer data has no surrogate for {src!r}", file=str(folder))
        surrogate = table.column(src).to_pylist()[0]
        if not isinstance(surrogate, (int, float)) or math.isnan(surrogate):
            raise SparkModelError(f"Imputer surrogate of {src!r} is {surrogate!r}", file=str(folder))
        if float(surrogate) != math.floor(float(surrogate)):
            warnings.warn(f"Imputer surrogate of {src!r} is {surrogate!r}: exact when {src!r} is a floating-point "
                          f"column; over an integer column Spark casts it to {math.trunc(surrogate)} (the saved "
                          f"model does not record the column's type)", stacklevel=2)
        columns[out] = _Imputed(src, float(surrogate))


def _assembler(meta: StageMetadata, folder: Path, columns: dict) -> None:
    ins = meta.param("inputCols") or []
    out = meta.param("outputCol")
    if not ins or not out:
        raise SparkModelError("VectorAssembler without inputCols/outputCol", file=str(folder))
    columns[out] = _Assembled(tuple(ins), str(meta.param("handleInvalid", "error")))


_READERS = {"StringIndexerModel": _string_indexer, "OneHotEncoderModel": _one_hot,
            "ImputerModel": _imputer, "VectorAssembler": _assembler}


def pipeline_stages(pipeline_dir: Path) -> list[tuple[StageMetadata, Path]]:
    """``(metadata, folder)`` of every stage of a saved PipelineModel, in order."""
    return [(read_metadata(d), d) for d in stage_dirs(pipeline_dir)]


def pipeline_layout(stages: list[tuple[StageMetadata, Path]], model: StageMetadata,
                    model_dir: Path) -> Layout | None:
    """The Layout of the tree model fed by ``stages``; None when no assembler made its features
    (the features column was an input: slots are read as a bare model's)."""
    columns: dict[str, object] = {}
    for meta, folder in stages:
        reader = _READERS.get(meta.short_class)
        if reader is None:
            raise SparkModelError(f"pipeline stage {meta.short_class} cannot be folded into the tree "
                                  f"model (supported before the model: {', '.join(FEATURE_STAGES)})",
                                  file=str(folder))
        reader(meta, folder, columns)
    assembled = columns.get(model.param("featuresCol", "features"))
    if assembled is None:
        return None
    if not isinstance(assembled, _Assembled):
        raise SparkModelError(f"the model's features column {model.param('featuresCol')!r} is not made "
                              f"by a VectorAssembler", file=str(model_dir))
    layout = _assembled_layout(assembled, columns, model_dir)
    label = columns.get(model.param("labelCol", "label"))
    if isinstance(label, _Indexed) and model.numClasses == len(label.labels):
        layout.classes = list(label.labels)
    layout.notes = {"assembler_handle_invalid": assembled.handle_invalid}
    return layout


def _assembled_layout(assembled: _Assembled, columns: dict, where: Path) -> Layout:
    features: list[Feature] = []
    index: dict[str, int] = {}
    slots: list[Slot] = []

    def feature(name: str, nominal: _Indexed | None) -> int:
        want = (Feature(name=name) if nominal is None
                else Feature(name=name, kind="nominal", domain=nominal.labels))
        if name in index:
            if features[index[name]] != want:
                raise SparkModelError(f"column {name!r} reaches the model both as a number and as "
                                      f"labels (or with two label lists); rulekit needs one kind per "
                                      f"column", file=str(where))
            return index[name]
        index[name] = len(features)
        features.append(want)
        return index[name]

    for col in assembled.inputs:
        made = columns.get(col)
        if made is None:
            slots.append(Slot(feature=feature(col, None), kind="raw"))
        elif isinstance(made, _Imputed):
            slots.append(Slot(feature=feature(made.source, None), kind="imputed", surrogate=made.surrogate))
        elif isinstance(made, _Indexed):
            slots.append(Slot(feature=feature(made.source, made), kind="index", n_codes=len(made.labels),
                              invalid_code=len(made.labels) if made.keep else None))
        elif isinstance(made, _OneHot):
            ix = made.indexed
            f = feature(ix.source, ix)
            invalid = len(ix.labels) if ix.keep else None
            slots.extend(Slot(feature=f, kind="onehot", position=p, n_codes=len(ix.labels),
                              invalid_code=invalid) for p in range(made.size))
        else:
            raise SparkModelError(f"VectorAssembler input {col!r} is itself an assembled vector; "
                                  f"nested assemblers are not folded", file=str(where))
    return Layout(features, slots)
