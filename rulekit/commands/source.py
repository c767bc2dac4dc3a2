"""Load a SOURCE (model JSON or rules file), telling them apart by content."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Union

from rulekit import progress
from rulekit.errors import RulekitError
from rulekit.fileio import decode_text, read_bytes, sniff_source
from rulekit.foreign import HEAD_BYTES, identify, import_hint
from rulekit.input_kind import SNIFF_CHARS, csv_header, looks_like, mentions_rules
from rulekit.rules.base import RuleBase

if TYPE_CHECKING:  # checking a rules file needs no tree IR (networkx, numpy): kept off the import path
    from rulekit.ir.model import Model

Source = Union["Model", RuleBase]


def load_source(path: str | Path, csv_expected: str = "a model file (JSON) or a rules file") -> Source:
    """The model or rule base in ``path``; another library's model file is refused with the
    ``rulekit import`` line that converts it, a CSV with ``csv_expected`` (what the command wants
    instead, and how to get it)."""
    return load_source_rows(path, csv_expected)[0]


def load_source_rows(path: str | Path, csv_expected: str = "a model file (JSON) or a rules file"):
    """(:func:`load_source`'s object, and for a rules file the rows each rule's and the default's
    class shares are written over, else None): printing a rules file again with them keeps
    ``{no: 516/519, ...}`` as written, where the shares alone print as ``172/173``, a row count the
    file never had (audit 3: ``show``, ``export --to rules``)."""
    with progress.phase(f"reading {path}"):
        text = _read(path, "a rulekit model or rules file")
        if not text.strip("\ufeff \t\r\n"):
            raise RulekitError(f"{path}: empty file, expected a model file (JSON) or a rules file")
        _refuse_csv(text, path, csv_expected)
        if sniff_source(text) == "model":
            from rulekit.ir.modelfile import loads_model

            return loads_model(text, file=str(path)), None
        from rulekit import dsl

        parsed = dsl.parse(text, file=str(path))
        if parsed.errors:
            raise dsl.RulesSyntaxError(parsed.errors)
        return parsed.rulebase, parsed.share_rows


def read_rules_text(path: str | Path) -> str:
    """The text of a rules file (for check and fmt); a model JSON or an unreadable file is a
    RulekitError saying so in one line."""
    with progress.phase(f"reading {path}"):
        text = _read(path, "a rules file")
        _refuse_csv(text, path, "a rules file")
    if sniff_source(text) == "model" and '"rulekit-model"' in text[:300]:
        raise RulekitError(f"{path}: a rulekit model file, not a rules file (make one with "
                           f"'rulekit rules {path} -o FILE.rules')")
    return text


def _refuse_csv(text: str, path: str | Path, expected: str) -> None:
    """A data table given where a model or rules file belongs: one line saying so (it would be
    parsed as rules text and fail on its first comma). Text with a rules statement, a ``then`` or an
    ``ID: if`` is a broken rules file rather: the parser says what is wrong with it."""
    head = text[:SNIFF_CHARS]
    if looks_like(head) == "csv" and not mentions_rules(head):
        raise RulekitError(f"{path}: looks like a CSV data file (header: {csv_header(head)}), "
                           f"expected {expected}")


def _read(path: str | Path, expected: str) -> str:
    """The file's text, after checking by its bytes that it is not another library's model file."""
    data = read_bytes(path)
    kind = identify(data[:HEAD_BYTES], path)
    if kind is not None:
        raise RulekitError(import_hint(path, kind, expected))
    return decode_text(data, path)


def describe(obj: Source) -> str:
    """'a tree', '100 trees' or '12 rules': what progress lines call a source."""
    if isinstance(obj, RuleBase):
        n = len(obj.rules)
        return f"{n:,} rule{'s' * (n != 1)}"
    n = len(obj.trees)
    return "a tree" if n == 1 else f"{n:,} trees"
