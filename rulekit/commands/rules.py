"""`rulekit rules`: extract, simplify and (with data) prune a rule base from a model; write the DSL."""

from __future__ import annotations

from pathlib import Path

from rulekit import progress
from rulekit.commands.source import describe, load_source
from rulekit.errors import DataError, RulekitError
from rulekit.fileio import check_distinct, check_output_path, is_stdout, report_written, write_atomic
from rulekit.table import check_columns, located, read_csv
from rulekit.ir.model import Model
from rulekit.util import count


def run(*, model: Path, prune_data: Path | None, dnf: bool, order: str, output: Path,
        prune: str | None = None, quiet: bool = False, na_values: str | None = None) -> int:
    """Without ``--prune-data`` the rules predict exactly what the model predicts; with it, rules are
    pruned (``prune``: C4.5rules' pessimistic error on that data by default, or reduced-error with
    that data as the pruning set) and ordered by class with a default."""
    from rulekit import dsl
    from rulekit.rules import to_rules
    from rulekit.rules.boxes import count_literals

    check_output_path(output)
    check_distinct(output, model=model, prune_data=prune_data)
    obj = load_source(model)
    if not isinstance(obj, Model):
        raise RulekitError(f"{model}: 'rulekit rules' reads a model file; this is a rules file")
    data = None
    if prune_data is not None:
        with progress.phase(f"reading {prune_data}"):
            data = read_csv(prune_data, na_values)
    if data is not None and obj.task != "classification":
        raise RulekitError("--prune-data prunes classification rules; this model is a regressor")
    if prune is not None and data is None:
        raise RulekitError(f"--prune {prune} needs --prune-data")
    if data is not None:
        check_prune_data(data, obj)
    method = (prune or "pessimistic") if data is not None else None
    doing = "extracting" + (f" and pruning ({method})" if method else "") + " rules"
    with progress.phase(f"{doing} from {describe(obj)}"):
        with located(data or {}, obj.features):
            rb = to_rules(obj, prune=method, prune_data=data, dnf=dnf, order=order)
    with progress.phase(f"writing {output} ({describe(rb)})"):
        text = dsl.dumps(rb)
        write_atomic(output, text)
    if not quiet and not is_stdout(output):
        n_lit = sum(count_literals(r.condition) for r in rb.rules)
        report_written(output, f"{count(len(rb.rules), 'rule')}, {count(n_lit, 'condition')}")
    return 0


def check_prune_data(data, model: Model) -> None:
    """Pruning data needs the model's features, at least one row and a known class on every row:
    an empty or unknown label would count as an error of every rule and prune them wrongly."""
    check_columns(data, model.features)
    path = getattr(data, "path", None)
    feats = {f.name for f in model.features}
    if model.target is not None and model.target in data:
        target = model.target
    else:
        rest = [c for c in data if c not in feats]
        if len(rest) != 1:
            others = ", ".join(map(repr, rest)) or "none"
            what = (f"no target column {model.target!r}" if model.target is not None
                    else "cannot tell the target column (the model file names none)")
            raise DataError(f"{what}; columns besides the model's features: {others}",
                            file=path, line=1)
        target = rest[0]
    labels = data[target]
    if not len(labels):
        raise DataError("no data rows to prune with", file=path)
    known = {str(c) for c in model.classes}
    numeric = {float(c) for c in model.classes
               if isinstance(c, (int, float)) and not isinstance(c, bool)}
    lines = getattr(data, "lines", None)
    for i, v in enumerate(labels):
        if str(v) in known or _as_float(v) in numeric:
            continue
        where = {"file": path, "line": lines[i]} if lines else {}
        what = "empty" if v in ("", None) else repr(v)
        shown = ", ".join(map(str, model.classes))
        raise DataError(f"target {target!r} is {what}, not one of the model's classes ({shown})",
                        **where)


def _as_float(v) -> float | None:
    try:
        return float(v)
    except (TypeError, ValueError):
        return None
