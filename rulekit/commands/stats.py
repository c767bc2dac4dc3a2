"""`rulekit stats RULES DATA -o RULES2`: recompute every rule's statistics on DATA.

The target column is the rules file's declared target (``--target`` names another). Only the
statistics clauses change (:mod:`rulekit.dsl.restat`), and the header comment ``rulekit rules`` writes
to name the rows behind the numbers, whose ``with N rows`` half now names DATA (:mod:`rulekit.dsl.basis`;
class shares are probabilities, not statistics, and stay); other comments,
blank lines and layout stay byte for byte; the statistics are rounded as rules files print them (4 significant digits) unless ``exact``.
The output is written whole or not at all; ``-o`` may name RULES itself (an in-place refresh).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from rulekit import progress
from rulekit.commands.recorded_na import declared_note, declared_values
from rulekit.commands.source import read_rules_text
from rulekit.dsl.basis import refresh_basis
from rulekit.dsl.restat import replace_stats, rule_stat_spans
from rulekit.errors import DataError
from rulekit.fileio import check_distinct, check_output_path, is_stdout, report_written, write_atomic
from rulekit.rules.base import RuleBase
from rulekit.rules.pipeline import split_data
from rulekit.rules.stats import annotate, class_codes
from rulekit.table import check_columns, located, read_csv, rows_of
from rulekit.unseen_rows import note_unseen
from rulekit.util import count


def refresh(rb: RuleBase, X, y) -> RuleBase:
    """``rb`` with every rule's statistics recomputed on ``(X, y)`` (``rulekit.stats``); ``y`` may be
    CSV text ('1' for class 1)."""
    X, labels = split_data((X, np.asarray(y, dtype=object)), rb)
    return annotate(rb, X, labels)


def run(*, rules: Path, data: Path, output: str, target: str | None = None, exact: bool = False,
        quiet: bool = False,
        na_values: str | None = None) -> int:
    check_output_path(output)
    check_distinct(output, data=data)
    text = read_rules_text(rules)
    with progress.phase(f"parsing {rules}"):
        rb, spans = rule_stat_spans(text, file=str(rules))
    declared = declared_values(rb, na_values, na_values)  # NA texts the domains declare as values
    with progress.phase(f"reading {data}"):
        columns = read_csv(data, na_values, declared)
    said = declared_note(columns, declared)
    if said and not quiet:
        print(f"rulekit: note: {said}", file=sys.stderr)
    check_columns(columns, rb.features)
    note_unseen(columns, rb)
    col = target or rb.target
    if col not in columns:
        have = ", ".join(repr(c) for c in columns if c not in {f.name for f in rb.features}) or "none"
        raise DataError(f"no target column {col!r} (the rules' target; name another with --target); "
                        f"other columns: {have}", file=str(data), line=1)
    columns = _with_target(columns, col, data, quiet)
    said = unknown_classes(rb, columns[col], col, data)
    if said and not quiet:
        print(f"rulekit: note: {said}", file=sys.stderr)
    with progress.phase(f"computing statistics of {len(rb.rules):,} rules"), located(columns, rb.features):
        new = refresh(rb, columns, columns[col])
    out = refresh_basis(replace_stats(text, new, spans, exact=exact), len(columns[col]), str(data))
    write_atomic(output, out)
    if not quiet and not is_stdout(output):
        report_written(output, f"statistics of {count(len(rb.rules), 'rule')} on "
                               f"{count(len(columns[col]), 'row')}")
    return 0


def unknown_classes(rb: RuleBase, y, col: str, data: Path) -> str | None:
    """What to say when target values of DATA are no class of ``rb`` (a class renamed by hand, the
    wrong file): each such row counts as wrong for every rule it meets, which 'with 73 rows, 0
    correct' alone does not explain (audit 3); None when every value is a class."""
    if rb.task != "classification" or not rb.classes:
        return None
    _, labels = split_data((None, np.asarray(y, dtype=object)), rb)
    known = class_codes(labels, list(rb.classes)) >= 0
    if known.all():
        return None
    values, counts = np.unique(np.asarray(labels, dtype=object)[~known].astype(str), return_counts=True)
    order = np.argsort(-counts, kind="stable")[:5]
    shown = ", ".join(f"{str(values[i])!r} ({int(counts[i]):,})" for i in order) + (", ..." if len(values) > 5 else "")
    return (f"{count(int((~known).sum()), 'row')} of {data} have a {col!r} value that is no class of the rules "
            f"({', '.join(map(str, rb.classes))}): {shown}; they count as wrong wherever a rule meets them")


def _with_target(columns, col: str, data: Path, quiet: bool):
    """The rows of ``columns`` with a target value, with a note on the others (as ``fit`` and
    ``diff`` leave them out): a row with no known class is no rule's error."""
    keep = [i for i, v in enumerate(columns[col]) if v is not None and v != ""]
    if not keep and columns[col]:
        raise DataError(f"no row has a {col!r} value (the target column is empty)", file=str(data))
    if len(keep) < len(columns[col]) and not quiet:
        print(f"rulekit: note: {len(columns[col]) - len(keep):,} row(s) of {data} without a {col!r} value "
              f"not counted", file=sys.stderr)
    return columns if len(keep) == len(columns[col]) else rows_of(columns, keep)
