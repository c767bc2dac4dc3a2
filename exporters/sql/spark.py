"""Spark SQL: ``1.5e0`` is a DOUBLE (not decimal); backticks; no numeric TRUNC, so truncation is
``x - x % 1``. Generated Java methods are capped at 64 KB and the JIT skips methods over 8 KB: a
depth-8 nested CASE per tree exceeded both, so a 100-tree depth-8 forest took minutes to parse,
analyze and compile (its flat form ran Catalyst out of a 4 GB heap). Ensemble trees with numeric
splits are therefore walked over constant arrays (``walker.py``): planning stays a few seconds and
each tree is one small generated method, its walk a column one stage ahead of the sums. Single
trees and trees with nominal or oblique splits keep the CASE form; stages sum 10 trees. Measured
(100 trees, depth 8, 200k rows, local[2], 2-core machine): planning 1.5-3 s, scoring 7.1-7.3 s
(11-14 s on the first run), exact. Spark still collapses the staged projections into one, whose
whole-stage Java exceeds 64 KB: it logs "Code grows beyond 64 KB" at ERROR level with a stack trace
and runs the stage without whole-stage code generation (results stay exact; that path is the fast
one here). ``SET spark.sql.codegen.wholeStage=false`` in the scoring session avoids the noise and
was fastest: 5.9-6.0 s (``hugeMethodLimit=8000``, which halved an earlier layout's time, no longer
helps: 8.7-9.7 s). The bare expression binds each walk once (``transform`` over a struct) and
scored the same forest in 11.5 s, 5.8 s with whole-stage code generation off.

Big ensembles and rule bases:
- the analyzer spends a few of its 100 iterations on each nested stage, so stages hold more trees
  or rules (up to 500) when there would be more than 20;
- the optimizer merges the stages into one expression, and a 1,050-deep running sum overflowed the
  stack serializing the task (the session died); the parser recurses once per ``+`` (a 1,000-term
  sum is "too complex to parse"). So sums are folds, ``aggregate(array(terms), first, (a, x) ->
  a + x)``: the same additions in the same order, a flat list of terms. Binding running sums in
  nested lambdas (as MariaDB does) took 1.3 s for 10 levels, 126 s for 20 and over 20 minutes
  for 49 (4,900 rules);
- from ~600 trees on, whole-stage code generation ran out of a 1 GB driver heap. With it off, a
  1,000-tree forest planned and ran in 17-21 s (both forms), 4,900 rules in 5-24 s and 10,010
  rules in 10-13 s bare, 40-44 s as a SELECT (60 rows). A table form needing more than 25 stages
  (over ~10,000 trees or rules) is refused: untried here."""

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
