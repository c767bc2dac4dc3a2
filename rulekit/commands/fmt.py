"""`rulekit fmt RULES [--check] [--exact] [--expand-missing]`: rewrite a rules file in canonical form.

The canonical form is ``rulekit.dsl.dumps`` of what the file says: same rules, same comments (see
``rulekit.dsl.printer`` for where each comment goes), one layout; readable numbers unless ``exact``
(every digit of statistics and thresholds kept), missing-value routing the data never exercised
declared once per feature unless ``expand_missing`` (written on every literal). Both forms mean
exactly the same. The file is rewritten atomically
and only when it changes. With ``check=True`` nothing is written: exit 1 if the file would change.
A file that does not parse is left alone: its errors go to stderr, exit 2 (as for unreadable input).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rulekit import dsl, progress
from rulekit.commands.source import read_rules_text
from rulekit.errors import RulekitError
from rulekit.fileio import report_written, write_atomic


def run(rules_file: str | Path, check: bool = False, *, exact: bool = False, expand_missing: bool = False,
        quiet: bool = False) -> int:
    try:
        text = read_rules_text(rules_file)
    except RulekitError as err:
        print(f"rulekit: {err}", file=sys.stderr)
        return 2
    with progress.phase(f"parsing {rules_file}"):
        parsed = dsl.parse(text, file=str(rules_file))
    if parsed.errors:
        for d in parsed.errors:
            print(d.render(), file=sys.stderr)
        print(f"rulekit: {rules_file}: not formatted: fix the errors above first", file=sys.stderr)
        return 2
    try:
        new = dsl.dumps(parsed.rulebase, exact=exact, expand_missing=expand_missing,
                        share_rows=parsed.share_rows)
    except RulekitError as err:
        print(f"rulekit: {rules_file}: {err}", file=sys.stderr)
        return 2
    if new == text:
        return 0
    if check:
        print(f"{rules_file}: would be reformatted")
        return 1
    try:
        write_atomic(rules_file, new)
    except (OSError, RulekitError) as err:
        print(f"rulekit: cannot write {rules_file}: {err}", file=sys.stderr)
        return 2
    report_written(rules_file, "reformatted", quiet=quiet)
    return 0
