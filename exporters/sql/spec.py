"""What a SQL export computes: a source reduced to units (trees, rule lists, single rules) plus how
their outputs combine, read from :mod:`rulekit.semantics.combiners` (what each tree adds to which
sum) or, for rule bases without a combiner, from their vote or weighted-sum semantics."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rulekit.errors import ExportError
from rulekit.exporters.sql import float32 as f32
from rulekit.exporters.sql.dialect import Dialect
from rulekit.exporters.sql.trees import Columns
from rulekit.exporters.sql.units import MatchUnit, RuleListUnit, tree_unit
from rulekit.ir.model import Model
from rulekit.semantics import combiners

# (accumulator, value per payload) pairs a unit adds, given its index and the unit
Terms = Callable[[int, object], list[tuple[int, list[float]]]]


@dataclass
class Spec:
    """A source reduced to units plus how their outputs combine (mirrors Model / the rule engine)."""

    task: str
    classes: list | None
    features: list
    units: list
    kind: str  # single | average | vote | sum | rule-vote | rule-sum
    combiner: object = None
    weights: list[float] = field(default_factory=list)
    default: tuple | None = None  # rule-vote / rule-sum: default vector (None: no default)
    default_cls: int = -1
    f32: bool = False  # XGBoost's float32 sums and link (the dialect has a 4-byte float)
    reduction: combiners.Reduction | None = None  # the combiner's (ensembles and grouped rule bases)


def model_spec(model: Model, d: Dialect) -> Spec:
    cols = Columns(model.features, d)
    units = [tree_unit(t, cols, model.leaf_value_size, d.case_depth) for t in model.trees]
    c = model.combiner
    kind = "single" if c.kind == "single" or len(units) == 1 and c.kind == "average" else c.kind
    return Spec(model.task, model.classes, model.features, units, kind, c,
                f32=c.arithmetic == "float32" and f32.supported(d),
                reduction=_reduction(c, len(units), model.task, model.leaf_value_size, d))


def rules_spec(rb, d: Dialect) -> Spec:
    from rulekit.rules import engine  # noqa: PLC0415
    from rulekit.rules.outcomes import build_outcomes  # noqa: PLC0415
    from rulekit.exporters.sql.rules import RuleConditions  # noqa: PLC0415

    engine.validate(rb)
    out = build_outcomes(rb)
    features = list(rb.features)
    cols = Columns(features, d)
    conds = RuleConditions(rb, cols)
    texts = [conds.condition(r.condition) for r in rb.rules]
    R = len(rb.rules)
    vec = [tuple(float(v) for v in row) for row in out.vec]
    cls = [int(c) for c in out.cls]
    classes = list(out.classes) if rb.task == "classification" else None
    if rb.combiner is not None:
        units = [RuleListUnit([texts[i] for i in idx], [vec[i] for i in idx] + [vec[R]],
                              [cls[i] for i in idx] + [cls[R]]) for _, idx in engine.groups(rb)]
        c = rb.combiner
        if c.tree_output is not None and len(c.tree_output) != len(units):
            raise ExportError(f"the combiner names {len(c.tree_output)} trees but the rules form "
                              f"{len(units)} groups")
        return Spec(rb.task, classes, features, units, c.kind, c,
                    f32=c.arithmetic == "float32" and f32.supported(d),
                    reduction=_reduction(c, len(units), rb.task, len(classes) if classes else 1, d))
    if rb.semantics == "first-hit":
        unit = RuleListUnit(texts, vec, cls)
        return Spec(rb.task, classes, features, [unit], "single")
    zero = tuple(0.0 for _ in vec[R])
    units = [MatchUnit(texts[i], [vec[i], zero], [cls[i], -1]) for i in range(R)]
    kind = "rule-vote" if rb.semantics == "vote" else "rule-sum"
    return Spec(rb.task, classes, features, units, kind, None, [float(w) for w in out.weight[:R]],
                default=vec[R] if out.has_default else None, default_cls=cls[R])


def _reduction(c, n_trees: int, task: str, value_size: int, d: Dialect) -> combiners.Reduction:
    """The combiner's reduction; in float64 where the dialect has no 4-byte float (the query's
    header says so, :func:`rulekit.exporters.sql.float32.header`)."""
    if c.arithmetic == "float32" and not f32.supported(d):
        c = c.model_copy(update={"arithmetic": None})
    return combiners.reduction(c, n_trees, task=task, value_size=value_size)


def tree_terms(spec: Spec) -> Terms:
    """What each tree (unit) adds to each accumulator (:func:`rulekit.semantics.combiners.leaf_terms`);
    the accumulators are the reduction's outputs (sum) or the summed classes, in order."""
    red = spec.reduction
    if red.kind == "sum":
        return lambda i, u: combiners.leaf_terms(red, i, u.vec)
    slot = {k: q for q, k in enumerate(red.summed)}
    return lambda i, u: [(slot[k], vals) for k, vals in combiners.leaf_terms(red, i, u.vec)]


def vote_plan(spec, d: Dialect, K: int) -> tuple[int, list[str | None], Terms]:
    """Accumulators of a voting rule base: per class the weights of matching rules (regression:
    weighted values and weights), plus a count of matches when some weight is not positive."""
    w = spec.weights
    need_count = any(not x > 0 for x in w)
    if spec.task == "regression":
        def terms(i, u):
            out = [(0, [w[i] * u.vec[0][0], 0.0]), (1, [w[i], 0.0])]
            return out + ([(2, [1.0, 0.0])] if need_count else [])

        width = 3 if need_count else 2
        return width, [None] * width, terms

    def terms(i, u):
        return [(u.cls[0], [w[i], 0.0])] + ([(K, [1.0, 0.0])] if need_count else [])

    width = K + (1 if need_count else 0)
    return width, [d.number(0.0)] * width, terms


def sum_plan(spec, d: Dialect, K: int) -> tuple[int, list[str | None], Terms]:
    """Accumulators of a weighted-sum rule base: per output the default plus weighted conclusions."""
    w = spec.weights
    width = len(spec.default) if spec.default is not None else max(1, K)
    base = spec.default if spec.default is not None else (0.0,) * width

    def terms(i, u):
        return [(k, [w[i] * u.vec[0][k], 0.0]) for k in range(width) if w[i] * u.vec[0][k] != 0.0]

    return width, [d.number(x) for x in base], terms


__all__ = ["Spec", "Terms", "model_spec", "rules_spec", "sum_plan", "tree_terms", "vote_plan"]
