"""Where a fitted model's training rows came from: the record ``fit`` keeps in the model file.

``rulekit fit`` stores ``source["training_data"]`` (the resolved path, the path relative to the model
file, byte size, sha256, target, rows used, the CSV reading options that change the rows) so that
``rulekit rules m.json --prune-data P`` can choose each class's rules on the training rows too
(docs/rules.md, session 5): on a few dozen pruning rows those choices are ties. The record lives in
``source``, a free mapping every model file already has, so old files load, files with a record load
in older rulekit, and every copy of a Model (tree pruning, renaming) keeps it. Imported models have
none. Only a file whose size and hash still match is used; otherwise :func:`find_training_rows`
says why not, in one line.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

KEY = "training_data"
_CHUNK = 1 << 20


def file_sha256(path: str | Path) -> str:
    """The sha256 of a file's bytes, read in 1 MiB chunks (a data file may not fit in memory twice)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def training_record(data: str | Path, *, model_path: str | Path, target: str, rows: int,
                    na_values: str | None, sha256: str, size: int) -> dict[str, Any]:
    """The record ``fit`` writes for DATA (``sha256``/``size`` taken before it was read)."""
    resolved = Path(data).resolve()
    rec: dict[str, Any] = {"path": str(resolved), "bytes": size, "sha256": sha256, "target": target,
                           "rows": rows,
                           "format": "parquet" if resolved.suffix.lower() in (".parquet", ".pq") else "csv"}
    try:  # found again when the data and the model move together (another machine, a renamed folder)
        rec["relative"] = Path(os.path.relpath(resolved, Path(model_path).resolve().parent)).as_posix()
    except ValueError:  # another drive (Windows): no relative path
        pass
    if na_values is not None:
        rec["na_values"] = na_values
    return rec


def _shown(path: Path) -> str:
    """The path relative to the working directory when it is below it, else as it is."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def find_training_rows(source: dict[str, Any], model_path: str | Path) -> tuple[Path | None, dict, str | None]:
    """(the recorded training file when it is there unchanged, the record, one line for stderr).

    No record (an imported or older model): ``(None, {}, None)``. A record whose file is gone,
    changed (size or sha256) or not CSV: ``(None, record, why)`` -- the caller runs without
    training rows and prints the line. The file is looked for at its recorded path, then at its
    recorded path relative to the model file."""
    rec = source.get(KEY) if isinstance(source, dict) else None
    if not isinstance(rec, dict) or not isinstance(rec.get("path"), str):
        return None, {}, None
    recorded = Path(rec["path"])
    places = [recorded]
    if isinstance(rec.get("relative"), str):
        places.append(Path(model_path).resolve().parent / rec["relative"])
    skip = "rules chosen on the pruning rows alone; --train-data FILE to give them"
    changed = None
    for p in places:
        if not p.is_file():
            continue
        if rec.get("format") == "parquet":
            return None, rec, (f"the training rows recorded by fit are Parquet ({_shown(p)}), which "
                               f"'rules' does not read: {skip}")
        if p.stat().st_size == rec.get("bytes") and file_sha256(p) == rec.get("sha256"):
            return p, rec, (f"using the training rows recorded by fit: {_shown(p)} "
                            f"({rec.get('rows', 0):,} rows); --train-data none to skip")
        changed = changed or p
    if changed is not None:
        return None, rec, f"{_shown(changed)} changed since fit recorded it as the training rows: {skip}"
    return None, rec, f"the training rows recorded by fit are gone ({_shown(recorded)}): {skip}"
