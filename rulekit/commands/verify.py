"""`rulekit verify`: score DATA plus threshold and NULL probe rows with every backend and report
disagreements with the source (exit 1 on any). The guarantee no peer gives.

The reference is the source itself: a model's IR evaluation (exact against its library, as the
importer parity tests prove) or the rule engine for a rules file, on the rows as the user gives
them (float64). Tolerances: labels identical; probabilities/values within 1e-12, or 1e-6 where ONNX
takes float32 input (``onnx`` when ``--dtype auto`` picks float, ``onnx-float``). float32 input is
exact only for models whose tests compare in float32; on a model that compares in float64 the
rows it moves across a threshold are a finding, reported on a line of their own.

``--source-model FILE`` (the XGBoost, LightGBM or scikit-learn file SOURCE was imported from) also
runs that library on the same rows (:mod:`rulekit.source_library`) and compares the rulekit model
and every backend with it, in a second table with the same tolerances. Model files carry no paths
(they stay portable), only the imported file's name: an XGBoost or LightGBM file of that name next
to SOURCE is used when ``--source-model`` is not given. Comparing is on by default when there is a
file and its library is installed (``--no-against-source`` turns it off).

Every row goes through every backend, with one exception that keeps verify fast on big data: the
Python module's per-row functions (``python``) see every probe row but only a seeded sample of
``PER_ROW_SAMPLE`` data rows, while its batch functions (``python-batch``) see every row.
``all_rows=True`` (``--all-rows``) runs the per-row functions on every row too. SQLite scores a
single tree of more than 2,000 leaves in chunks (:mod:`rulekit.commands.verify_chunks`): it prepares
one statement in time quadratic in its constants.
"""

from __future__ import annotations

import contextvars
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rulekit import progress, runtimes, source_library
from rulekit.commands import verify_chunks
from rulekit.commands.source import load_source
from rulekit.commands.recorded_na import declared_note, declared_values, na_values_for
from rulekit.errors import RulekitError
from rulekit.exporters.onnx.precision import uses_float64
from rulekit.exporters.sql import dialect as sql_dialect
from rulekit.exporters.sql import float32 as sql_float32
from rulekit.ir.data import to_matrix
from rulekit.ir.float32 import float64_sum_bound
from rulekit.probe import probe_matrix, source_thresholds
from rulekit.table import (
    Table,
    check_columns,
    fill_unused,
    from_matrix,
    located,
    n_rows,
    read_csv,
)
from rulekit.usage import used_features

DEFAULT_BACKENDS = ("python", "python-batch", "sqlite", "duckdb", "postgres", "mysql", "onnx",
                    "onnx-double")
ONNX_DTYPES = {"onnx": "auto", "onnx-float": "float", "onnx-double": "double"}
PER_ROW_BACKENDS = {"python"}  # row-at-a-time interfaces: probe rows + a sample of the data rows
PER_ROW_SAMPLE = 2_000
BACKEND_STACK_BYTES = 512 * 1024 * 1024  # 64 MiB ran a 20,000-deep tree in onnxruntime; 8x margin


@dataclass
class Report:
    backend: str
    rows: int
    label_mismatches: int
    max_diff: float
    seconds: float  # scoring only
    status: str  # "ok", "DISAGREES", "skipped: …", "failed: …"
    total_seconds: float = 0.0  # export, loading and scoring
    note: str = ""  # what a disagreement is, printed on a line of its own
    outcome: runtimes.Outcome | None = None  # what the backend returned (for --source-model)
    subset: np.ndarray | None = None  # the rows it scored, None: all

    @property
    def ok(self) -> bool:
        return self.status == "ok" or self.status.startswith("skipped")


def probe_table(obj, table: Table, *, max_rows: int = 20_000) -> Table:
    """DATA plus a row at every threshold (and its float32/float64 neighbours) and missing rows."""
    M = to_matrix(table, obj.features)
    P = probe_matrix(M, source_thresholds(obj), max_rows=max_rows) if len(M) else M
    return from_matrix(obj.features, P)


