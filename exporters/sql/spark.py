"""Spark SQL: ``1.5e0`` is a DOUBLE (not decimal); backticks; no numeric TRUNC, so truncation is
``x - x % 1``. Generated Java methods are capped at 64 KB and the JIT skips methods over 8 KB, which
a nested CASE per tree of a big forest exceeds: ensemble trees with numeric splits are therefore
walked over constant arrays (``walker.py``), each tree one small generated method, its walk a
column one stage ahead of the sums. Single trees and trees with nominal or oblique splits keep the
CASE form; stages sum 10 trees. Staged projections still collapse into one whose whole-stage Java
exceeds 64 KB: Spark logs "Code grows beyond 64 KB" and runs it without whole-stage code generation
(results stay exact); ``SET spark.sql.codegen.wholeStage=false`` avoids the noise and was fastest.

Big ensembles and rule bases: stages hold more trees or rules (up to 500) when there would be more
than 20 (the analyzer's iterations); sums are folds, ``aggregate(array(terms), first, (a, x) ->
a + x)``: the same additions in the same order, a flat list of terms (a deep running sum
overflowed the stack, and the parser recurses once per ``+``). A table form needing more than 25
stages (over ~10,000 trees or rules) is refused: untried here. Measurements: docs/engines.md
("Spark SQL")."""

from rulekit.exporters.sql import walker
from rulekit.exporters.sql.dialect import Dialect


def _bind(d: Dialect, alias: str, values: list[tuple[str, str]], body: str) -> str:
    """A one-element array of structs mapped by a lambda: the struct's fields are the names."""
    obj = ", ".join(f"{d.string(f)}, {v}" for f, v in values)
    return f"element_at(transform(array(named_struct({obj})), {alias} -> {body}), 1)"

DIALECT = Dialect(
    name="spark", sqlglot="spark", case_depth=30, trunc="({0} - {0} % 1e0)", batch=10, max_stages=20,
    max_batch=500, max_ctes=25,
    pick="element_at(array({values}), {index})", correlated_from=False, walker=walker.SPARK,
    bind=_bind, sum_fold="aggregate(array({terms}), {first}, ({acc}, {x}) -> {acc} + {x})",
)
