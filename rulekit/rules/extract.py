"""Path extraction: one rule per leaf, its condition the tests along the root-to-leaf path.

Numeric tests keep the tree's own threshold, operator and precision (``x <= t`` / ``x > t``, or
``x < t`` / ``x >= t`` for XGBoost), so the rule base compares exactly like the tree. The branch a
split sends missing values to gets ``(test or x is missing)``. Nominal splits become ``=``/``in``
tests -- ``not in`` for the branch that takes every other value, unseen values included -- exactly
as the compiled tree routes codes. Oblique splits become :class:`~rulekit.rules.base.Linear` tests;
their missing side also takes a NaN sum (``inf - inf``), spelled with infinite partial sums
(:func:`rulekit.semantics.routing.nan_sum_tests`):
``0.3*a + 1.2*b <= 4 or a is missing or b is missing or (0.3*a >= inf and 1.2*b <= -inf) or
(0.3*a <= -inf and 1.2*b >= inf)``.

Ensembles give one group per tree (``Rule.group``) and keep the model's combiner, so the rule base
predicts what the model predicts, probabilities included. The walk uses an explicit stack; with
``simplify=True`` each path is kept as a box (one constraint per feature), so a tree 20,000 levels
deep still gives short rules in linear time.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from rulekit import semantics
from rulekit.errors import RulekitError
from rulekit.ir.model import Model
from rulekit.ir.tree import children_by_branch, root_of
from rulekit.rules.base import And, Compare, Conclusion, InSet, IsMissing, Linear, Or, Rule, RuleBase
from rulekit.rules.boxes import (Box, LiteralSchema, NomSet, box_condition, complement, no_gc, prime_canonical,
                                 remember_boxes)
from rulekit.rules.box_conditions import nan_sum
from rulekit.semantics import routing

_NEG = {"<=": ">", "<": ">="}
MAX_RAW_LITERALS = 5_000_000


def model_precision(model: Model) -> str:
    """The one precision of every numeric split, or float64 when they mix (thresholds then converted)."""
    seen = {a.get("precision", "float64") for t in model.trees for _, a in t.nodes(data=True)
            if a["kind"] == "numeric"}
    return seen.pop() if len(seen) == 1 else "float64"


def extract(model: Model, *, simplify: bool = False, name: str | None = None) -> RuleBase:
    """The path rules of ``model`` (first-hit within each tree), predicting exactly what it predicts."""
    with no_gc():
        return _extract(model, simplify, name)


def _extract(model: Model, simplify: bool, name: str | None) -> RuleBase:
    if not isinstance(model, Model):
        raise RulekitError(f"cannot extract rules from {type(model).__name__}; expected a rulekit Model")
    precision = model_precision(model)
    ensemble = len(model.trees) > 1 or model.combiner.kind != "single"
    shell = RuleBase(name=name or "rules", task=model.task, target=model.target or "target",
                     classes=tuple(model.classes) if model.classes is not None else None,
                     features=tuple(model.features), precision=precision)
    schema = LiteralSchema(shell)
    for prec in ("float32", "float64"):
        prime_canonical([float(a["threshold"]) for t in model.trees for _, a in t.nodes(data=True)
                         if a["kind"] == "numeric" and a.get("precision", "float64") == prec == precision], prec)
    rules: list[Rule] = []
    if not simplify:
        total = sum(_path_lengths(tree) for tree in model.trees)
        if total > MAX_RAW_LITERALS:
            raise RulekitError(f"the unsimplified path rules would hold {total:,} tests (more than "
                               f"{MAX_RAW_LITERALS:,}); extract them simplified")
    for t, tree in enumerate(model.trees):
        rules.extend(_tree_rules(model, tree, t if ensemble else 0, ensemble, precision, schema, simplify))
    default = None if ensemble else _default(model, model.trees[0])
    return shell.model_copy(update={
        "rules": tuple(rules), "default": default,
        "combiner": model.combiner if ensemble else None,
    })


def _path_lengths(tree: nx.DiGraph) -> int:
    """Sum over leaves of their depth (the size of the unsimplified rules)."""
    total = 0
    stack = [(root_of(tree), 0)]
    while stack:
        node, d = stack.pop()
        kids = tree.succ[node]
        if not kids:
            total += d
        stack.extend((c, d + 1) for c in kids)
    return total


def _branch_literals(model: Model, tree: nx.DiGraph, node: int, precision: str) -> list[Any]:
    """The literal (or ``Or(literal, is missing)``) each branch of ``node`` adds, in branch order."""
    a = tree.nodes[node]
    kids = children_by_branch(tree, node)
    miss = routing.missing_branch(a)
    kind = a["kind"]
    if kind == "numeric":
        name = model.features[a["feature"]].name
        op, t = a["op"], float(a["threshold"])
        if a.get("precision", "float64") != precision:  # mixed precisions: the exact float64 boundary
            op, t = "<=", semantics.boundary(op, t, a["precision"])
        lits = [Compare.model_construct(feature=name, op=op, value=t),
                Compare.model_construct(feature=name, op=_NEG[op], value=t)]
        missing = [IsMissing.model_construct(feature=name)]
    elif kind == "linear":
        terms = tuple((float(w), model.features[f].name) for f, w in zip(a["features"], a["weights"]))
        op, t = a["op"], float(a["threshold"])
        lits = [Linear(terms=terms, op=op, value=t), Linear(terms=terms, op=_NEG[op], value=t)]
        missing = [IsMissing(feature=n) for n in dict.fromkeys(n for _, n in terms)] + list(nan_sum(terms))
    elif kind == "nominal":
        feat = model.features[a["feature"]]
        lits = _nominal_literals(tree, node, feat, kids, miss)
        missing = [IsMissing(feature=feat.name)]
    else:
        raise RulekitError(f"node {node}: unknown split kind {kind!r}")
    out = []
    for b, lit in enumerate(lits):
        if routing.takes_missing(a, b):
            if lit is None:
                out.append(missing[0] if len(missing) == 1 else Or.model_construct(items=tuple(missing)))
            else:
                out.append(Or.model_construct(items=(lit, *missing)))
        else:
            out.append(lit if lit is not None else Or(items=()))
    return out


def _nominal_literals(tree: nx.DiGraph, node: int, feat, kids: list[int], miss: int) -> list[Any]:
    """Per branch, the test on non-missing values that routes a row there (None: no value does);
    the codes per branch come from :mod:`rulekit.semantics.routing`."""
    size = len(feat.domain or ())
    table = routing.nominal_table(tree.succ[node].values(), miss, size)
    out: list[Any] = []
    for codes in routing.codes_by_branch(table, len(kids)):
        if not codes:
            out.append(None)
            continue
        out.append(_nominal_condition(feat, NomSet(codes, size)))
    return out


def _nominal_condition(feat, s: NomSet) -> Any:
    dom = feat.domain or ()
    if s.is_universe:
        return IsMissing(feature=feat.name, negated=True)
    if -1 in s.codes:
        rest = sorted(complement(s).codes - {-1})
        if len(rest) == 1:
            return Compare(feature=feat.name, op="!=", value=dom[rest[0]])
        return InSet(feature=feat.name, values=tuple(dom[i] for i in rest), negated=True)
    vals = sorted(s.codes)
    if len(vals) == 1:
        return Compare(feature=feat.name, op="=", value=dom[vals[0]])
    return InSet(feature=feat.name, values=tuple(dom[i] for i in vals))


def _conclusion(model: Model, value: tuple, ensemble: bool) -> Conclusion:
    if model.task == "regression" or model.combiner.kind == "sum":
        return Conclusion(value=float(value[0]))
    dist = tuple(float(v) for v in value)
    return Conclusion(label=model.classes[int(np.argmax(dist))], distribution=dist)


def _tree_rules(model: Model, tree: nx.DiGraph, group: int, ensemble: bool, precision: str, schema: LiteralSchema,
                simplify: bool) -> list[Rule]:
    rules: list[Rule] = []
    root = root_of(tree)
    prefix = f"t{group}_r" if ensemble else "r"
    # raw paths: linked list (literal, parent) per node; simplified paths: a Box per node
    stack: list[tuple[int, Any, int]] = [(root, None if not simplify else Box(), 0)]
    while stack:
        node, path, depth = stack.pop()
        a = tree.nodes[node]
        if a["kind"] == "leaf":
            if simplify:
                cond = box_condition(path, schema)
                remember_boxes(cond, schema, [path], rendered=True)
            else:
                lits = []
                p = path
                while p is not None:
                    lits.append(p[0])
                    p = p[1]
                lits.reverse()
                cond = lits[0] if len(lits) == 1 else And(items=tuple(lits))
            stats = {"train_n": float(a["n_samples"])} if "n_samples" in a else {}
            rules.append(Rule(id=f"{prefix}{len(rules) + 1}", condition=cond,
                              conclusion=_conclusion(model, a["value"], ensemble), group=group, stats=stats))
            continue
        kids = children_by_branch(tree, node)
        lits = _branch_literals(model, tree, node, precision)
        for child, lit in reversed(list(zip(kids, lits))):
            if simplify:
                sets = _literal_sets(lit, schema)
                box = path
                for key, c in sets or ():
                    box = box.restrict(key, c)
                    if box is None:
                        break
                if box is None or sets is None:
                    continue  # no row can reach this child
                stack.append((child, box, depth + 1))
            else:
                stack.append((child, (lit, path), depth + 1))
    # pre-order leaf order with branch 0 first: the stack above pops children in branch order
    return rules


def _literal_sets(lit: Any, schema: LiteralSchema) -> list[tuple[Any, Any]] | None:
    """The single-key constraint a branch literal imposes (None: no row takes the branch)."""
    if isinstance(lit, Or):
        # the branch's own test: anything but the added ``is missing`` (a branch taking every code
        # has ``is not missing`` there, itself an IsMissing)
        core = [i for i in lit.items if not (isinstance(i, IsMissing) and not i.negated)]
        if not lit.items:
            return None
        if not core:
            return [schema.literal_set(lit.items[0])]
        key, c = schema.literal_set(core[0])
        return [(key, c.with_missing(True))]
    return [schema.literal_set(lit)]


def _default(model: Model, tree: nx.DiGraph) -> Conclusion | None:
    """The training majority (classification) or mean (regression) at the root, when known."""
    root = tree.nodes[root_of(tree)]
    value = root.get("value")
    if value is None:
        weights, values = [], []
        for _, a in tree.nodes(data=True):
            if a["kind"] == "leaf":
                weights.append(float(a.get("n_samples", 1.0)))
                values.append(np.asarray(a["value"], float))
        w = np.asarray(weights)
        if w.sum() <= 0:
            return None
        value = tuple((np.asarray(values) * w[:, None]).sum(axis=0) / w.sum())
    value = tuple(float(v) for v in value)
    if model.task == "regression":
        return Conclusion(value=value[0])
    if len(value) != len(model.classes or ()):
        return None
    dist = _over_rows(value, root.get("n_samples"))
    if dist is None:
        total = sum(value)
        dist = tuple(v / total for v in value) if total > 0 else value
    return Conclusion(label=model.classes[int(np.argmax(dist))], distribution=dist)


def _over_rows(value: tuple, n) -> tuple | None:
    """The root's class shares as they are when each is exactly a whole count of its ``n`` rows
    (``k / n``, as trees learned on rows store them), or as those counts over their sum; None when
    they are not. Dividing by their float sum instead (``1.0000000000000002``) turns ``367/1500``
    into ``0.2446666666666667``, which no count over the rows reproduces."""
    if n is None or not (0 < n < 2**53) or float(n) != int(n):
        return None
    k = [round(v * n) for v in value]
    if any(c < 0 for c in k) or any(c / n != v for c, v in zip(k, value)) or sum(k) <= 0:
        return None
    total = sum(k)
    return tuple(c / total for c in k)