def float64_sums(obj, name: str) -> bool:
    """Whether backend (or SQL dialect) ``name`` sums a float32-arithmetic (XGBoost) model in float64:
    SQLite, BigQuery and Snowflake have no 4-byte float type (T-SQL's is not wired up), so their
    queries keep float64 sums (said in a header comment)."""
    combiner = getattr(obj, "combiner", None)
    return (name in sql_dialect.NAMES and name not in sql_float32.TYPES
            and combiner is not None and combiner.arithmetic == "float32")


def tolerance(obj, name: str) -> float:
    """Labels must match; probabilities/values (relative to max(1, |v|)) within 1e-12, 1e-6 for
    float32 ONNX input, and the stated float32-sum bound where a backend sums in float64."""
    if float64_sums(obj, name) and obj.combiner.kind == "average":  # onnxruntime's float forests
        # n float32 additions of terms v / n, no partial sum above max v; + 1 - s and the float64 side
        terms = _term_magnitudes(obj)
        return (len(terms) + 1) * 2.0 ** -24 * max(terms, default=0.0) + 2.0 ** -23
    if float64_sums(obj, name):
        return float64_sum_bound(obj.combiner.base_score, _term_magnitudes(obj))
    return 1e-6 if float32_input(obj, name) else 1e-12


def _term_magnitudes(obj) -> list[float]:
    """Each summed term's largest |value|: a tree's leaves, or a weighted rule's conclusion."""
    if hasattr(obj, "trees"):
        return [max((abs(v) for _, value in t.nodes(data="value") if value for v in value), default=0.0)
                for t in obj.trees]
    out = []
    for r in obj.rules:
        c = r.conclusion
        values = [c.value or 0.0, *(c.distribution or ())]
        out.append(max(abs(v) for v in values) * abs(r.weight if r.weight is not None else 1.0))
    return out


def float32_input(obj, name: str) -> bool:
    """Whether backend ``name`` feeds ``obj`` float32 input (ONNX with float input)."""
    return name in ONNX_DTYPES and runtimes.onnx_input(obj, ONNX_DTYPES[name]) == "float"


def default_backends(obj) -> list[str]:
    """Every backend, less ``onnx-double`` when the default ONNX export already takes double."""
    names = list(DEFAULT_BACKENDS)
    if not float32_input(obj, "onnx"):
        names.remove("onnx-double")
    return names


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


def rows_differ(obj, expected_pred, expected_proba, outcome: runtimes.Outcome, tol: float) -> np.ndarray:
    """Rows (a boolean mask) where ``outcome`` differs from the source: another label, or a
    probability (value, relative to max(1, |y|)) more than ``tol`` away."""
    if obj.task == "classification":
        want = _label_keys(list(expected_pred), obj.classes)
        got = _label_keys(list(outcome.prediction), obj.classes)
        bad = np.asarray([a != b for a, b in zip(want, got)], dtype=bool)
        if outcome.proba is not None and outcome.proba.shape == expected_proba.shape:
            diff = np.abs(outcome.proba - expected_proba)
            both = np.isnan(outcome.proba) & np.isnan(expected_proba)  # undecided on both sides, as compare
            bad |= ~((diff <= tol) | both).all(axis=1)
        return bad
    want = np.asarray(expected_pred, np.float64)
    got = np.asarray(outcome.prediction, np.float64)
    rel = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    return ~(rel <= tol) & ~(np.isnan(got) & np.isnan(want))


def compare(obj, expected_pred, expected_proba, outcome: runtimes.Outcome, tol: float):
    """(label mismatches, max probability/value difference) of ``outcome`` against the source."""
    if obj.task == "classification":
        want = _label_keys(list(expected_pred), obj.classes)
        got = _label_keys(list(outcome.prediction), obj.classes)
        mismatches = sum(a != b for a, b in zip(want, got)) + abs(len(want) - len(got))
        if outcome.proba is None or outcome.proba.shape != expected_proba.shape:
            return mismatches, float("inf")
        diff = np.abs(outcome.proba - expected_proba)
        both = np.isnan(outcome.proba) & np.isnan(expected_proba)  # a row no rule decides, on both sides
        diff[np.isnan(diff) & ~both] = np.inf
        diff[both] = 0.0
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


