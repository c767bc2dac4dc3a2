"""Columns of user-facing values keyed by feature name (no pandas needed): what runtimes receive.

A table holds float64 arrays (NaN = missing) for numeric features and object arrays of labels
(None = missing) for nominal ones. It converts to and from rulekit's float64 code matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rulekit.ir.data import to_matrix

Table = dict[str, np.ndarray]

UNSEEN_TEXT = "\u2047unseen"  # a label no domain contains
UNSEEN_INT = -(2**31)


def from_matrix(features: Sequence[Any], M: np.ndarray) -> Table:
    """Labels back from codes: code -1 becomes a value outside the domain, NaN becomes None."""
    out: Table = {}
    for j, f in enumerate(features):
        col = M[:, j]
        if f.kind != "nominal":
            out[f.name] = col.astype(np.float64)
            continue
        dom = list(f.domain)
        ints = all(isinstance(v, int) for v in dom)
        vals = np.empty(col.size, dtype=object)
        for i, c in enumerate(col):
            if np.isnan(c):
                vals[i] = None
            elif c < 0 or c >= len(dom):
                vals[i] = UNSEEN_INT if ints else UNSEEN_TEXT
            else:
                vals[i] = dom[int(c)]
        out[f.name] = vals
    return out


def from_data(X: Any, features: Sequence[Any]) -> Table:
    """Any accepted data (frame, mapping, array, CSV columns of text) as a table."""
    return from_matrix(features, to_matrix(X, features))


def n_rows(table: Table) -> int:
    return len(next(iter(table.values()))) if table else 0


def records(table: Table, names: Sequence[str]) -> list[dict[str, Any]]:
    """One dict per row with plain Python values; missing as None."""
    cols = [table[n] for n in names]
    out = []
    for i in range(n_rows(table)):
        row = {}
        for n, c in zip(names, cols):
            v = c[i]
            if v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)):
                row[n] = None
            elif isinstance(v, np.generic):
                row[n] = v.item()
            else:
                row[n] = v
        out.append(row)
    return out
