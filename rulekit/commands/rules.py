"""`rulekit rules`: extract, simplify and (with data) prune a rule base from a model; write the DSL."""

from __future__ import annotations

from pathlib import Path

from rulekit import progress
from rulekit.commands.source import describe, load_source
from rulekit.errors import RulekitError
from rulekit.fileio import write_atomic
from rulekit.ir.data import read_csv
from rulekit.ir.model import Model


def run(*, model: Path, prune_data: Path | None, dnf: bool, order: str, output: Path,
        prune: str | None = None, quiet: bool = False) -> int:
    """Without ``--prune-data`` the rules predict exactly what the model predicts; with it, rules are
    pruned (``prune``: C4.5rules' pessimistic error on that data by default, or reduced-error with
    that data as the pruning set) and ordered by class with a default."""
    from rulekit import dsl
    from rulekit.rules import to_rules
    from rulekit.rules.boxes import count_literals

    obj = load_source(model)
    if not isinstance(obj, Model):
        raise RulekitError(f"{model}: 'rulekit rules' reads a model file; this is a rules file")
    data = None
    if prune_data is not None:
        with progress.phase(f"reading {prune_data}"):
            data = read_csv(prune_data)
    if data is not None and obj.task != "classification":
        raise RulekitError("--prune-data prunes classification rules; this model is a regressor")
    if prune is not None and data is None:
        raise RulekitError(f"--prune {prune} needs --prune-data")
    method = (prune or "pessimistic") if data is not None else None
    doing = "extracting" + (f" and pruning ({method})" if method else "") + " rules"
    with progress.phase(f"{doing} from {describe(obj)}"):
        rb = to_rules(obj, prune=method, prune_data=data, dnf=dnf, order=order)
    with progress.phase(f"writing {output} ({describe(rb)})"):
        text = dsl.dumps(rb)
        write_atomic(output, text)
    if not quiet:
        n_lit = sum(count_literals(r.condition) for r in rb.rules)
        print(f"wrote {output}: {len(rb.rules)} rules, {n_lit} conditions")
    return 0
