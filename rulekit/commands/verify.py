"""`rulekit verify`: score DATA plus threshold and NULL probe rows with every backend and report
disagreements with the source (exit 1 on any). The guarantee no peer gives.

The reference is the source itself: a model's IR evaluation (exact against its library, as the
importer parity tests prove) or the rule engine for a rules file. Tolerances: labels identical;
probabilities/values within 1e-12, or 1e-6 for ONNX float32 input, which is compared against the
source evaluated on the same float32-rounded data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rulekit import runtimes
from rulekit.commands.source import load_source
from rulekit.errors import NotBuiltError, RulekitError
from rulekit.ir.data import read_csv, to_matrix
from rulekit.probe import probe_matrix, source_thresholds
from rulekit.table import Table, from_matrix, n_rows

DEFAULT_BACKENDS = ("python", "sqlite", "duckdb", "postgres", "mysql", "onnx", "onnx-double")
FLOAT32_BACKENDS = {"onnx"}


@dataclass
class Report:
    backend: str
    rows: int
    label_mismatches: int
    max_diff: float
    seconds: float
    status: str  # "ok", "DISAGREES", "skipped: …", "failed: …"

    @property
    def ok(self) -> bool:
        return self.status == "ok" or self.status.startswith("skipped")


def probe_table(obj, table: Table, *, max_rows: int = 20_000) -> Table:
    """DATA plus a row at every threshold (and its float32/float64 neighbours) and missing rows."""
    M = to_matrix(table, obj.features)
    P = probe_matrix(M, source_thresholds(obj), max_rows=max_rows) if len(M) else M
    return from_matrix(obj.features, P)


def _float32_table(obj, table: Table) -> Table:
    out = dict(table)
    for f in obj.features:
        if f.kind == "numeric":
            with np.errstate(over="ignore"):
                out[f.name] = table[f.name].astype(np.float32).astype(np.float64)
    return out


def _label_keys(values, classes) -> list:
    """Comparable keys for labels that came back as text, ints, floats, Decimals or bools."""
    numeric = classes is not None and all(isinstance(c, (int, float)) for c in classes)
    keys = []
    for v in values:
        if v is None:
            keys.append(None)
        elif numeric or isinstance(v, (int, float, np.number)) and not isinstance(v, bool):
            try:
                keys.append(float(v))
            except (TypeError, ValueError):
                keys.append(str(v))
        else:
            keys.append(str(v))
    return keys


def compare(obj, expected_pred, expected_proba, outcome: runtimes.Outcome, tol: float):
    """(label mismatches, max probability/value difference) of ``outcome`` against the source."""
    if obj.task == "classification":
        want = _label_keys(list(expected_pred), obj.classes)
        got = _label_keys(list(outcome.prediction), obj.classes)
        mismatches = sum(a != b for a, b in zip(want, got)) + abs(len(want) - len(got))
        if outcome.proba is None or outcome.proba.shape != expected_proba.shape:
            return mismatches, float("inf")
        diff = np.abs(outcome.proba - expected_proba)
        diff[np.isnan(diff)] = np.inf
        return mismatches, float(diff.max()) if diff.size else 0.0
    want = np.asarray(expected_pred, np.float64)
    got = np.asarray(outcome.prediction, np.float64)
    if want.shape != got.shape:
        return len(want), float("inf")
    scale = np.maximum(1.0, np.abs(want))
    rel = np.abs(got - want) / scale
    rel[np.isnan(rel) & ~(np.isnan(got) & np.isnan(want))] = np.inf
    bad = int((np.nan_to_num(rel, nan=0.0) > tol).sum())
    return bad, float(np.nan_to_num(rel, nan=0.0).max()) if rel.size else 0.0


def verify(obj, table: Table, backends: list[str], *, explicit: bool = False) -> list[Report]:
    reports = []
    ref = (obj.predict(table), obj.predict_proba(table) if obj.task == "classification" else None)
    ref32 = None
    for name in backends:
        run = runtimes.runner(name)
        tol = 1e-6 if name in FLOAT32_BACKENDS else 1e-12
        try:
            outcome = run(obj, table)
        except runtimes.Unavailable as why:
            if explicit:
                raise RulekitError(f"backend {name}: {why}") from None
            reports.append(Report(name, 0, 0, 0.0, 0.0, f"skipped: {why}"))
            continue
        except NotBuiltError as err:
            reports.append(Report(name, 0, 0, 0.0, 0.0, f"skipped: {err}"))
            continue
        except RulekitError as err:
            reports.append(Report(name, 0, 0, 0.0, 0.0, f"failed: {err}"))
            continue
        except Exception as err:  # noqa: BLE001 - a runtime error is a finding, not a crash
            reports.append(Report(name, 0, 0, 0.0, 0.0, f"failed: {type(err).__name__}: {err}"))
            continue
        if name in FLOAT32_BACKENDS:
            if ref32 is None:
                t32 = _float32_table(obj, table)
                ref32 = (obj.predict(t32), obj.predict_proba(t32) if obj.task == "classification" else None)
            expected = ref32
        else:
            expected = ref
        mism, diff = compare(obj, expected[0], expected[1], outcome, tol)
        status = "ok" if mism == 0 and diff <= tol else "DISAGREES"
        reports.append(Report(name, len(outcome.prediction), mism, diff, outcome.seconds, status))
    return reports


def print_reports(reports: list[Report], n: int, quiet: bool) -> None:
    from rich.console import Console
    from rich.table import Table as RichTable

    console = Console(stderr=False, highlight=False)
    t = RichTable(title=f"rulekit verify: {n} rows (data + threshold and missing-value probes)")
    for col in ("backend", "rows", "label mismatches", "max |Δ|", "time (s)", "status"):
        t.add_column(col)
    for r in reports:
        style = "green" if r.status == "ok" else ("yellow" if r.status.startswith("skipped") else "red")
        t.add_row(r.backend, str(r.rows), str(r.label_mismatches), f"{r.max_diff:.3g}", f"{r.seconds:.3f}",
                  f"[{style}]{r.status}[/{style}]")
    if not quiet or any(not r.ok for r in reports):
        console.print(t)


def run(*, source: Path, data: Path, backends: str | None, quiet: bool) -> int:
    obj = load_source(source)
    columns = read_csv(data)
    table = probe_table(obj, from_matrix(obj.features, to_matrix(columns, obj.features)))
    names = [b.strip() for b in backends.split(",") if b.strip()] if backends else list(DEFAULT_BACKENDS)
    for name in names:
        runtimes.runner(name)  # unknown names fail before any work
    reports = verify(obj, table, names, explicit=backends is not None)
    print_reports(reports, n_rows(table), quiet)
    return 0 if all(r.ok for r in reports) else 1
