"""`rulekit demo`: the whole pipeline on a bundled data set, end to end, with embedded engines.

Learns a CART tree on scikit-learn's breast-cancer data (569 rows, 30 numeric features whose names
have spaces), extracts and prunes a rule base, writes the rules file, exports Python, SQL (run in
SQLite and DuckDB) and ONNX (run in onnxruntime), verifies every artefact against its source on the
data plus threshold and missing-value probe rows, and says where everything is.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

import numpy as np

from rulekit.errors import RulekitError
from rulekit.fileio import write_atomic
from rulekit.rules.boxes import iter_literals
from rulekit.shell_words import shell_word
from rulekit.util import count

BACKENDS = ["python", "python-batch", "sqlite", "duckdb", "onnx", "onnx-double"]


def _dataset():
    try:
        from sklearn.datasets import load_breast_cancer
    except ImportError:
        raise RulekitError("the demo uses scikit-learn's bundled data: pip install 'rulekit[all]'") from None
    data = load_breast_cancer()
    names = [str(n) for n in data.feature_names]
    y = np.asarray(data.target_names, dtype=object)[data.target]
    return data.data, y, names


def _write_csv(path: Path, names, X, y=None, target="diagnosis") -> None:
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(list(names) + ([target] if y is not None else []))
    for i, row in enumerate(X):
        cells = ["" if np.isnan(v) else repr(float(v)) for v in row]
        w.writerow(cells + ([y[i]] if y is not None else []))
    write_atomic(path, buf.getvalue())


def run(*, out: Path, quiet: bool) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from rulekit import dsl, export, progress
    from rulekit.commands.verify import probe_table, verify
    from rulekit.learners import CARTClassifier
    from rulekit.rules import to_rules
    from rulekit.table import from_data, n_rows

    console = Console(quiet=quiet, highlight=False)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise RulekitError(f"--out {out}: exists and is not a directory") from None
    except OSError as err:
        raise RulekitError(f"--out {out}: cannot create the directory ({err.strerror or err})") from None
    steps: list[tuple[str, str]] = []
    t_start = time.perf_counter()

    with progress.phase("loading breast-cancer data"):
        X, y, names = _dataset()
        rng = np.random.default_rng(0)
        X = X.copy()
        X[rng.random(X.shape) < 0.02] = np.nan  # a few missing cells: NULL handling is part of the show
        _write_csv(out / "data.csv", names, X, y)
        steps.append(("data", str(out / "data.csv")))

    with progress.phase("learning a CART tree"):
        import pandas as pd

        frame = pd.DataFrame(X, columns=names)
        target = pd.Series(y, name="diagnosis")
        est = CARTClassifier(max_depth=5, min_samples_leaf=5, random_state=0).fit(frame, target)
        model = est.model_
        model.save(out / "model.json")
        tree_acc = float(np.mean(model.predict(frame) == y))
        steps.append(("model (JSON)", str(out / "model.json")))

    with progress.phase("extracting and pruning rules"):
        rb = to_rules(model, prune="pessimistic", prune_data=(frame, y), name="breast_cancer")
        write_atomic(out / "model.rules", dsl.dumps(rb))
        rules_acc = float(np.mean(np.asarray(rb.predict(frame), dtype=object) == y))
        steps.append(("rules (edit me)", str(out / "model.rules")))

    with progress.phase("exporting Python, SQL and ONNX"):
        write_atomic(out / "model.py", export.to_python(model))
        for dialect in ("sqlite", "duckdb", "postgres"):
            write_atomic(out / f"model.{dialect}.sql",
                         export.to_sql(model, dialect=dialect, table="patients", proba=True))
        write_atomic(out / "model.onnx", export.to_onnx(model).SerializeToString())
        write_atomic(out / "rules.duckdb.sql", export.to_sql(rb, dialect="duckdb", table="patients"))
        steps += [("Python module", str(out / "model.py")),
                  ("SQL (SQLite / DuckDB / PostgreSQL)", str(out / "model.sqlite.sql")),
                  ("ONNX", str(out / "model.onnx"))]

    with progress.phase("running every artefact in its runtime and comparing"):
        table = probe_table(model, from_data(frame, model.features))
        model_reports = verify(model, table, BACKENDS)
        rules_table = probe_table(rb, from_data(frame, rb.features))
        rules_reports = verify(rb, rules_table, BACKENDS)

    t = Table(title=f"every backend against its source ({n_rows(table)} rows: data + threshold and "
                    f"missing-value probes)")
    for col in ("source", "backend", "label mismatches", "max |Δp|", "status"):
        t.add_column(col)
    for label, reports in (("tree", model_reports), ("rules", rules_reports)):
        for r in reports:
            style = "green" if r.status == "ok" else ("yellow" if r.status.startswith("skipped") else "red")
            t.add_row(label, r.backend, str(r.label_mismatches), f"{r.max_diff:.2g}",
                      f"[{style}]{escape(r.status)}[/{style}]")
    console.print(t)
    n_lit = sum(1 for r in rb.rules for _ in iter_literals(r.condition))
    console.print(f"tree: {model.graph.number_of_nodes()} nodes, training accuracy {tree_acc:.3f}; "
                  f"rules: {count(len(rb.rules), 'rule')} / {count(n_lit, 'literal')}, accuracy {rules_acc:.3f}")
    files = Table(title="artefacts", show_header=False)
    for what, where in steps:
        files.add_row(what, escape(where))
    console.print(files)
    # the suggested commands write under OUT too, not into the current directory
    rules_path, data_path, model_path, edited_path, svg_path = (
        shell_word(str(out / n)) for n in ("model.rules", "data.csv", "model.json", "edited.sql", "tree.svg"))
    console.print(  # paths shell-quoted, markup-escaped, lines never wrapped: commands stay copyable
        f"next: edit a threshold in [bold]{escape(str(out / 'model.rules'))}[/bold], then\n" + escape(
            f"  rulekit check {rules_path}\n"
            f"  rulekit export {rules_path} --to sql --dialect duckdb --table patients -o {edited_path}\n"
            f"  rulekit verify {rules_path} {data_path}\n"
            f"  rulekit show {model_path} --format svg -o {svg_path}\n"
            f"(done in {time.perf_counter() - t_start:.1f} s)"), soft_wrap=True)
    ok = all(r.ok for r in model_reports + rules_reports)
    return 0 if ok else 1
