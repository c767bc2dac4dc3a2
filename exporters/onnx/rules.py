"""A RuleBase as an ONNX graph of standard operators, with the rule engine's exact semantics.

Rule bases that are no longer trees (pruned, DNF-merged, edited) cannot be a TreeEnsemble; they are
compiled column-wise, in three-valued (Kleene) logic, as :mod:`rulekit.rules.engine` evaluates them:

1. every distinct literal once: numeric and oblique tests as unions of closed float64 intervals
   (:mod:`rulekit.semantics.intervals`), nominal tests as a table lookup on the
   category code (rows: codes, unseen, missing); each gives a TRUE and a FALSE column (a literal on
   a missing value is neither; ``is missing`` is never unknown);
2. And/Or/Not level by level: Gather the children's columns, ReduceMin/ReduceMax (And: TRUE = all
   TRUE, FALSE = any FALSE; Or the dual; Not swaps TRUE and FALSE);
3. the semantics: ``first-hit`` = ArgMax over [fired..., default] (the first 1 wins), ``vote`` and
   ``weighted-sum`` = MatMul of the fired matrix with the rules' weighted conclusions, ensembles
   (``combiner``) = first hit per group, then the model's combiner.

The steps live in ``rules_plan.py`` (1), ``rules_columns.py`` (2) and ``rules_outputs.py`` (3).
All arithmetic is float64 inside; float mode takes float32 ``X`` and returns float32 scores.
A classification rule base without a default gives rows no rule decides the label
``rulekit.no_decision_label`` (metadata) and NaN probabilities.
"""

from __future__ import annotations

import json

import numpy as np
from onnx import TensorProto, helper

from rulekit.errors import ExportError, RulekitError
from rulekit.rules.base import RuleBase
from rulekit.rules.outcomes import Outcomes, build_outcomes

from .graph import GraphBuilder
from .metadata import common
from .rules_columns import literal_columns, node_columns
from .rules_outputs import outputs as semantics_outputs
from .rules_plan import FALSE_REF, TRUE_REF, NomLit, NumLit, Plan, Ref, RuleColumns, numeric_intervals
from .size import check_size

RULES_ENCODING = ("X[:, j] holds feature j of rulekit.features. Numeric features: the value (NaN = missing). "
                  "Nominal features: the category code, the 0-based index of the value in the feature's "
                  "domain; -1 = a value outside the domain; NaN = missing; any other number matches no "
                  "category test (as rulekit's rule engine reads codes).")
DOUBLE = TensorProto.DOUBLE


# --- conclusions (as rulekit.rules.engine reads them) --------------------------------------------------


def outcomes(rb: RuleBase) -> Outcomes:
    """What each rule concludes, decided once in :mod:`rulekit.rules.outcomes` (the rule engine's),
    with its refusals raised as ExportError."""
    try:
        return build_outcomes(rb)
    except ExportError:
        raise
    except RulekitError as err:
        raise ExportError(str(err)) from None


# --- graph --------------------------------------------------------------------------------------------


def build_rules(rb: RuleBase, *, dtype, opset: int, max_bytes: int):
    out = outcomes(rb)
    schema = RuleColumns(rb)
    plan = Plan(schema)
    fires: list[Ref] = []
    for i, r in enumerate(rb.rules):
        schema.where = f"rule {r.id or '#' + str(i + 1)}: "
        fires.append(plan.condition(r.condition))
    check_size(_estimate(rb, plan, out), max_bytes)
    gb = GraphBuilder(opset=21 if opset == 5 else 17, ml_opset=opset)
    F = len(rb.features)
    elem = TensorProto.FLOAT if dtype == np.float32 else DOUBLE
    xd = "X" if dtype == np.float64 else gb.op("Cast", ["X"], to=DOUBLE, hint="x64")
    shape = gb.op("Concat", [gb.op("Slice", [gb.op("Shape", [xd]), gb.const(np.array([0], np.int64)),
                                             gb.const(np.array([1], np.int64))]),
                             gb.const(np.array([1], np.int64))], axis=0, hint="n_by_1")
    ones = gb.op("Expand", [gb.const(np.ones((1, 1), np.uint8), "one_u8"), shape], hint="true_col")
    zeros = gb.op("Expand", [gb.const(np.zeros((1, 1), np.uint8), "zero_u8"), shape], hint="false_col")
    T, Fm, width, column = literal_columns(gb, rb, plan, xd, F, ones, zeros)
    T, Fm, width = node_columns(gb, plan, T, Fm, width, column)

    def resolve(ref: Ref) -> int:
        col, neg = ref
        c = column[col] if isinstance(col, tuple) else col
        return c + width if neg else c

    tf = gb.op("Concat", [T, Fm], axis=1, hint="truth")
    if fires:
        fired = gb.op("Gather", [tf, gb.const(np.array([resolve(r) for r in fires], np.int64), "fire_cols")],
                      axis=1, hint="fired")
        fired_x = gb.op("Concat", [fired, ones], axis=1, hint="fired_default")
    else:
        fired, fired_x = None, ones
    outputs, meta = semantics_outputs(gb, rb, out, fired, fired_x, dtype, elem)
    doc = (f"rulekit rule base {rb.name!r} ({rb.semantics}, {len(rb.rules)} rules) compiled to standard "
           f"ONNX operators ({np.dtype(dtype).name} input).")
    metadata = common(rb, dtype=dtype, opset="ai.onnx " + str(gb.opset), kind="rules")
    metadata["rulekit.semantics"] = rb.semantics
    metadata["rulekit.input_encoding"] = RULES_ENCODING
    if rb.combiner is not None:
        metadata["rulekit.combiner"] = rb.combiner.model_dump_json()
    metadata.update(meta)
    if rb.task == "classification":
        metadata["rulekit.classes"] = json.dumps([c.item() if isinstance(c, np.generic) else c
                                                  for c in out.classes], ensure_ascii=False)
    inputs = [helper.make_tensor_value_info("X", elem, ["N", F])]
    return gb.model(inputs, outputs, name="rulekit_rules", doc=doc, metadata=metadata)


def _estimate(rb: RuleBase, plan: Plan, out: Outcomes) -> int:
    cells = out.vec.size * 8 + len(rb.rules) * 64 + len(plan.literals) * 64 + len(plan.nodes) * 96
    for lit in plan.literals:
        if isinstance(lit, NomLit):
            cells += 2 * (len(rb.features[lit.feature].domain or ()) + 2)
    return cells + 4096


__all__ = ["FALSE_REF", "NomLit", "NumLit", "Plan", "RULES_ENCODING", "Ref", "RuleColumns", "TRUE_REF", "build_rules",
           "numeric_intervals", "outcomes"]