def per_row_rows(n_total: int, n_data: int | None, sample: int | None = None) -> np.ndarray | None:
    """Rows for the per-row backends: every probe row (they follow the ``n_data`` data rows) and a
    seeded sample of ``sample`` (default PER_ROW_SAMPLE) data rows; None (all rows) when there is
    nothing to leave out."""
    sample = PER_ROW_SAMPLE if sample is None else sample
    if n_data is None or n_data <= sample:
        return None
    picked = np.sort(np.random.default_rng(0).choice(n_data, size=sample, replace=False))
    return np.concatenate([picked, np.arange(n_data, n_total)])


def _take(table: Table, rows: np.ndarray) -> Table:
    return {k: v[rows] for k, v in table.items()}


def _pick(values, rows: np.ndarray | None):
    return values if rows is None or values is None else np.asarray(values)[rows]


def verify(obj, table: Table, backends: list[str], *, explicit: bool = False,
           n_data: int | None = None, jobs: int = 1) -> list[Report]:
    """Run ``backends`` on ``table`` and compare each with the source; reports in backend order.
    ``n_data``: how many leading rows are the user's data (the rest are probes); when given,
    per-row backends see every probe row and a sample of the data rows (:func:`per_row_rows`);
    None: every backend sees every row. ``jobs`` > 1 runs that many backends at once (threads:
    the engines and onnxruntime work outside the GIL; times then overlap)."""
    with progress.phase(f"scoring {n_rows(table):,} rows with the source"):
        expected = _reference(obj, table)
    subset = per_row_rows(n_rows(table), n_data)

    def check(name: str) -> Report:
        with progress.phase(name):
            rows = subset if name in PER_ROW_BACKENDS else None
            return _check_backend(obj, table, name, expected, rows, explicit, n_data)

    with runtimes.keep_exports(), progress.bar("verifying backends", total=len(backends)) as bar, \
            big_thread_stacks():
        # backends always run in worker threads (one at a time unless jobs > 1): their big stacks
        # let native engines recurse deep (onnxruntime crashed the process on a 12,000-deep tree)
        with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(backends)))) as pool:
            futures = [pool.submit(contextvars.copy_context().run, check, name) for name in backends]
            try:
                for done in as_completed(futures):
                    done.result()  # an explicitly requested backend that is unreachable stops all
                    bar.advance()
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        return [f.result() for f in futures]


@contextmanager
def big_thread_stacks(size: int = BACKEND_STACK_BYTES) -> Iterator[None]:
    """New threads get ``size`` bytes of stack (reserved, touched only as used) while inside."""
    old = threading.stack_size()
    try:
        threading.stack_size(size)
    except (ValueError, RuntimeError):  # a platform without settable stacks: keep the default
        pass
    try:
        yield
    finally:
        threading.stack_size(old)


def _reference(obj, table: Table) -> tuple:
    return obj.predict(table), obj.predict_proba(table) if obj.task == "classification" else None


