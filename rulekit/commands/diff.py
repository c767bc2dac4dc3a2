"""`rulekit diff A B [--data DATA] [--format text|json|csv]`: what changed between two sources.

A and B are model files or rules files in any mix. Exit 0 when they agree on every input (when the
regions are skipped, e.g. for forests: on every DATA row), 1 when they differ, 2 on bad input. With
regions skipped and no DATA nothing is known about the outputs: exit 1 if any rule changed, else 0,
and the report says so.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rulekit import progress
from rulekit.commands.source import describe, load_source
from rulekit.diffing import diff
from rulekit.diffing.report import to_csv, to_json, to_text
from rulekit.table import check_columns, located, read_csv


def run(*, a: Path, b: Path, data: Path | None, format: str = "text", max_regions: int = 50,
        na_values: str | None = None, quiet: bool = False) -> int:
    """``quiet`` silences progress only: the report is the output. ``na_values``: DATA's cell texts
    read as missing (as ``rulekit predict`` reads them)."""
    left, right = load_source(a), load_source(b)
    X = y = lines = None
    if data is not None:
        with progress.phase(f"reading {data}"):
            X = read_csv(data, na_values)
        check_columns(X, left.features)
        check_columns(X, right.features)
        lines = X.lines
        target = next((t for t in (getattr(left, "target", None), getattr(right, "target", None))
                       if t is not None and t in X), None)
        y = X[target] if target is not None else None
    with progress.phase(f"comparing {describe(left)} with {describe(right)}"), \
            located(X or {}, list(left.features) + list(right.features)):
        d = diff(left, right, X, y, lines=lines, outcomes=format == "csv")
    if format == "json":
        sys.stdout.write(to_json(d))
    elif format == "csv":
        sys.stdout.write(to_csv(d, max_regions))
    else:
        sys.stdout.write(to_text(d, str(a), str(b), max_regions))
        if d.agree is None:
            sys.stdout.write("outputs not compared: give --data to compare them on rows\n")
    if d.agree is None:
        return 1 if d.rules_added or d.rules_removed or d.rules_changed else 0
    return 0 if d.agree else 1
