"""A RuleBase as an ONNX graph of standard operators, with the rule engine's exact semantics.

Rule bases that are no longer trees (pruned, DNF-merged, edited) cannot be a TreeEnsemble; they are
compiled column-wise, in three-valued (Kleene) logic, as :mod:`rulekit.rules.engine` evaluates them:

1. every distinct literal once: numeric and oblique tests as unions of closed float64 intervals
   (bounds from :func:`rulekit.semantics.canonical`), nominal tests as a table lookup on the
   category code (rows: codes, unseen, missing); each gives a TRUE and a FALSE column (a literal on
   a missing value is neither; ``is missing`` is never unknown);
2. And/Or/Not level by level: Gather the children's columns, ReduceMin/ReduceMax (And: TRUE = all
   TRUE, FALSE = any FALSE; Or the dual; Not swaps TRUE and FALSE);
3. the semantics: ``first-hit`` = ArgMax over [fired..., default] (the first 1 wins), ``vote`` and
   ``weighted-sum`` = MatMul of the fired matrix with the rules' weighted conclusions, ensembles
   (``combiner``) = first hit per group, then the model's combiner.

All arithmetic is float64 inside; float mode takes float32 ``X`` and returns float32 scores.
A classification rule base without a default gives rows no rule decides the label
``rulekit.no_decision_label`` (metadata) and NaN probabilities.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from onnx import TensorProto, helper

from rulekit import semantics
from rulekit.errors import ExportError, RulekitError
from rulekit.rules.base import And, Compare, InSet, IsMissing, Linear, Not, Or, RuleBase
from rulekit.rules.outcomes import Outcomes, build_outcomes, index_of

from .float32 import link32, sum32
from .graph import GraphBuilder
from .labels import label_array
from .metadata import common
from .size import check_size

INF = math.inf
RULES_ENCODING = ("X[:, j] holds feature j of rulekit.features. Numeric features: the value (NaN = missing). "
                  "Nominal features: the category code, the 0-based index of the value in the feature's "
                  "domain; -1 = a value outside the domain; NaN = missing; any other number matches no "
                  "category test (as rulekit's rule engine reads codes).")
U8 = TensorProto.UINT8
DOUBLE = TensorProto.DOUBLE
I64 = TensorProto.INT64


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


# --- literals ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NumLit:
    column: Any  # feature index or ("linear", terms)
    intervals: tuple[tuple[float, float], ...]  # closed float64 intervals (TRUE set)
    negate: bool = False  # TRUE = a number outside the intervals
    missing: int = 0  # 1: `is missing`, -1: `is not missing` (never unknown)


@dataclass(frozen=True)
class NomLit:
    feature: int
    codes: frozenset  # codes in the TRUE set (-1 = a value outside the domain)
    missing: int = 0  # 1: `is missing`, -1: `is not missing`


def _next(x: float) -> float:
    return float(np.nextafter(x, INF))


def _numeric_intervals(op: str, value: float, precision: str) -> tuple[tuple[tuple[float, float], ...], bool]:
    """(intervals, negate) of ``cast(x) op value``, as rulekit.rules.boxes builds them."""
    if math.isnan(value):
        raise ExportError("comparison with NaN (use 'is missing')")
    if op in ("=", "!="):
        _, b_ge = semantics.canonical(">=", value, precision)
        lo = INF if b_ge == INF else _next(b_ge)
        _, hi = semantics.canonical("<=", value, precision)
        return (((lo, hi),) if lo <= hi else ()), op == "!="
    kind, b = semantics.canonical(op, value, precision)
    if kind == "<=":
        return ((-INF, b),), False
    lo = INF if b == INF else _next(b)
    return (((lo, INF),) if lo < INF or op == ">=" else ()), False


class Schema:
    """Feature names -> columns, labels -> codes (ExportError naming the rule on unknown names)."""

    def __init__(self, rb: RuleBase):
        self.rb = rb
        self.index = {f.name: i for i, f in enumerate(rb.features)}
        self.where = ""

    def key(self, name: str) -> int:
        if name not in self.index:
            raise ExportError(f"{self.where}unknown feature {name!r}")
        return self.index[name]

    def nominal(self, j: int) -> bool:
        return self.rb.features[j].kind == "nominal"

    def size(self, j: int) -> int:
        return len(self.rb.features[j].domain or ())

    def code(self, j: int, value: Any) -> int:
        i = index_of(self.rb.features[j].domain or (), value)
        if i is not None:
            return i
        raise ExportError(f"{self.where}{value!r} is not a value of nominal feature "
                          f"{self.rb.features[j].name!r}")

    def literal(self, lit: Any) -> NumLit | NomLit:
        if isinstance(lit, IsMissing):
            j = self.key(lit.feature)
            m = -1 if lit.negated else 1
            return NomLit(j, frozenset(), m) if self.nominal(j) else NumLit(j, (), False, m)
        if isinstance(lit, InSet):
            j = self.key(lit.feature)
            if not self.nominal(j):
                raise ExportError(f"{self.where}set test on numeric feature {lit.feature!r}")
            codes = frozenset(self.code(j, v) for v in lit.values)
            if lit.negated:
                codes = frozenset(range(-1, self.size(j))) - codes
            return NomLit(j, codes)
        if isinstance(lit, Linear):
            if not lit.terms:
                raise ExportError(f"{self.where}linear test without terms")
            for _, name in lit.terms:
                if self.nominal(self.key(name)):
                    raise ExportError(f"{self.where}linear test on nominal feature {name!r}")
            col = ("linear", tuple((float(c), self.key(n)) for c, n in lit.terms))
            ivs, neg = _numeric_intervals(lit.op, float(lit.value), "float64")
            return NumLit(col, ivs, neg)
        if isinstance(lit, Compare):
            j = self.key(lit.feature)
            if self.nominal(j):
                if lit.op not in ("=", "!="):
                    raise ExportError(f"{self.where}operator {lit.op!r} on nominal feature {lit.feature!r}")
                codes = frozenset((self.code(j, lit.value),))
                if lit.op == "!=":
                    codes = frozenset(range(-1, self.size(j))) - codes
                return NomLit(j, codes)
            if isinstance(lit.value, (str, bool)):
                raise ExportError(f"{self.where}numeric feature {lit.feature!r} compared with {lit.value!r}")
            ivs, neg = _numeric_intervals(lit.op, float(lit.value), self.rb.precision)
            return NumLit(j, ivs, neg)
        raise ExportError(f"{self.where}not a literal: {type(lit).__name__}")


# --- condition structure (explicit stacks) ------------------------------------------------------------


Ref = tuple[int, bool]  # (column, negated)
TRUE_REF: Ref = (0, False)
FALSE_REF: Ref = (1, False)


@dataclass
class Plan:
    """Literals, then And/Or nodes by level; every condition becomes a reference to one column."""

    schema: Schema
    literals: list = field(default_factory=list)
    lit_index: dict = field(default_factory=dict)
    nodes: list = field(default_factory=list)  # (level, "and"|"or", children refs)
    node_index: dict = field(default_factory=dict)
    level: dict = field(default_factory=dict)  # ref column -> level

    def literal_ref(self, lit: Any) -> Ref:
        key = self.schema.literal(lit)
        i = self.lit_index.get(key)
        if i is None:
            i = self.lit_index[key] = len(self.literals)
            self.literals.append(key)
        return ("lit", i), False  # resolved to a column later

    def node_ref(self, op: str, refs: list[Ref]) -> Ref:
        neutral = TRUE_REF if op == "and" else FALSE_REF
        absorbing = FALSE_REF if op == "and" else TRUE_REF
        kids = []
        for r in refs:
            if r == neutral:
                continue
            if r == absorbing:
                return absorbing
            kids.append(r)
        if not kids:
            return neutral
        if len(kids) == 1:
            return kids[0]
        key = (op, tuple(kids))
        i = self.node_index.get(key)
        if i is None:
            lvl = 1 + max(self._level(r) for r in kids)
            i = self.node_index[key] = len(self.nodes)
            self.nodes.append((lvl, op, tuple(kids)))
        return ("node", i), False

    def _level(self, ref: Ref) -> int:
        col = ref[0]
        if isinstance(col, tuple) and col[0] == "node":
            return self.nodes[col[1]][0]
        return 0

    def condition(self, cond: Any) -> Ref:
        stack: list[tuple[Any, bool]] = [(cond, False)]
        results: list[Ref] = []
        while stack:
            node, expanded = stack.pop()
            kids = node.items if isinstance(node, (And, Or)) else (node.item,) if isinstance(node, Not) else ()
            if isinstance(node, (And, Or)) and not kids:
                results.append(TRUE_REF if isinstance(node, And) else FALSE_REF)
                continue
            if not kids:
                results.append(self.literal_ref(node))
                continue
            if not expanded:
                stack.append((node, True))
                stack.extend((k, False) for k in reversed(kids))
                continue
            args = results[len(results) - len(kids):]
            del results[len(results) - len(kids):]
            if isinstance(node, Not):
                col, neg = args[0]
                results.append((col, not neg))
            else:
                results.append(self.node_ref("and" if isinstance(node, And) else "or", args))
        return results[0]


# --- graph --------------------------------------------------------------------------------------------


def build_rules(rb: RuleBase, *, dtype, opset: int, max_bytes: int):
    out = outcomes(rb)
    schema = Schema(rb)
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
    T, Fm, width, column = _literal_columns(gb, rb, plan, xd, F, ones, zeros)
    T, Fm, width = _node_columns(gb, plan, T, Fm, width, column)

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
    outputs, meta = _semantics(gb, rb, out, fired, fired_x, dtype, elem)
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


def _linear_sums(gb: GraphBuilder, xd: str, keys: list) -> str:
    """Oblique sums, left to right in float64 (element-wise: bit-identical to the engine)."""
    depth = max(len(k[1]) for k in keys)
    total = None
    for step in range(depth):
        valid = np.array([step < len(k[1]) for k in keys])
        cols = np.array([k[1][step][1] if step < len(k[1]) else 0 for k in keys], np.int64)
        w = np.array([k[1][step][0] if step < len(k[1]) else 0.0 for k in keys])
        term = gb.op("Mul", [gb.op("Gather", [xd, gb.const(cols, "terms")], axis=1), gb.const(w, "w")])
        if not valid.all():
            term = gb.op("Where", [gb.const(valid, "valid"), term, gb.const(np.asarray(0.0))])
        total = term if total is None else gb.op("Add", [total, term])
    return total


def _literal_columns(gb: GraphBuilder, rb: RuleBase, plan: Plan, xd: str, F: int, ones: str, zeros: str):
    """TRUE and FALSE uint8 matrices [N, 2 + literals]: columns 0/1 are the constants TRUE/FALSE."""
    num = [(i, lit) for i, lit in enumerate(plan.literals) if isinstance(lit, NumLit)]
    nom = [(i, lit) for i, lit in enumerate(plan.literals) if isinstance(lit, NomLit)]
    t_parts, f_parts = [ones, zeros], [zeros, ones]
    column: dict = {}
    width = 2
    if num:
        linear_keys = sorted({lit.column for _, lit in num if isinstance(lit.column, tuple)}, key=repr)
        xs = xd
        lin_col = {k: F + j for j, k in enumerate(linear_keys)}
        if linear_keys:
            xs = gb.op("Concat", [xd, _linear_sums(gb, xd, linear_keys)], axis=1, hint="x_linear")

        def col_of(lit):
            return lin_col[lit.column] if isinstance(lit.column, tuple) else lit.column

        cols = np.array([col_of(lit) for _, lit in num], np.int64)
        x = gb.op("Gather", [xs, gb.const(cols, "lit_cols")], axis=1, hint="lit_x")
        nan = gb.op("IsNaN", [x])
        ivs = [(k, lo, hi) for k, (_, lit) in enumerate(num) for lo, hi in lit.intervals]
        if ivs:
            iv_x = gb.op("Gather", [x, gb.const(np.array([k for k, _, _ in ivs], np.int64), "iv_lit")], axis=1)
            inside = gb.op("And", [gb.op("GreaterOrEqual", [iv_x, gb.const(np.array([lo for _, lo, _ in ivs]), "lo")]),
                                   gb.op("LessOrEqual", [iv_x, gb.const(np.array([hi for _, _, hi in ivs]), "hi")])])
            inside = gb.op("Cast", [inside], to=U8)
            counts = [len(lit.intervals) for _, lit in num]
            if all(c == 1 for c in counts):
                member = inside
            else:  # a literal is TRUE on any of its intervals: max over a padded gather
                m = max(counts)
                pad = len(ivs)  # index of an appended FALSE column
                idx = np.full((len(num), m), pad, np.int64)
                pos = 0
                for k, c in enumerate(counts):
                    idx[k, :c] = np.arange(pos, pos + c)
                    pos += c
                padded = gb.op("Concat", [inside, zeros], axis=1)
                member = gb.reduce("ReduceMax", gb.op("Gather", [padded, gb.const(idx, "iv_idx")], axis=1), 2,
                                   keepdims=0)
            member = gb.op("Cast", [member], to=TensorProto.BOOL)
        else:
            member = gb.op("Less", [x, gb.const(np.asarray(-INF))])  # all False
        not_nan = gb.op("Not", [nan])
        negate = np.array([lit.negate for _, lit in num])
        t = member
        if negate.any():
            t = _select(gb, negate, gb.op("And", [gb.op("Not", [member]), not_nan]), t)
        miss = np.array([lit.missing for _, lit in num])
        f = gb.op("And", [gb.op("Not", [t]), not_nan])
        if miss.any():
            t = _select(gb, miss != 0, _select(gb, miss > 0, nan, not_nan), t)
            f = _select(gb, miss != 0, gb.op("Not", [t]), f)
        t_parts.append(gb.op("Cast", [t], to=U8))
        f_parts.append(gb.op("Cast", [f], to=U8))
        for k, (i, _) in enumerate(num):
            column[("lit", i)] = width + k
        width += len(num)
    by_feature: dict[int, list] = {}
    for i, lit in nom:
        by_feature.setdefault(lit.feature, []).append((i, lit))
    for j, lits in by_feature.items():
        size = len(rb.features[j].domain or ())
        c = gb.op("Gather", [xd, gb.const(np.asarray(j, np.int64), "nominal")], axis=1)
        # table rows: codes 0..size-1, size = -1 (outside the domain), size+1 = missing, size+2 = any
        # other number (not a code: the engine's set tests never match it)
        code = gb.op("And", [gb.op("And", [gb.op("GreaterOrEqual", [c, gb.const(np.asarray(0.0))]),
                                          gb.op("Less", [c, gb.const(np.asarray(float(size)))])]),
                             gb.op("Equal", [c, gb.op("Floor", [c])])])
        other = gb.op("Where", [gb.op("Equal", [c, gb.const(np.asarray(-1.0))]), gb.const(np.asarray(float(size))),
                                gb.const(np.asarray(float(size + 2)))])
        idx = gb.op("Where", [gb.op("IsNaN", [c]), gb.const(np.asarray(float(size + 1))),
                              gb.op("Where", [code, c, other])])
        idx = gb.op("Cast", [idx], to=I64, hint="code_row")
        tt = np.zeros((size + 3, len(lits)), np.uint8)
        ff = np.zeros((size + 3, len(lits)), np.uint8)
        for k, (_, lit) in enumerate(lits):
            universe = lit.missing == -1 or (lit.missing == 0 and len(lit.codes) == size + 1)
            for code_ in range(-1, size):
                row = size if code_ == -1 else code_
                tt[row, k] = 1 if (lit.missing == -1 or (lit.missing == 0 and code_ in lit.codes)) else 0
            tt[size + 1, k] = 1 if lit.missing == 1 else 0
            tt[size + 2, k] = 1 if universe else 0
            ff[:, k] = 1 - tt[:, k]
            if lit.missing == 0:
                ff[size + 1, k] = 0  # a set test on a missing value is unknown
        t_parts.append(gb.op("Gather", [gb.const(tt, "nom_true"), idx], axis=0))
        f_parts.append(gb.op("Gather", [gb.const(ff, "nom_false"), idx], axis=0))
        for k, (i, _) in enumerate(lits):
            column[("lit", i)] = width + k
        width += len(lits)
    T = gb.op("Concat", t_parts, axis=1, hint="lit_true") if len(t_parts) > 1 else t_parts[0]
    Fm = gb.op("Concat", f_parts, axis=1, hint="lit_false") if len(f_parts) > 1 else f_parts[0]
    return T, Fm, width, column


def _select(gb: GraphBuilder, mask: np.ndarray, a: str, b: str) -> str:
    """Boolean ``mask ? a : b`` per column (onnxruntime has no Where for bool tensors)."""
    if mask.all():
        return a
    if not mask.any():
        return b
    return gb.op("Or", [gb.op("And", [gb.const(mask, "mask"), a]), gb.op("And", [gb.const(~mask, "mask"), b])])


def _node_columns(gb: GraphBuilder, plan: Plan, T: str, Fm: str, width: int, column: dict):
    """And/Or nodes level by level (Kleene): And TRUE = min of TRUE, FALSE = max of FALSE; Or dual."""
    levels = sorted({lvl for lvl, _, _ in plan.nodes})
    for lvl in levels:
        tf = gb.op("Concat", [T, Fm], axis=1)
        new_t, new_f, assigned = [], [], []
        for op in ("and", "or"):
            ids = [i for i, (lv, o, _) in enumerate(plan.nodes) if lv == lvl and o == op]
            if not ids:
                continue
            k = max(len(plan.nodes[i][2]) for i in ids)
            pad = TRUE_REF if op == "and" else FALSE_REF
            it = np.empty((len(ids), k), np.int64)
            iff = np.empty((len(ids), k), np.int64)
            for r, i in enumerate(ids):
                kids = list(plan.nodes[i][2]) + [pad] * (k - len(plan.nodes[i][2]))
                for c, (col, neg) in enumerate(kids):
                    base = column[col] if isinstance(col, tuple) else col
                    it[r, c] = base + width if neg else base
                    iff[r, c] = base if neg else base + width
            lo, hi = ("ReduceMin", "ReduceMax") if op == "and" else ("ReduceMax", "ReduceMin")
            new_t.append(gb.reduce(lo, gb.op("Gather", [tf, gb.const(it, "kids_t")], axis=1), 2, keepdims=0))
            new_f.append(gb.reduce(hi, gb.op("Gather", [tf, gb.const(iff, "kids_f")], axis=1), 2, keepdims=0))
            assigned.extend(ids)
        T = gb.op("Concat", [T] + new_t, axis=1)
        Fm = gb.op("Concat", [Fm] + new_f, axis=1)
        for n, i in enumerate(assigned):
            column[("node", i)] = width + n
        width += len(assigned)
    return T, Fm, width


# --- semantics ----------------------------------------------------------------------------------------


def _no_decision(classes: list, elem: int) -> Any:
    if elem == TensorProto.STRING:
        return ""
    if elem == TensorProto.DOUBLE:
        return math.nan
    if elem == TensorProto.INT64:
        return -1 if -1 not in classes else min(classes) - 1
    raise ExportError("a rule base with boolean labels and no default cannot say 'no decision' in ONNX: "
                      "add a default rule")


def _semantics(gb: GraphBuilder, rb: RuleBase, out: Outcomes, fired: str | None, fired_x: str, dtype, elem):
    """Outputs from the fired matrix ([N, R] uint8) per the rule base's semantics and combiner."""
    R = len(rb.rules)
    meta: dict[str, str] = {}

    def finish(values: str, name: str) -> str:
        if dtype == np.float64:
            return gb.op("Identity", [values], out=name)
        return gb.op("Cast", [values], to=TensorProto.FLOAT, out=name)

    classification = rb.task == "classification"
    labels = None
    if classification:
        arr, label_elem = label_array(out.classes)
        can_undecide = rb.combiner is None and not out.has_default
        if can_undecide:
            sentinel = _no_decision(list(arr), label_elem)
            meta["rulekit.no_decision_label"] = json.dumps(sentinel if not isinstance(sentinel, float) else None)
            arr = np.concatenate([arr, np.asarray([sentinel], dtype=arr.dtype)])
        labels = gb.const(arr, "classes")
        K = len(out.classes)
        cls = np.where(out.cls < 0, K, out.cls).astype(np.int64)
    if rb.combiner is not None:
        return _ensemble(gb, rb, out, fired_x, finish, labels, elem), meta
    if rb.semantics == "first-hit":
        hit = gb.op("ArgMax", [fired_x], axis=1, keepdims=0, select_last_index=0, hint="hit")
        if not classification:
            finish(gb.op("Gather", [gb.const(out.vec[:, 0], "values"), hit], axis=0), "prediction")
            return [helper.make_tensor_value_info("prediction", elem, ["N"])], meta
        vec = out.vec.copy()
        if not out.has_default:
            vec[R] = np.nan
        finish(gb.op("Gather", [gb.const(vec, "proba_table"), hit], axis=0), "probabilities")
        gb.op("Gather", [labels, gb.op("Gather", [gb.const(cls, "class_of_rule"), hit], axis=0)], axis=0,
              out="label")
        return _class_outputs(label_elem, elem, K), meta
    # vote / weighted-sum: MatMul of the fired matrix with the rules' weighted conclusions
    if fired is None:
        fired = gb.op("Slice", [fired_x, gb.const(np.array([0], np.int64)), gb.const(np.array([0], np.int64)),
                                gb.const(np.array([1], np.int64))])
    m = gb.op("Cast", [fired], to=DOUBLE, hint="fired64")
    if R:  # no rule fired
        none = gb.op("Equal", [gb.reduce("ReduceMax", fired, 1), gb.const(np.zeros((), np.uint8))])
    else:
        none = gb.op("Cast", [fired_x], to=TensorProto.BOOL)
    w = out.weight[:R]
    default = out.vec[R]
    if rb.semantics == "vote":
        if not classification:
            wv = gb.op("MatMul", [m, gb.const((w * out.vec[:R, 0]).reshape(R, 1), "wv")])
            tot = gb.op("MatMul", [m, gb.const(w.reshape(R, 1), "w")])
            val = gb.op("Where", [none, gb.const(default[:1]), gb.op("Div", [wv, tot])])
            finish(gb.to_vector(val), "prediction")
            return [helper.make_tensor_value_info("prediction", elem, ["N"])], meta
        onehot = np.zeros((R, K))
        onehot[np.arange(R), out.cls[:R]] = w
        votes = gb.op("MatMul", [m, gb.const(onehot, "votes")], hint="votes")
        proba = _normalise(gb, votes)
        dflt = default.copy() if out.has_default else np.full(K, np.nan)
        finish(gb.op("Where", [none, gb.const(dflt.reshape(1, K), "default"), proba]), "probabilities")
        idx = gb.op("Where", [gb.to_vector(none), gb.const(np.asarray(cls[R], np.int64)),
                              gb.op("ArgMax", [votes], axis=1, keepdims=0, select_last_index=0)])
        gb.op("Gather", [labels, idx], axis=0, out="label")
        return _class_outputs(label_elem, elem, K), meta
    # weighted-sum: default + sum of weight * value over matching rules
    total = gb.op("Add", [gb.const(default.reshape(1, -1), "base"),
                          gb.op("MatMul", [m, gb.const(w[:, None] * out.vec[:R], "wvec")])], hint="total")
    if not classification:
        finish(gb.to_vector(gb.op("Gather", [total, gb.const(np.array([0], np.int64))], axis=1)), "prediction")
        return [helper.make_tensor_value_info("prediction", elem, ["N"])], meta
    finish(_normalise(gb, total), "probabilities")
    gb.op("Gather", [labels, gb.op("ArgMax", [total], axis=1, keepdims=0, select_last_index=0)], axis=0,
          out="label")
    return _class_outputs(label_elem, elem, K), meta


