"""One note per command for data cells a nominal feature's domain does not hold (audit item 12).

``predict``, ``stats`` and ``rules --prune-data`` read such cells without complaint: the rules or the
model route them by their semantics (:mod:`rulekit.semantics.routing`). The user is told once, per
feature: how many rows, which values, and where they go.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rulekit.ir.data import encode_nominal, is_missing_value
from rulekit.rules.base import RuleBase
from rulekit.util import count

MAX_VALUES = 3  # values named per feature (the most frequent first)
MAX_FEATURES = 5  # features noted; more are counted

BY_RULES = "a value no rule names ('=' and 'in' tests are false for them, '!=' and 'not in' tests true)"
BY_MODEL = "each split routes a value outside its domain (its 'other' branch, else the branch of missing values)"


def unseen_lines(columns: Mapping[str, Sequence[Any]], features: Sequence[Any], routed: str,
                 who: str) -> list[str]:
    """One line per nominal feature with cells outside its domain (missing cells are not counted)."""
    out: list[str] = []
    hit = 0
    for f in features:
        if f.kind != "nominal" or f.name not in columns:
            continue
        cells = columns[f.name]
        codes = encode_nominal(np.asarray(cells, dtype=object), f.domain or (), exact=f.match == "exact")
        rows = np.flatnonzero(codes == -1)
        if not len(rows):
            continue
        hit += 1
        if hit > MAX_FEATURES:
            continue
        seen = Counter(str(cells[i]) for i in rows if not is_missing_value(cells[i]))
        names = [v for v, _ in seen.most_common(MAX_VALUES)]
        more = f" and {count(len(seen) - MAX_VALUES, 'other')}" if len(seen) > MAX_VALUES else ""
        hold = "holds a value" if len(rows) == 1 else "hold values"
        out.append(f"{f.name}: {count(len(rows), 'row')} {hold} the {who} never saw ({', '.join(names)}{more}); "
                   f"they are routed as {routed}")
    if hit > MAX_FEATURES:
        out.append(f"and {count(hit - MAX_FEATURES, 'more feature')} with such values")
    return out


def note_unseen(columns: Mapping[str, Sequence[Any]], source: Any) -> None:
    """Print the note for ``columns`` read for ``source`` (a rule base or a model) to stderr."""
    rules = isinstance(source, RuleBase)
    lines = unseen_lines(columns, source.features, BY_RULES if rules else BY_MODEL, "rules" if rules else "model")
    for line in lines:
        print(f"rulekit: note: {line}", file=sys.stderr)
