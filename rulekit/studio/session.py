"""The studio's state and actions, without any UI: the opened file, its saved text (the impact's
"before"), the data, and what the buttons do (check, format, impact, save, save as, export).

Every action that can fail on the user's input raises a :class:`rulekit.errors.RulekitError` with one
line; the UI shows it and carries on. Files written: the opened rules file (Save), the path given to
Save As (which then becomes the opened file) and the paths given to the export buttons; never the data
file or a model file the session was opened from. Nothing else is read after start-up.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from rulekit import dsl, exporters
from rulekit.commands.export import artefact
from rulekit.commands.source import load_source
from rulekit.dsl import incremental, lint
from rulekit.dsl.diagnostics import Diagnostic
from rulekit.dsl.missing import with_missing_comment
from rulekit.dsl.parser import Parsed
from rulekit.dsl.printer import conclusion as conclusion_text
from rulekit.errors import RulekitError
from rulekit.fileio import check_distinct, check_output_path, read_text, write_atomic
from rulekit.ir.model import Model
from rulekit.rules import engine
from rulekit.rules.base import RuleBase
from rulekit.rules.explain import explain
from rulekit.studio.impact import Data, Impact, Scored, decided_by, impact, score
from rulekit.table import read_csv

SQL_DIALECTS = tuple(exporters.DIALECTS)  # the exporters' registry
EXPORT_TARGETS = tuple(exporters.TARGETS)
ROWS_SHOWN = 200  # rows listed when a rule is clicked


@dataclass
class Mark:
    """A finding placed in the text: ``start``/``end`` are str offsets (CodeMirror decorations)."""

    diagnostic: Diagnostic
    start: int
    end: int


@dataclass
class Check:
    """The text as parsed: the rule base (None when it has errors) and its findings."""

    parsed: Any
    errors: list[Diagnostic]
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def rulebase(self) -> RuleBase | None:
        return self.parsed.rulebase


def marks(text: str, found: list[Diagnostic]) -> list[Mark]:
    """Each diagnostic's span as offsets into ``text`` (at least one character, within the text)."""
    starts = [0]
    for ln in text.split("\n"):
        starts.append(starts[-1] + len(ln) + 1)
    out = []
    for d in found:
        line = min(max(d.line, 1), len(starts) - 1)
        line_end = starts[line] - 1  # the '\n' ending the line (or the end of the text)
        start = min(starts[line - 1] + max(d.column, 1) - 1, len(text))
        end = min(start + max(d.width, 1), max(line_end, start + 1), len(text))
        if end <= start:  # at the very end of the text: mark the character before
            start, end = max(0, len(text) - 1), len(text)
        if end > start:
            out.append(Mark(d, start, end))
    return out


#: how much lower the lint worker's CPU priority is than the server's (os.nice): a keystroke's
#: counts, computed in the server, take the CPU from a lint still running (docs/lsp.md, studio)
WORKER_NICENESS = 10


def lint_and_picture(text: str, file: str) -> tuple[list[Diagnostic], str]:
    """``rulekit check``'s findings for ``text`` and the rule base's picture: what the studio draws when
    typing pauses, run in a worker process (at a lower priority) so that the next keystroke's counts
    do not wait for it."""
    from rulekit.rule_pictures import rules_svg

    _lower_priority()
    parsed = dsl.parse(text, file=file)
    if parsed.errors:
        return list(parsed.errors), ""
    rb = parsed.rulebase
    return lint.diagnostics(parsed), rules_svg(rb) if rb.rules else ""


def _lower_priority() -> None:
    """In a worker process (never the server itself), once: lower its CPU priority."""
    global _niced
    if _niced or multiprocessing.parent_process() is None:
        return
    _niced = True
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # not allowed here: the lint just competes as before
        pass


_niced = False