def _normalise(gb: GraphBuilder, scores: str) -> str:
    """scores / row sum where the sum is positive, else 0 (the engine's proba of votes and sums)."""
    tot = gb.reduce("ReduceSum", scores, 1)
    pos = gb.op("Greater", [tot, gb.const(np.zeros(()))])
    safe = gb.op("Where", [pos, tot, gb.const(np.ones(()))])
    return gb.op("Where", [pos, gb.op("Div", [scores, safe]), gb.const(np.zeros(()))])


def _class_outputs(label_elem: int, elem: int, K: int) -> list:
    return [helper.make_tensor_value_info("label", label_elem, ["N"]),
            helper.make_tensor_value_info("probabilities", elem, ["N", K])]


def _ensemble(gb: GraphBuilder, rb: RuleBase, out: Outcomes, fired_x: str, finish, labels, elem) -> list:
    """Groups are trees: the first hit within each group (or the default), then the combiner."""
    c = rb.combiner
    R = len(rb.rules)
    by: dict[int, list[int]] = {}
    for i, r in enumerate(rb.rules):
        by.setdefault(r.group, []).append(i)
    grs = [idx for _, idx in sorted(by.items())]
    G = len(grs)
    if G == 0:
        raise ExportError("an ensemble rule base needs rules")
    if c.tree_output is not None and len(c.tree_output) != G:
        raise ExportError(f"the combiner names {len(c.tree_output)} trees but the rules form {G} groups")
    width = max(len(g) for g in grs) + 1
    cols = np.full((G, width), R, np.int64)  # column R of fired_x is the always-true default
    for g, idx in enumerate(grs):
        cols[g, :len(idx)] = idx
    pos = gb.op("ArgMax", [gb.op("Gather", [fired_x, gb.const(cols, "group_cols")], axis=1)], axis=2,
                keepdims=0, select_last_index=0, hint="group_hit")
    flat = gb.op("Add", [pos, gb.const(np.arange(G, dtype=np.int64) * width, "group_base")])
    rule = gb.op("Gather", [gb.const(cols.reshape(-1), "group_rules"), flat], axis=0, hint="group_rule")
    vals = gb.op("Gather", [gb.const(out.vec, "rule_values"), rule], axis=0, hint="group_values")  # [N, G, W]
    K = len(out.classes)
    if c.kind == "sum" and c.arithmetic == "float32":  # XGBoost's float32 sums and link
        v0 = gb.op("Gather", [vals, gb.const(np.asarray(0, np.int64))], axis=2)  # [N, G]
        n_out = max(1, len(c.base_score))
        raw = sum32(gb, v0, list(c.tree_output or (0,) * G), n_out, base=c.base_score or (0.0,))
        if rb.task == "regression":
            finish(gb.op("Cast", [gb.to_vector(raw)], to=DOUBLE), "prediction")
            return [helper.make_tensor_value_info("prediction", elem, ["N"])]
        proba = link32(gb, raw, c.link, n_out)
        gb.op("Gather", [labels, gb.op("ArgMax", [proba], axis=1, keepdims=0, select_last_index=0)], axis=0,
              out="label")
        finish(gb.op("Cast", [proba], to=DOUBLE), "probabilities")
        return _class_outputs(label_array(out.classes)[1], elem, K)
    if c.kind == "sum":
        v0 = gb.op("Gather", [vals, gb.const(np.asarray(0, np.int64))], axis=2)  # [N, G]
        outs = c.tree_output or (0,) * G
        n_out = max(1, len(c.base_score))
        sel = np.zeros((G, n_out))
        sel[np.arange(G), outs] = 1.0
        raw = gb.op("Add", [gb.const(np.asarray(c.base_score or (0.0,), np.float64).reshape(1, -1), "base"),
                            gb.op("MatMul", [v0, gb.const(sel, "tree_output")])], hint="raw")
        if rb.task == "regression":
            finish(gb.to_vector(gb.op("Gather", [raw, gb.const(np.array([0], np.int64))], axis=1)), "prediction")
            return [helper.make_tensor_value_info("prediction", elem, ["N"])]
        if c.link == "sigmoid":
            p1 = gb.op("Sigmoid", [raw])
            proba = gb.op("Gemm", [p1, gb.const(np.array([[-1.0, 1.0]]), "pm"), gb.const(np.array([1.0, 0.0]))])
        elif c.link == "softmax":
            proba = gb.op("Softmax", [raw], axis=1)
        else:
            raise ExportError("a boosted classifier needs a sigmoid or softmax link")
        finish(proba, "probabilities")
        decision = getattr(c, "decision", None)
        if decision is not None and c.link == "sigmoid":
            hit = gb.op("GreaterOrEqual" if decision == "raw>=0" else "Greater", [raw, gb.const(np.zeros(()))])
            idx = gb.to_vector(gb.op("Cast", [hit], to=I64))
        else:
            idx = gb.op("ArgMax", [raw if decision is not None else proba], axis=1, keepdims=0,
                        select_last_index=0)
        gb.op("Gather", [labels, idx], axis=0, out="label")
        return _class_outputs(label_array(out.classes)[1], elem, K)
    if c.kind == "vote":
        # one vote per tree for its first most probable class: Equal against 0..K-1, not OneHot
        # (onnxruntime 1.32 has no OneHot with double values: the model would not load)
        winner = gb.op("ArgMax", [vals], axis=2, keepdims=1, select_last_index=0)  # [N, G, 1]
        onehot = gb.op("Cast", [gb.op("Equal", [winner, gb.const(np.arange(K, dtype=np.int64), "class_ids")])],
                       to=DOUBLE)  # [N, G, K]
        total = gb.op("Div", [gb.reduce("ReduceSum", onehot, 1, keepdims=0), gb.const(np.asarray(float(G)))])
    else:
        total = gb.reduce("ReduceSum", vals, 1, keepdims=0)
        if c.kind == "average":
            total = gb.op("Div", [total, gb.const(np.asarray(float(G)))])
    if rb.task == "regression":
        finish(gb.to_vector(gb.op("Gather", [total, gb.const(np.array([0], np.int64))], axis=1)), "prediction")
        return [helper.make_tensor_value_info("prediction", elem, ["N"])]
    finish(total, "probabilities")
    gb.op("Gather", [labels, gb.op("ArgMax", [total], axis=1, keepdims=0, select_last_index=0)], axis=0,
          out="label")
    return _class_outputs(label_array(out.classes)[1], elem, K)
