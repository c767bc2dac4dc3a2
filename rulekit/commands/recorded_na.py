"""Which NA texts a command reads a CSV with for a model: the ones ``fit`` recorded, unless given.

``fit --na-values ''`` keeps 'N/A' and 'NULL' as categories, and the model file records that
(``source.training_data.na_values``). A later command that reads rows for the same model
(``rules --prune-data``, ``predict``, ``verify``) must read them the same way, or those
categories turn into missing values and every rule on them fails without a word. An explicit
``--na-values`` still wins; when it reads differently from the record, one note says so.
A rules file keeps no record: the option or pandas' default list applies there.
"""

from __future__ import annotations

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
