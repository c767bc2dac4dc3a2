"""The files of a saved Spark ML stage: ``metadata/`` (one JSON line) and Parquet folders.

Spark's ``MLWriter`` saves every stage as a directory: ``metadata/part-00000`` holds one JSON
document (class, uid, Spark version, params, and for trees ``numFeatures``/``numClasses``/
``numTrees``); model data sits in Parquet part files under ``data/`` (and ``treesMetadata/`` for
ensembles), read here with pyarrow, so no JVM is needed. Every problem is one SparkModelError line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from rulekit import jsontext
from rulekit.errors import RulekitError
from rulekit.fileio import decode_text, read_bytes


class SparkModelError(RulekitError):
    """A directory that is not a (supported) saved Spark ML model."""


class StageMetadata(BaseModel):
    """The JSON document in a stage's ``metadata/`` folder (unknown keys kept, not checked)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    class_: str
    uid: str = ""
    sparkVersion: str = ""
    paramMap: dict[str, Any] = {}
    defaultParamMap: dict[str, Any] = {}
    numFeatures: int | None = None
    numClasses: int | None = None
    numTrees: int | None = None

    @property
    def short_class(self) -> str:
        return self.class_.rsplit(".", 1)[-1]

    def param(self, name: str, default: Any = None) -> Any:
        """A param as the stage uses it: set explicitly, else its default."""
        if name in self.paramMap:
            return self.paramMap[name]
        return self.defaultParamMap.get(name, default)


def is_spark_dir(path: Path) -> bool:
    """True when ``path`` looks like a saved Spark ML stage (a ``metadata/`` folder inside)."""
    return path.is_dir() and (path / "metadata").is_dir()


def _part_files(folder: Path, what: str) -> list[Path]:
    if not folder.is_dir():
        raise SparkModelError(f"no {folder.name}/ folder: not a saved Spark ML {what}", file=str(folder.parent))
    parts = sorted(p for p in folder.iterdir()
                   if p.name.startswith("part-") and not p.name.endswith(".crc") and p.is_file())
    if not parts:
        raise SparkModelError(f"{folder.name}/ holds no part files", file=str(folder.parent))
    return parts


def read_metadata(stage_dir: Path) -> StageMetadata:
    """The stage's metadata document (the first non-empty line of ``metadata/part-*``)."""
    for part in _part_files(stage_dir / "metadata", "stage"):
        text = decode_text(read_bytes(part), part)
        line = next((s for s in text.splitlines() if s.strip()), None)
        if line is None:
            continue
        doc = jsontext.loads(line, file=str(part), error=SparkModelError)
        if not isinstance(doc, dict):
            raise SparkModelError("metadata is not a JSON object", file=str(part))
        doc = dict(doc)
        doc["class_"] = doc.pop("class", None)
        try:
            return StageMetadata.model_validate(doc)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]).replace("class_", "class")
            raise SparkModelError(f"metadata field {where!r}: {first['msg']}", file=str(part)) from None
    raise SparkModelError("metadata/ is empty", file=str(stage_dir))


def read_parquet(folder: Path, what: str) -> Any:
    """All part files of a Parquet folder as one pyarrow Table (chunks combined)."""
    try:
        import pyarrow as pa  # noqa: PLC0415 - optional: pip install 'rulekit[spark-import]'
        import pyarrow.parquet as pq  # noqa: PLC0415
    except ImportError:
        raise SparkModelError("reading a Spark model needs pyarrow (pip install 'rulekit[spark-import]')") from None
    parts = _part_files(folder, what)
    try:
        tables = [pq.read_table(p) for p in parts]
        table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    except (OSError, pa.ArrowException) as err:
        raise SparkModelError(f"cannot read Parquet data ({err})", file=str(folder)) from None
    return table.combine_chunks()


def stage_dirs(pipeline_dir: Path) -> list[Path]:
    """A PipelineModel's stage folders in stage order (``stages/<index>_<uid>``)."""
    folder = pipeline_dir / "stages"
    if not folder.is_dir():
        raise SparkModelError("a PipelineModel without a stages/ folder", file=str(pipeline_dir))
    found = []
    for p in folder.iterdir():
        head = p.name.split("_", 1)[0]
        if p.is_dir() and head.isdigit():
            found.append((int(head), p))
    return [p for _, p in sorted(found)]
