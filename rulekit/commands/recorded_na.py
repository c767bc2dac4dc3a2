"""Which NA texts a command reads a CSV with for a model: the ones ``fit`` recorded, unless given.

``fit --na-values ''`` keeps 'N/A' and 'NULL' as categories, and the model file records that
(``source.training_data.na_values``). A later command that reads rows for the same model
(``rules --prune-data``, ``predict``, ``verify``) must read them the same way, or those
categories turn into missing values and every rule on them fails without a word. An explicit
``--na-values`` still wins; when it reads differently from the record, one note says so.
A rules file keeps no record, but its domains do: without ``--na-values``, an NA text that a
nominal feature declares as one of its values (``status: nominal {"N/A", NULL, ok}``) is read as
that value in that column, with one note when such cells occur (fit can only have seen it so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rulekit.na import parse_na_values

_KEY = "training_data"  # rulekit.ir.modelfile_training.KEY, not imported: it pulls no numpy here


def _record(source: Any) -> dict | None:
    """The training record ``fit`` wrote into ``source`` (a model), or None (an imported or older
    model, a rule base)."""
    record = getattr(source, "source", None)
    rec = record.get(_KEY) if isinstance(record, dict) else None
    return rec if isinstance(rec, dict) else None


def recorded_na_values(source: Any) -> str | None:
    """The ``--na-values`` text ``fit`` recorded for ``source``, or None (pandas' list, or no record)."""
    rec = _record(source)
    value = rec.get("na_values") if rec is not None else None
    return value if isinstance(value, str) else None


def na_values_for(source: Any, given: str | None) -> tuple[str | None, str | None]:
    """(the NA texts to read a CSV with for ``source``, a note line or None).

    ``given`` (the command's ``--na-values``) wins; without it the recorded texts apply. The note
    comes only when ``given`` reads cells differently from what fit used (a model with a record)."""
    recorded = recorded_na_values(source)
    if given is None:
        return recorded, None
    if _record(source) is None or parse_na_values(given) == parse_na_values(recorded):
        return given, None
    fit_used = "pandas' list, fit's default" if recorded is None else repr(recorded)
    return given, (f"--na-values {given!r} reads cells differently from fit, which read the training "
                   f"rows with {fit_used}; without --na-values the model's own texts are used")


def declared_values(source: Any, na_values: str | None, given: str | None) -> dict[str, frozenset[str]]:
    """Per nominal feature of ``source``, the NA texts its domain declares as values: read as values
    there (none when ``given``: the user chose the texts)."""
    if given is not None:
        return {}
    na = parse_na_values(na_values) - {""}
    out = {}
    for f in source.features:
        if f.kind == "nominal":
            texts = frozenset(v for v in f.domain if isinstance(v, str) and v in na)
            if texts:
                out[f.name] = texts
    return out


def declared_note(columns: Mapping[str, Sequence[str]], declared: Mapping[str, frozenset[str]]) -> str | None:
    """One line naming the columns where cells holding a declared NA text were read as values."""
    seen = []
    for name, texts in declared.items():
        found = sorted(texts.intersection(columns.get(name, ())))
        if found:
            seen.append(f"{', '.join(map(repr, found))} in {name!r}")
    if not seen:
        return None
    return (f"{'; '.join(seen)} read as values, not missing: the domain declares them; --na-values "
            f"sets the texts read as missing")
