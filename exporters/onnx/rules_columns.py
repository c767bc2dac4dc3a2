"""The ONNX rule export's truth columns: TRUE and FALSE uint8 matrices [N, columns], first one column
per literal (intervals compared in float64, nominal codes through a lookup table), then And/Or nodes
level by level in Kleene logic (And TRUE = min of TRUE, FALSE = max of FALSE; Or the dual)."""

from __future__ import annotations

import math

import numpy as np
from onnx import TensorProto

from rulekit.rules.base import RuleBase

from .graph import GraphBuilder
from .rules_plan import FALSE_REF, TRUE_REF, NomLit, NumLit, Plan

INF = math.inf
U8 = TensorProto.UINT8
I64 = TensorProto.INT64


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


def literal_columns(gb: GraphBuilder, rb: RuleBase, plan: Plan, xd: str, F: int, ones: str, zeros: str):
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


def node_columns(gb: GraphBuilder, plan: Plan, T: str, Fm: str, width: int, column: dict):
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


__all__ = ["literal_columns", "node_columns"]
