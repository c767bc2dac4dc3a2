"""`rulekit check RULES`: validate a rules file and lint it.

Prints every error and warning as ``FILE:LINE:COL: error|warning: message`` with the line and a
caret, then a summary line. Exit status: 0 when the file is valid, even with warnings (they point at
rules that are legal but probably unintended; ``strict=True`` makes them count) and notes (how a
test reads: never counted); 1 when there are errors (syntax or meaning); 2 when the file cannot be
read.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rulekit import dsl, progress
from rulekit.dsl import lint
from rulekit.commands.source import read_rules_text
from rulekit.errors import RulekitError
from rulekit.util import count


def run(rules_file: str | Path, *, strict: bool = False, quiet: bool = False) -> int:
    """With ``quiet`` a valid file prints nothing (warnings too); errors always print."""
    try:
        text = read_rules_text(rules_file)
    except RulekitError as err:
        print(f"rulekit: {err}", file=sys.stderr)
        return 2
    with progress.phase(f"checking {rules_file}"):
        parsed = dsl.parse(text, file=str(rules_file))
        found = list(parsed.errors) or lint.diagnostics(parsed)
    n_err = sum(d.severity == "error" for d in found)
    n_warn = sum(d.severity == "warning" for d in found)
    n_note = len(found) - n_err - n_warn
    if quiet and not n_err and not (strict and n_warn):
        return 0
    for d in found:
        print(d.render())
    if n_err:
        print(f"{rules_file}: {n_err} error{'s' * (n_err != 1)}")
        return 1
    rb = parsed.rulebase
    what = f"{len(rb.rules)} rule{'s' * (len(rb.rules) != 1)}"
    said = [count(n_warn, "warning")] * bool(n_warn) + [count(n_note, "note")] * bool(n_note)
    print(f"{rules_file}: valid ({what}){', ' if said else ''}{' and '.join(said)}")
    return 1 if strict and n_warn else 0