def _check_backend(obj, table: Table, name: str, expected: tuple, rows: np.ndarray | None,
                   explicit: bool, n_data: int | None = None) -> Report:
    """One backend on ``table`` (or its ``rows``) against ``expected``; failures become reports."""
    run = runtimes.runner(name)
    tol = tolerance(obj, name)
    t0 = time.perf_counter()
    try:
        part = table if rows is None else _take(table, rows)
        groups = verify_chunks.plan(obj) if name in verify_chunks.CHUNKED_BACKENDS else None
        outcome = run(obj, part) if groups is None else verify_chunks.run_chunked(run, obj, part, groups)
    except runtimes.Unavailable as why:
        if explicit:
            raise RulekitError(f"backend {name}: {why}") from None
        return Report(name, 0, 0, 0.0, 0.0, f"skipped: {why}")
    except RulekitError as err:
        return Report(name, 0, 0, 0.0, 0.0, f"failed: {err}")
    except Exception as err:  # noqa: BLE001 - a runtime error is a finding, not a crash
        return Report(name, 0, 0, 0.0, 0.0, f"failed: {type(err).__name__}: {err}")
    total = time.perf_counter() - t0
    want = (_pick(expected[0], rows), _pick(expected[1], rows))
    mism, diff = compare(obj, *want, outcome, tol)
    status = "ok" if mism == 0 and diff <= tol else "DISAGREES"
    note = ""
    if status != "ok" and float32_input(obj, name) and uses_float64(obj):
        bad = rows_differ(obj, *want, outcome, tol)
        data = "" if n_data is None or rows is not None else \
            f", {int(bad[:n_data].sum()):,} of the {n_data:,} data rows"
        note = (f"input rounded to float32: {int(bad.sum()):,} of {len(bad):,} rows differ{data} (this "
                f"model compares in float64; its default ONNX export, --dtype auto, takes double input)")
    elif float64_sums(obj, name):
        whose = "onnxruntime forest's" if obj.combiner.kind == "average" else "XGBoost model's"
        note = (f"{name} has no 4-byte float: this {whose} float32 sums run in float64, "
                f"compared within the stated bound {tol:.2g} (max difference {diff:.2g})")
    return Report(name, len(outcome.prediction), mism, diff, outcome.seconds, status, total, note,
                  outcome, rows)


def against_library(obj, table: Table, reports: list[Report], lib) -> tuple[list[Report], str]:
    """Every backend that ran, and the rulekit model itself, against the source library's own
    predictions on the same rows (same tolerances); plus the library's note (rows it refused)."""
    with progress.phase(f"scoring {n_rows(table):,} rows with {lib.name}"):
        got = source_library.score(lib, obj, table)
    ir = runtimes.Outcome(*_reference(obj, table), 0.0)
    out = []
    for r in [Report("rulekit model", 0, 0, 0.0, 0.0, "ok", outcome=ir)] + reports:
        if r.outcome is None:
            continue
        rows = np.flatnonzero(got.scored) if r.subset is None else r.subset[got.scored[r.subset]]
        keep = rows if r.subset is None else np.searchsorted(r.subset, rows)
        o = r.outcome
        mine = runtimes.Outcome(np.asarray(o.prediction)[keep],
                                None if o.proba is None else o.proba[keep], o.seconds)
        tol = tolerance(obj, r.backend)
        mism, diff = compare(obj, got.prediction[rows], None if got.proba is None else got.proba[rows],
                             mine, tol)
        status = "ok" if mism == 0 and diff <= tol else "DISAGREES"
        out.append(Report(r.backend, len(rows), mism, diff, o.seconds, status, r.total_seconds))
    return out, got.note


