"""Load a SOURCE (model JSON or rules file), telling them apart by content."""

from __future__ import annotations

from pathlib import Path
from typing import Union

from rulekit import progress
from rulekit.errors import RulekitError
from rulekit.fileio import read_text, sniff_source
from rulekit.ir.model import Model
from rulekit.rules.base import RuleBase

Source = Union[Model, RuleBase]


def load_source(path: str | Path) -> Source:
    with progress.phase(f"reading {path}"):
        text = read_text(path)
        if not text.strip("\ufeff \t\r\n"):
            raise RulekitError(f"{path}: empty file, expected a model file (JSON) or a rules file")
        if sniff_source(text) == "model":
            from rulekit.ir.modelfile import loads_model

            return loads_model(text, file=str(path))
        from rulekit import dsl

        return dsl.loads(text, file=str(path))


def read_rules_text(path: str | Path) -> str:
    """The text of a rules file (for check and fmt); a model JSON or an unreadable file is a
    RulekitError saying so in one line."""
    with progress.phase(f"reading {path}"):
        text = read_text(path)
    if sniff_source(text) == "model" and '"rulekit-model"' in text[:300]:
        raise RulekitError(f"{path}: a rulekit model file, not a rules file (make one with "
                           f"'rulekit rules {path} -o FILE.rules')")
    return text


def describe(obj: Source) -> str:
    """'a tree', '100 trees' or '12 rules': what progress lines call a source."""
    if isinstance(obj, Model):
        n = len(obj.trees)
        return "a tree" if n == 1 else f"{n:,} trees"
    n = len(obj.rules)
    return f"{n:,} rule{'s' * (n != 1)}"
