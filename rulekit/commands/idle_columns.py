"""The note for feature columns no test can use: empty in every row, or one value throughout.

They stay features of the model (a row to predict must still have them), but no split and no rule
can test them, and a person reading a rules file header that lists them should know why no rule
does (audit 3 #27)."""

from __future__ import annotations

from typing import Any

from rulekit.dsl.literals import number
from rulekit.shell_words import shell_word

SHOWN = 5  # columns named in the note; the rest are counted


def idle_note(X: Any) -> str | None:
    """One line naming the columns of the frame ``X`` that are empty in every row or hold one value
    (with it), or None when every column varies."""
    idle = []
    for name in X.columns:
        values = X[name].dropna().unique()
        if values.size == 0:
            idle.append(f"{shell_word(str(name))} (every cell empty)")
        elif values.size == 1:
            idle.append(f"{shell_word(str(name))} (one value: {_value(values[0])})")
    if not idle:
        return None
    more = f" and {len(idle) - SHOWN} more" if len(idle) > SHOWN else ""
    return (f"no test can use column{'s' if len(idle) > 1 else ''} {', '.join(idle[:SHOWN])}{more}: "
            f"{'they stay features' if len(idle) > 1 else 'it stays a feature'} of the model, "
            "which a row to predict must have")


def _value(v: Any) -> str:
    """A cell value as a note shows it: a number as the rules text writes it, text quoted."""
    return repr(str(v)) if isinstance(v, str) else number(float(v))
