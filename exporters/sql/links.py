"""The last steps of a combiner spelled in SQL: labels, the first-largest argmax, numpy's pairwise
sum (softmax's denominator), the clamped float64 sigmoid and the raw-score label rules
(:mod:`rulekit.semantics.combiners` says which a source uses)."""

from __future__ import annotations

from rulekit.exporters.sql import expr
from rulekit.exporters.sql.dialect import Dialect
from rulekit.semantics.combiners import Reduction

EXP_LIMIT = 700.0  # |argument| beyond which EXP is clamped (PostgreSQL errors on over/underflow)


def label_texts(d: Dialect, classes: list) -> list[str]:
    kinds = {type(c) for c in classes}
    if kinds == {bool}:
        return [d.boolean(c) for c in classes]
    if kinds == {int}:
        return [d.integer(c) for c in classes]
    if kinds == {float}:
        return [d.number(c) for c in classes]
    return [d.string(str(c)) for c in classes]


def argmax(values: list[str], labels: list[str]) -> str:
    """The label of the first largest value (numpy's argmax)."""
    whens = []
    for i in range(len(values) - 1):
        whens.append((expr.join([f"{values[i]} >= {values[j]}" for j in range(i + 1, len(values))], "AND"),
                      labels[i]))
    return expr.case(whens, labels[-1])


def numpy_sum(terms: list[str]) -> str:
    """``terms`` summed in numpy's pairwise order (what ``a.sum(axis=1)`` does along a row)."""
    tasks: list = [("sum", 0, len(terms))]
    out: list[str] = []
    while tasks:
        task = tasks.pop()
        if task[0] == "join":
            b, a = out.pop(), out.pop()
            out.append(f"({a} + {b})")
            continue
        _, lo, hi = task
        n = hi - lo
        a = terms[lo:hi]
        if n < 8:
            out.append("(" + " + ".join(a) + ")" if n > 1 else a[0])
        elif n <= 128:
            r = list(a[:8])
            i = 8
            while i < n - (n % 8):
                r = [f"{r[j]} + {a[i + j]}" for j in range(8)]
                i += 8
            r = [f"({x})" if " " in x else x for x in r]
            res = f"(({r[0]} + {r[1]}) + ({r[2]} + {r[3]})) + (({r[4]} + {r[5]}) + ({r[6]} + {r[7]}))"
            rest = a[i:]
            out.append("(" + " + ".join([f"({res})"] + rest) + ")")
        else:
            n2 = n // 2
            n2 -= n2 % 8
            tasks += [("join",), ("sum", lo + n2, hi), ("sum", lo, lo + n2)]
    return out[0]


def clamp(d: Dialect, col: str, limit: float = EXP_LIMIT) -> str:
    lo, hi = d.number(-limit), d.number(limit)
    return f"CASE WHEN {col} < {lo} THEN {lo} WHEN {col} > {hi} THEN {hi} ELSE {col} END"


def sigmoid(d: Dialect, a: str) -> str:
    """1 / (1 + EXP(-a)) in float64, 0 and 1 beyond ``EXP_LIMIT`` (no engine overflows)."""
    num = d.number
    lo, hi = num(-EXP_LIMIT), num(EXP_LIMIT)
    return (f"CASE WHEN {a} < {lo} THEN {num(0.0)} WHEN {a} > {hi} THEN {num(1.0)} "
            f"ELSE {num(1.0)} / ({num(1.0)} + EXP(-{a})) END")


def raw_label(d: Dialect, red: Reduction, acc: list[str], labels: list[str]) -> str:
    """The label from the raw scores, for a reduction whose ``label`` is not ``argmax``: sigmoid
    ``labels[1]`` iff ``acc[0] >= 0`` (or ``> 0``); softmax the first largest raw score."""
    if red.label == "raw-argmax":
        return argmax(acc, labels)
    return expr.case([(f"{acc[0]} {red.label[3:-1]} {d.number(0.0)}", labels[1])], labels[0])


def vote_result(spec, d: Dialect, acc: list[str], tot: str | None, labels: list[str], proba: bool):
    """(prediction, probabilities) from the accumulators; ``tot``: the votes' sum (classification)."""
    num = d.number
    if spec.task == "regression":
        none = f"{acc[2]} = {num(0.0)}" if len(acc) == 3 else f"{acc[1]} = {num(0.0)}"
        default = num(spec.default[0]) if spec.default is not None else num(0.0)
        return expr.case([(none, default), (f"{acc[1]} = {num(0.0)}", "NULL")], f"{acc[0]} / {acc[1]}"), []
    K = len(labels)
    votes = acc[:K]
    none = f"{acc[K]} = {num(0.0)}" if len(acc) > K else f"{tot} = {num(0.0)}"
    dflt_label = labels[spec.default_cls] if spec.default_cls >= 0 else "NULL"
    pred = expr.case([(none, dflt_label)], argmax(votes, labels))
    probs = []
    if proba:
        for k in range(K):
            dv = num(spec.default[k]) if spec.default is not None and spec.default_cls >= 0 else "NULL"
            probs.append(expr.case([(none, dv), (f"{tot} > {num(0.0)}", f"{votes[k]} / {tot}")], num(0.0)))
    return pred, probs


__all__ = ["EXP_LIMIT", "argmax", "clamp", "label_texts", "numpy_sum", "raw_label", "sigmoid", "vote_result"]