def print_reports(reports: list[Report], n: int, quiet: bool, n_data: int | None = None,
                  title: str | None = None) -> None:
    """The table of backends on stdout (with ``quiet``, only when something is wrong)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table as RichTable

    if quiet and all(r.ok for r in reports):
        return
    console = Console(stderr=False, highlight=False)
    t = RichTable(title=title or f"rulekit verify: {n:,} rows (data + threshold and missing-value probes)")
    t.add_column("backend", no_wrap=True)
    for col in ("rows", "wrong labels", "max |Δ|", "score s", "total s"):
        t.add_column(col, justify="right", no_wrap=True)
    t.add_column("status")
    for r in reports:
        style = "green" if r.status == "ok" else ("yellow" if r.status.startswith("skipped") else "red")
        t.add_row(r.backend, f"{r.rows:,}", str(r.label_mismatches), f"{r.max_diff:.3g}", f"{r.seconds:.3f}",
                  f"{r.total_seconds:.3f}", f"[{style}]{escape(r.status)}[/{style}]")
    console.print(t)
    for r in reports:
        if r.note:
            print(f"{r.backend}: {r.note}")
    sampled = [r.backend for r in reports if r.backend in PER_ROW_BACKENDS and 0 < r.rows < n]
    if sampled and n_data is not None:
        console.print(f"{', '.join(sampled)}: the per-row functions ran on every probe row and "
                      f"{PER_ROW_SAMPLE:,} of the {n_data:,} data rows (python-batch ran on all of them; "
                      f"--all-rows runs the per-row functions on every row)")


def run(*, source: Path, data: Path, backends: str | None, quiet: bool, all_rows: bool = False,
        jobs: int = 1, na_values: str | None = None, source_model: Path | None = None,
        against_source: bool | None = None, allow_pickle: bool = False) -> int:
    if jobs < 1:
        raise RulekitError(f"--jobs must be at least 1 (got {jobs})")
    names = (list(DEFAULT_BACKENDS) if backends is None
             else [b.strip() for b in backends.split(",") if b.strip()])
    defaults = backends is None
    if not names:
        raise RulekitError(f"--backends {backends!r} names no backend "
                           f"(choose from {', '.join(DEFAULT_BACKENDS)})")
    names = list(dict.fromkeys(names))
    for name in names:
        runtimes.runner(name)  # unknown names fail before any work
    obj = load_source(source)
    if defaults:
        names = default_backends(obj)
    lib = _source_library(obj, source_model or recorded_source(obj, source), against_source,
                          allow_pickle)
    na, na_note = na_values_for(obj, na_values)  # a model's: fit's NA texts unless given
    declared = declared_values(obj, na, na_values)  # NA texts the domains declare as values
    with progress.phase(f"reading {data}"):
        columns = read_csv(data, na, declared)
        na_note = na_note or declared_note(columns, declared)
        fill_unused(columns, obj.features, used_features(obj))
        check_columns(columns, obj.features)
        with located(columns, obj.features):
            base = from_matrix(obj.features, to_matrix(columns, obj.features))
    with progress.phase("making threshold and missing-value probe rows"):
        table = probe_table(obj, base)
    n_data = None if all_rows else n_rows(base)
    reports = verify(obj, table, names, explicit=backends is not None, n_data=n_data, jobs=jobs)
    if na_note is not None:  # once the rows are read: an error stays the only line
        print(f"rulekit: note: {na_note}", file=sys.stderr)
    print_reports(reports, n_rows(table), quiet, n_data)
    if lib is not None:
        vs, note = against_library(obj, table, reports, lib)
        print_reports(vs, n_rows(table), quiet and all(r.ok for r in reports), title=(
            f"against {lib.name} itself ({lib.path.name}), same rows and tolerances"))
        if note and not (quiet and all(r.ok for r in reports + vs)):
            print(f"{lib.name}: {note}")
        reports = reports + vs
    return 0 if all(r.ok for r in reports) else 1


def recorded_source(obj, source: Path) -> Path | None:
    """The XGBoost/LightGBM file the model records it was imported from (``source.file``, a bare
    name), when that file lies next to SOURCE; pickles are never picked up implicitly."""
    name = getattr(obj, "source", {}).get("file")
    if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
        return None
    path = source.parent / name
    try:
        fmt = source_library.source_format(path) if path.is_file() else None
    except RulekitError:
        return None
    return path if fmt in ("xgboost", "lightgbm") else None


def _source_library(obj, path: Path | None, wanted: bool | None, allow_pickle: bool):
    """The source library for ``--source-model``: on by default when the file is given and its
    library is installed; ``--against-source`` without a file or library is a usage error."""
    if wanted is False:
        return None
    if path is None:
        if wanted:
            raise RulekitError("--against-source needs --source-model FILE (the XGBoost, LightGBM or "
                               "scikit-learn file the model was imported from)")
        return None
    if not hasattr(obj, "trees"):
        raise RulekitError("--source-model applies to a model file imported from that library, not to "
                           "a rules file")
    fmt = source_library.source_format(path)
    if not source_library.library_installed(fmt):
        if wanted:
            raise RulekitError(f"--against-source: {source_library.LIBRARY_MODULES[fmt]} is not installed")
        print(f"rulekit: note: {source_library.LIBRARY_MODULES[fmt]} is not installed: not comparing "
              f"with {path}", file=sys.stderr)
        return None
    return source_library.load(path, obj, allow_pickle=allow_pickle)
