"""Feature renaming at import: a library may store names other than the data's (LightGBM writes
``age band`` as ``age_band``), and every target (rules, SQL, Python, ONNX metadata) reads the
names from the model, so one mapping applied to the model makes all of them follow.

Mappings come as ``old=new`` pairs (``--rename``), a JSON object or a two-column CSV file
(``--rename-file``), or a dict in Python. Unknown names and names that would collide are refused
in one line.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from rulekit.errors import RulekitError
from rulekit.fileio import decode_text, read_bytes
from rulekit.ir.model import Model


def rename_features(model: Model, mapping: Mapping[str, str]) -> Model:
    """A new Model whose features ``old`` are named ``mapping[old]`` (trees, classes and values
    unchanged; split nodes' recorded ``feature_name`` follows). Swaps (a->b, b->a) are fine."""
    names = model.feature_names
    unknown = [old for old in mapping if old not in names]
    if unknown:
        shown = ", ".join(map(repr, names[:20])) + (", ..." if len(names) > 20 else "")
        raise RulekitError(f"rename: the model has no feature {unknown[0]!r} (features: {shown})")
    for old, new in mapping.items():
        if not isinstance(new, str) or new == "":
            raise RulekitError(f"rename: the new name of {old!r} must be a non-empty string (got {new!r})")
    new_names = [mapping.get(n, n) for n in names]
    seen: dict[str, str] = {}
    for old, new in zip(names, new_names):
        if new in seen:
            raise RulekitError(f"rename: {seen[new]!r} and {old!r} would both be named {new!r}")
        seen[new] = old
    features = [f.model_copy(update={"name": new}) for f, new in zip(model.features, new_names)]
    trees = [_renamed_tree(tree, new_names) for tree in model.trees]
    return Model(trees, features, task=model.task, classes=model.classes, combiner=model.combiner,
                 target=model.target, source=model.source)


def _renamed_tree(tree, new_names: list[str]):
    """A copy of ``tree`` whose nodes' ``feature_name`` (when recorded) is the new name."""
    if not any("feature_name" in a for _, a in tree.nodes(data=True)):
        return tree
    out = tree.copy()
    for _, a in out.nodes(data=True):
        if "feature_name" in a and a.get("feature") is not None:
            a["feature_name"] = new_names[a["feature"]]
    return out


def parse_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """``["old=new", ...]`` as a mapping (split at the first '='; use a mapping file for names
    holding '='). The same old name twice is refused."""
    out: dict[str, str] = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        if not sep or not old:
            raise RulekitError(f"--rename expects OLD=NEW (got {pair!r})")
        _add(out, old, new, "--rename")
    return out


def read_mapping(path: str | Path) -> dict[str, str]:
    """A mapping file: a JSON object ``{"old": "new"}`` or a CSV of ``old,new`` rows (a first row
    ``old,new`` is taken as a header). Errors name the file (and line)."""
    text = decode_text(read_bytes(path), path).lstrip("\ufeff")
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as err:
            raise RulekitError(f"{err.msg}", file=str(path), line=err.lineno, column=err.colno) from None
        except (ValueError, RecursionError) as err:  # e.g. an integer beyond Python's digit limit
            raise RulekitError(f"{path}: not a mapping file ({type(err).__name__})") from None
        if not isinstance(obj, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in obj.items()):
            raise RulekitError(f"{path}: a JSON mapping file holds one object of strings: "
                               f'{{"old name": "new name", ...}}')
        return dict(obj)
    out: dict[str, str] = {}
    reader = csv.reader(text.splitlines())
    for row in reader:
        if not row or (reader.line_num == 1 and [c.strip().lower() for c in row] == ["old", "new"]):
            continue
        if len(row) != 2:
            raise RulekitError(f"{len(row)} fields, expected 2: old name,new name",
                               file=str(path), line=reader.line_num)
        _add(out, row[0], row[1], f"{path}:{reader.line_num}")
    return out


def merge(first: Mapping[str, str], second: Mapping[str, str]) -> dict[str, str]:
    """``--rename-file`` and ``--rename`` together; one name renamed two ways is refused."""
    out = dict(first)
    for old, new in second.items():
        _add(out, old, new, "--rename")
    return out


def _add(out: dict[str, str], old: str, new: str, where: str) -> None:
    if old in out and out[old] != new:
        raise RulekitError(f"{where}: {old!r} is renamed twice ({out[old]!r} and {new!r})")
    out[old] = new