def rule_keys(parsed) -> list[str] | None:
    """Each rule's source text (from its start to the next rule's): under the same feature
    declarations the same text is the same condition, so it keys the rule's cached rows."""
    rb = parsed.rulebase
    if rb is None or len(parsed.rule_pos) != len(rb.rules):
        return None
    starts = [0]
    for ln in parsed.text.split("\n"):
        starts.append(starts[-1] + len(ln) + 1)
    offsets = [starts[line - 1] + col - 1 for line, col in parsed.rule_pos] + [len(parsed.text)]
    return [parsed.text[a:b] for a, b in pairwise(offsets)]


class Session:
    """One studio: a SOURCE (rules file, or a model opened as its extracted rules) and optional data."""

    def __init__(self, source: str | Path, data: str | Path | None = None, target: str | None = None):
        self.source = Path(source)
        self.display = str(source)  # how findings name the file (as `rulekit check SOURCE` would)
        obj = load_source(self.source)
        self.model: Model | None = obj if isinstance(obj, Model) else None
        if self.model is not None:
            from rulekit.rules import to_rules

            self.path: Path | None = None  # a model is never overwritten with rules: Save As first
            self.opened_text = dsl.dumps(with_missing_comment(to_rules(self.model)))  # as `rulekit rules MODEL` writes it
        else:
            self.path = self.source
            self.opened_text = read_text(self.source)
        self.saved_text = self.opened_text
        self.data_path = Path(data) if data is not None else None
        self.data: Data | None = None
        if self.data_path is not None:
            columns = read_csv(self.data_path)
            if target is not None and target not in columns:
                raise RulekitError(f"--target {target!r} is not a column of {self.data_path} "
                                   f"(columns: {', '.join(columns.header[:20])})")
            self.data = Data(columns, target)
            self._target_given = target is not None
        self._lock = threading.RLock()
        self._chunks: incremental.Incremental | None = None  # the parse's chunk cache (typing)
        self._baseline: tuple[str, Scored | None, str | None] | None = None

    # --- reading the text ---------------------------------------------------------------------------

    def check(self, text: str, *, with_lint: bool = True) -> Check:
        """Parse ``text``; the errors, or (``with_lint``) the lint's warnings, as ``rulekit check``.

        Without the lint the parse is the LSP's first pass (:mod:`rulekit.dsl.incremental`): only the
        rules an edit changed are parsed and the rule base is assembled from the cached chunks (the
        same rule base and positions as a parse of the whole text, tested); typing in a 500-rule
        file re-parsed all of it on every keystroke, most of the keystroke's time."""
        with self._lock:
            if not with_lint:
                quick = self._quick(text)
                if quick is not None:
                    return quick
            parsed = dsl.parse(text, file=self.display)
            if parsed.errors:
                return Check(parsed, list(parsed.errors))
            if not with_lint and (self._chunks is None or self._chunks.file != self.display):
                self._chunks = incremental.Incremental(self.display)
            if not with_lint:
                self._chunks.seed_parse(parsed)  # the next edit parses only what it changes
            return Check(parsed, [], lint.diagnostics(parsed) if with_lint else [])

    def _quick(self, text: str) -> Check | None:
        """The check from the chunk cache, or None when it cannot answer (no cache yet, a header edit,
        many rules changed at once)."""
        inc = self._chunks
        if inc is None or inc.file != self.display:
            return None
        try:
            found = inc.local(text)
        except Exception:  # noqa: BLE001 - the whole parse below answers instead
            return None
        if found is None:
            return None
        errors = [d for d in found if d.severity == "error"]
        if errors and any(d.severity != "error" for d in found):
            return None  # (not expected: errors come alone) the whole parse decides
        if errors:
            return Check(Parsed(None, errors, self.display, text), errors)
        parsed = inc.parsed(text)
        return Check(parsed, []) if parsed is not None else None

    def lint(self, checked: Check) -> list[Diagnostic]:
        with self._lock:
            return lint.diagnostics(checked.parsed) if checked.rulebase is not None else []

    def formatted(self, text: str) -> str:
        """The canonical text (``rulekit fmt``); a RulekitError when it has errors."""
        checked = self.check(text, with_lint=False)
        if checked.errors:
            raise RulekitError(f"not formatted: {len(checked.errors)} error(s), first "
                               f"{checked.errors[0].headline()}")
        return dsl.dumps(checked.rulebase, share_rows=checked.parsed.share_rows)  # as `rulekit fmt`

    # --- data -----------------------------------------------------------------------------------------

    def target_of(self, rb: RuleBase) -> str | None:
        if self.data is None:
            return None
        if self._target_given:
            return self.data.target
        return rb.target if rb.target in self.data.columns else None

    def baseline(self) -> tuple[Scored | None, str | None]:
        """The saved text scored on the data, or None and why not."""
        with self._lock:
            if self._baseline is not None and self._baseline[0] == self.saved_text:
                return self._baseline[1], self._baseline[2]
            parsed = dsl.parse(self.saved_text, file=self.display)
            if parsed.errors:
                result: tuple = (None, (f"the saved file has errors ({parsed.errors[0].headline()}): "
                                        "no 'before' to compare with"))
            else:
                try:
                    result = (score(parsed.rulebase, self.data, rule_keys(parsed)), None)
                except RulekitError as err:
                    result = (None, f"the saved file does not fit the data: {err}")
            self._baseline = (self.saved_text, *result)
            return result

    def warm(self) -> None:
        """Score the saved text on the data before the first page asks (the first scoring evaluates
        every rule: seconds for 500 rules on 100k rows); its errors are shown by the page later."""
        if self.data is not None:
            try:
                self.impact(self.check(self.saved_text, with_lint=False))
            except RulekitError:
                pass

    def impact(self, checked: Check) -> Impact:
        """The edit's effect on the data against the saved text (a RulekitError when it cannot be
        computed: no data, errors in the text, a data file that does not fit the rules)."""
        if self.data is None:
            raise RulekitError("no data: start the studio with --data DATA to see the impact of edits")
        rb = checked.rulebase
        if rb is None:
            raise RulekitError("the text has errors: impact not computed")
        with self._lock:
            before, why = self.baseline()
            after = score(rb, self.data, rule_keys(checked.parsed))
            if before is None:
                raise RulekitError(why)
            if before.rb.task != rb.task:
                raise RulekitError(f"the saved rules are a {before.rb.task} and these a {rb.task}")
            target = self.target_of(rb)
            self.data.target = target
            parsed = checked.parsed
            lines = [p[0] for p in parsed.rule_pos] if len(parsed.rule_pos) == len(rb.rules) else None
            concl = [conclusion_text(r.conclusion, rb.task, rb.classes) for r in rb.rules]
            concl.append(conclusion_text(rb.default, rb.task, rb.classes) if rb.default else "nothing")
            names = [engine.rule_name(rb, i) for i in range(len(rb.rules))]
            self._after = after
            return impact(before, after, self.data.y(), y_codes=self.data.y_codes, names=names, lines=lines,
                          conclusions=concl)

    def rows_decided(self, checked: Check, rule: int, limit: int = ROWS_SHOWN) -> tuple[int, list[dict]]:
        """How many rows rule ``rule`` (-1: the default) decides, and the first ``limit`` of them
        (row number, CSV line, the rule base's features, target, prediction)."""
        rb = checked.rulebase
        if self.data is None or rb is None:
            return 0, []
        with self._lock:
            s = score(rb, self.data, rule_keys(checked.parsed))
            rows = decided_by(s, rule)
            return len(rows), self._records(rb, s, rows[:limit])

    def _records(self, rb: RuleBase, s: Scored, rows: np.ndarray) -> list[dict]:
        cols = self.data.columns
        lines = getattr(cols, "lines", None)
        target = self.target_of(rb)
        out = []
        for i in rows.tolist():
            rec: dict[str, Any] = {"row": i, "line": lines[i] if lines else None}
            for f in rb.features:
                rec[f.name] = cols[f.name][i]
            if target is not None:
                rec[target] = cols[target][i]
            p = s.predictions[i]
            rec["prediction"] = p.item() if isinstance(p, np.generic) else p
            out.append(rec)
        return out

    def explain(self, checked: Check, row: int) -> str:
        """``rulekit predict --explain`` for one data row (0-based)."""
        rb = checked.rulebase
        if self.data is None or rb is None:
            raise RulekitError("explain needs --data and a text without errors")
        if not 0 <= row < self.data.n:
            raise RulekitError(f"row {row} is not a data row (0 to {self.data.n - 1})")
        with self._lock:
            one = {name: col[row:row + 1] for name, col in self.data.columns.items()}
            return str(explain(rb, one)[0])

    # --- files ---------------------------------------------------------------------------------------

    def save(self, text: str) -> str:
        """Write ``text`` to the opened rules file (atomically); it becomes the impact's 'before'."""
        if self.path is None:
            raise RulekitError(f"{self.source} is a model file: use Save As to write the rules")
        return self._write_rules(text, self.path)

    def save_as(self, text: str, path: str | Path) -> str:
        """Write ``text`` to ``path``, which becomes the opened file."""
        p = check_output_path(str(path).strip())
        check_distinct(p, data=self.data_path)
        if self.model is not None:
            check_distinct(p, model=self.source)
        message = self._write_rules(text, p)
        self.path = p
        self.display = str(p)
        return message

    def _write_rules(self, text: str, path: Path) -> str:
        checked = self.check(text, with_lint=False)
        if checked.errors:
            raise RulekitError(f"not saved: the text has {len(checked.errors)} error(s), first "
                               f"{checked.errors[0].headline()}")
        write_atomic(path, text)
        self.saved_text = text
        return f"saved {path}"

    def revert(self) -> str:
        """The text as last saved (as opened, when never saved)."""
        return self.saved_text

    def export(self, text: str, *, to: str, path: str | Path, dialect: str = "sqlite",
               table: str | None = None, key: str | None = None, proba: bool = False) -> str:
        """Write what ``rulekit export RULES --to ...`` writes for the rules in ``text`` to ``path``."""
        if to not in EXPORT_TARGETS:
            raise RulekitError(f"unknown export target {to!r} (choose from {', '.join(EXPORT_TARGETS)})")
        if to == "sql" and dialect not in SQL_DIALECTS:
            raise RulekitError(f"unknown SQL dialect {dialect!r}")
        if not str(path).strip():
            raise RulekitError("name the file to export to")
        p = check_output_path(str(path).strip())
        check_distinct(p, source=self.source, data=self.data_path)
        if self.path is not None:
            check_distinct(p, rules=self.path)
        checked = self.check(text, with_lint=False)
        if checked.errors:
            raise RulekitError(f"not exported: the text has {len(checked.errors)} error(s), first "
                               f"{checked.errors[0].headline()}")
        sql = {"dialect": dialect, "table": table or None, "key": key or None, "proba": proba} if to == "sql" \
            else {}
        with self._lock:
            result, caught = artefact(checked.rulebase, to=to, **sql)
        if isinstance(result, dict):
            raise RulekitError("a multi-file export (dbt) is not offered here: use rulekit export")
        write_atomic(p, result)
        size = len(result) if isinstance(result, bytes) else len(result.encode("utf-8"))
        notes = "".join(f"; warning: {' '.join(str(w.message).split())}" for w in caught)
        return f"wrote {p} ({size:,} bytes){notes}"

    # --- pictures --------------------------------------------------------------------------------------

    def rules_picture(self, checked: Check) -> str:
        from rulekit.rule_pictures import rules_svg

        rb = checked.rulebase
        return rules_svg(rb) if rb is not None and rb.rules else ""

    def model_picture(self) -> str:
        if self.model is None:
            return ""
        from rulekit.pictures import model_svg

        return model_svg(self.model)
