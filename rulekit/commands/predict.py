"""`rulekit predict`: score a CSV with a model or rules file; CSV out in input order.

Rows are scored in chunks so that a progress bar can count them; every row is scored on its own,
so chunking never changes a result.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import numpy as np

from rulekit import progress
from rulekit.commands.source import describe, load_source
from rulekit.commands.recorded_na import declared_note, declared_values, na_values_for
from rulekit.csv_guard import guard_column, quote_all_needed
from rulekit.errors import RulekitError
from rulekit.fileio import check_distinct, check_output_path, report_written, write_atomic
from rulekit.table import check_columns, fill_unused, located, read_csv
from rulekit.unseen_rows import note_unseen
from rulekit.usage import used_features
from rulekit.ir.model import Model
from rulekit.util import count

CHUNK_ROWS = 50_000


def format_value(v) -> str:
    """Exact text for a number (shortest round-trip repr), plain text for a label; an empty cell
    (CSV missing) for no value (a row no rule of a rules file without a default decides)."""
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return ""
        return repr(float(v))
    if isinstance(v, np.generic):
        return str(v.item())
    return str(v)


def _n_rows(columns: dict[str, list[str]]) -> int:
    return len(next(iter(columns.values()))) if columns else 0


def run(*, source: Path, data: Path, proba: bool, explain: bool, output: Path | None,
        quiet: bool = False, csv_guard: bool = True, na_values: str | None = None) -> int:
    """``quiet`` silences progress only: the CSV is the output. ``csv_guard``: text cells that
    start like a spreadsheet formula get a leading ``'`` (:mod:`rulekit.csv_guard`)."""
    if output is not None and str(output) == "-":
        output = None  # -o - is stdout, as for export
    if output is not None:
        check_output_path(output)
        check_distinct(output, source=source, data=data)
    obj = load_source(source)
    na, na_note = na_values_for(obj, na_values)  # a model's: fit's NA texts unless given
    declared = declared_values(obj, na, na_values)  # NA texts the domains declare as values
    with progress.phase(f"reading {data}"):
        columns = read_csv(data, na, declared)
    na_note = na_note or declared_note(columns, declared)
    fill_unused(columns, obj.features, used_features(obj))
    check_columns(columns, obj.features)
    note_unseen(columns, obj)
    if obj.task != "classification" and proba:
        raise RulekitError("--proba needs a classifier; this model is a regressor")
    explainer = None
    if explain:
        if isinstance(obj, Model):
            from rulekit.rules import to_rules

            with progress.phase(f"extracting the rules of {describe(obj)} for --explain"):
                explainer = to_rules(obj, simplify=False)
        else:
            explainer = obj
    header = ["prediction"]
    if proba:
        header += [f"proba:{label}" for label in obj.classes]
    if explain:
        header.append("explanation")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w_all = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)  # cells holding a CR
    header = guard_column(header) if csv_guard else header
    (w_all if quote_all_needed([header]) else w).writerow(header)
    n = _n_rows(columns)
    undecided = 0
    with progress.bar(f"scoring with {describe(obj)}", total=n) as bar, located(columns, obj.features):
        for lo in range(0, max(n, 1), CHUNK_ROWS):  # a header-only file is checked too
            chunk = {k: v[lo:lo + CHUNK_ROWS] for k, v in columns.items()}
            cols = _score(obj, chunk, proba, explainer)
            undecided += cols[0].count("")
            if csv_guard:
                cols = [guard_column(c) for c in cols]
            (w_all if quote_all_needed(cols) else w).writerows(zip(*cols))
            bar.advance(min(CHUNK_ROWS, n - lo))
    if output is None:
        sys.stdout.write(buf.getvalue())
    else:
        with progress.phase(f"writing {output}"):
            write_atomic(output, buf.getvalue())
        report_written(output, count(n, "row"), quiet=quiet)
    if na_note is not None:  # once the rows are scored: an error stays the only line
        print(f"rulekit: note: {na_note}", file=sys.stderr)
    if undecided:
        print(f"rulekit: note: no rule decides {count(undecided, 'row')} of {n:,} and {source} has no "
              f"default: their prediction cells are empty", file=sys.stderr)
    return 0


def _score(obj, columns, proba: bool, explainer) -> list[list[str]]:
    """The output columns (as text) for one chunk of rows."""
    cols = [[format_value(v) for v in obj.predict(columns)]]
    if proba:
        P = obj.predict_proba(columns)
        cols += [[format_value(p) for p in P[:, k]] for k in range(len(obj.classes))]
    if explainer is not None:
        cols.append([str(t) for t in explainer.explain(columns)])
    return cols
