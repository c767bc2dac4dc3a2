"""Why each row got its prediction (``explain``): the rule that fired (per tree for ensembles), every
rule that matched and the near misses, with a one-line text per row.

Built on the engine's evaluation (:mod:`rulekit.rules.engine`): the same match matrix, read per
conjunct so that a rule failing one conjunct is a near miss; only the text is built per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rulekit.rules import text
from rulekit.rules.boxes import LiteralSchema, conjuncts, no_gc
from rulekit.rules.conditions import Or
from rulekit.rules.engine import (CHUNK_CELLS, Evaluator, compiled_conditions, conjuncts_true, groups,
                                  matrix, predict_matrix)
from rulekit.rules.outcomes import outcomes, rule_name
from rulekit.semantics.values import same_or_text

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase


@dataclass(frozen=True)
class NearMiss:
    """A rule that did not match the row because of ``failing`` (its top-level conjuncts not TRUE);
    ``shown``: the tests the text names when narrower (a rule of one 'or': the one test its nearest
    way in fails), else empty."""

    rule: int
    failing: tuple
    shown: tuple = ()


@dataclass(frozen=True)
class Explanation:
    """Why one row got its prediction: ``fired`` (rule index, None = default; per group for ensembles),
    every rule that ``matched``, and ``near_misses``. ``str()`` gives the one-line text."""

    prediction: Any
    fired: Any
    matched: tuple[int, ...]
    near_misses: tuple[NearMiss, ...]
    text: str

    def __str__(self) -> str:
        return self.text


def explain(rb: RuleBase, X: Any, *, max_near_misses: int = 2) -> list[Explanation]:
    """One :class:`Explanation` per row (vectorized evaluation; only the text is built per row)."""
    with no_gc():  # a big rule base is millions of objects: each full collection walks them all
        return _explain(rb, X, max_near_misses)


def _explain(rb: RuleBase, X: Any, max_near_misses: int) -> list[Explanation]:
    M = matrix(rb, X)
    pred = predict_matrix(rb, M)
    n = M.shape[0]
    R = len(rb.rules)
    schema = LiteralSchema(rb)
    res: list[Explanation] = []
    rule_text = [text.condition(r.condition) for r in rb.rules]
    compiled = compiled_conditions(rb, schema)
    parts_total = sum(len(conjuncts(r.condition)) for r in rb.rules)
    # ~32 MB a chunk: per row 2 bytes a rule (matched, near miss) and 1 a conjunct (its TRUE rows);
    # Python's work per rule and chunk is what costs, so chunks are as large as that allows
    step = max(1, 4 * CHUNK_CELLS // max(1, 2 * R + parts_total))
    for s in range(0, n, step):
        Mc = M[s:s + step]
        ev = Evaluator(schema, Mc)
        or_rows: dict = {}  # TRUE rows of the tests inside a rule's 'or' (near misses of DNF rules)
        match = np.ones((Mc.shape[0], R), bool)  # every conjunct TRUE
        one = np.zeros((Mc.shape[0], R), bool)  # exactly one conjunct not TRUE (a near miss)
        fail_parts: list[list[np.ndarray]] = []
        for i in range(R):
            parts = conjuncts_true(rb, ev, compiled, i)
            if len(parts) == 1:
                match[:, i] = parts[0]
                one[:, i] = ~parts[0]
            elif parts:
                failed = ~parts[0]
                twice = np.zeros(Mc.shape[0], bool)
                for p in parts[1:]:
                    miss = ~p
                    twice |= failed & miss
                    failed |= miss
                match[:, i] = ~failed
                one[:, i] = failed & ~twice
            fail_parts.append(parts)
        if rb.combiner is not None:
            fired_rows = _fired_by_group(rb, match)
        elif rb.semantics == "first-hit":
            anym = match.any(axis=1)
            first = np.where(anym, np.argmax(match, axis=1), -1) if R else np.full(Mc.shape[0], -1)
        for j in range(Mc.shape[0]):
            row = s + j
            matched = tuple(np.flatnonzero(match[j]).tolist())
            if rb.combiner is not None:
                fired = tuple(fired_rows[j])
                near: tuple = ()
                txt = "; ".join(
                    f"{'tree ' + str(g) + ': ' if len(fired) > 1 else ''}"
                    + (f"{rule_name(rb, f)} -> {text.conclusion(rb.rules[f].conclusion)}" if f >= 0
                       else "no rule")
                    for g, f in enumerate(fired))
                res.append(Explanation(pred[row], fired, matched, near, txt))
                continue
            if rb.semantics == "first-hit":
                f = int(first[j])
                fired = None if f < 0 else f
            else:
                fired = None if not matched else matched
            near = _near_misses(rb, one[j], fail_parts, j, pred[row], max_near_misses, ev, or_rows)
            res.append(Explanation(pred[row], fired, matched, near,
                                   _row_text(rb, fired, matched, near, pred[row], rule_text)))
    return res


def _fired_by_group(rb: RuleBase, match: np.ndarray) -> np.ndarray:
    grs = groups(rb)
    out = np.full((match.shape[0], len(grs)), -1, np.int64)
    for g, (_, idx) in enumerate(grs):
        sub = match[:, idx]
        anym = sub.any(axis=1)
        out[:, g] = np.where(anym, np.asarray(idx)[np.argmax(sub, axis=1)], -1)
    return out


def _near_misses(rb: RuleBase, one: np.ndarray, parts: list, j: int, pred: Any, limit: int,
                 ev: Evaluator | None = None, or_rows: dict | None = None) -> tuple:
    """Up to ``limit`` rules (in order) failing ``one`` conjunct on row ``j`` that would have
    concluded something other than ``pred``. For a rule that is one 'or' (a DNF rule, one per
    class) the text names the one test its nearest way in fails, where one does; the whole 'or' was
    shown for every row the rule missed (audit 3)."""
    if limit <= 0:
        return ()
    cand = np.flatnonzero(one)
    out = []
    for i in cand.tolist():
        c = rb.rules[i].conclusion
        if rb.task == "classification" and c.label is not None and _same(c.label, pred):
            continue
        conj = conjuncts(rb.rules[i].condition)
        failing = tuple(conj[k] for k, p in enumerate(parts[i]) if not p[j])
        shown = ()
        if ev is not None and len(failing) == 1 and isinstance(failing[0], Or):
            shown = _one_test_away(ev, failing[0], j, or_rows if or_rows is not None else {}) or ()
        out.append(NearMiss(i, failing, shown))
        if len(out) >= limit:
            break
    return tuple(out)


def _one_test_away(ev: Evaluator, node: Or, j: int, rows: dict) -> tuple | None:
    """The one failing test of the first way into ``node`` (an 'or') that fails only one on row
    ``j``, or None; ``rows`` caches each test's TRUE rows for the chunk ``ev`` reads."""
    for way in node.items:
        failing = []
        for part in conjuncts(way):
            true = rows.get(id(part))
            if true is None:
                true = rows[id(part)] = ev.true(part)
            if not true[j]:
                failing.append(part)
                if len(failing) > 1:
                    break
        if len(failing) == 1:
            return (failing[0],)
    return None


def _same(a: Any, b: Any) -> bool:
    """A rule's label against a predicted one (a numpy scalar read as its Python value)."""
    if isinstance(b, np.generic):
        b = b.item()
    return same_or_text(a, b)


def _row_text(rb: RuleBase, fired: Any, matched: tuple, near: tuple, pred: Any, rule_text: list) -> str:
    if rb.semantics == "first-hit":
        if fired is None:
            head = f"default -> {text.conclusion(rb.default)} (no rule matched)"
        else:
            head = f"{rule_name(rb, fired)}: if {rule_text[fired]} then {text.conclusion(rb.rules[fired].conclusion)}"
        others = [i for i in matched if i != fired]
        if others:
            head += " | also matched: " + ", ".join(rule_name(rb, i) for i in others)
    else:
        if not matched:
            head = f"default -> {text.conclusion(rb.default)} (no rule matched)"
        elif rb.semantics == "weighted-sum" and rb.task == "classification":
            head = _points_text(rb, matched, pred)
        elif rb.semantics == "vote" and rb.task == "classification" and rb.combiner is None:
            head = _votes_text(rb, matched, pred)
        else:
            head = f"{rb.semantics} of " + ", ".join(
                f"{rule_name(rb, i)} ({text.conclusion(rb.rules[i].conclusion)})" for i in matched)
            head += f" -> {text.label(pred.item() if isinstance(pred, np.generic) else pred)}"
    if near:
        head += " | near miss: " + "; ".join(
            f"{rule_name(rb, m.rule)} -> {text.conclusion(rb.rules[m.rule].conclusion)} fails "
            + " and ".join(text.condition(c) for c in (m.shown or m.failing)) for m in near)
    return head


def _points_text(rb: RuleBase, matched: tuple, pred: Any) -> str:
    """A weighted-sum classification row (a scorecard) as each class's points, most first: what the
    default starts it with and what each matching rule adds (``benign 7.45 = s3 1.644 + s6 1.473``)."""
    oc = outcomes(rb)
    R = len(rb.rules)
    per_class = [(k, float(oc.vec[R, k]) if rb.default is not None else 0.0,
                  [(i, float(oc.weight[i] * oc.vec[i, k])) for i in matched]) for k in range(len(oc.classes))]
    return _tally_text(rb, "points", per_class, pred)


def _votes_text(rb: RuleBase, matched: tuple, pred: Any) -> str:
    """A vote classification row as each voted class's tally, most first, and the rules that cast it
    (``yes 1.7 = r1 0.9 + r3 0.8; no 0.6 = r2 0.6 -> yes``)."""
    oc = outcomes(rb)
    per_class = [(k, 0.0, [(i, float(oc.weight[i])) for i in matched if oc.cls[i] == k])
                 for k in range(len(oc.classes))]
    return _tally_text(rb, "votes", [c for c in per_class if c[2]], pred)


def _tally_text(rb: RuleBase, word: str, per_class: list, pred: Any) -> str:
    """``word: <class> <total> = start <s> + <rule> <amount> ...; ... -> <label>``, classes by total
    (most first), each total added as the engine adds it: the start, then the rules in their order;
    ``per_class``: (class index, start, [(rule index, amount)])."""
    classes = outcomes(rb).classes
    rows = []
    for k, start, amounts in per_class:
        total = start
        for _, amount in amounts:
            total += amount
        shown = ([f"start {start:.4g}"] if start else []) + [f"{rule_name(rb, i)} {a:.4g}" for i, a in amounts if a != 0]
        rows.append((-total, k, f"{text.label(classes[k])} {total:.4g}" + (" = " + " + ".join(shown) if shown else "")))
    rows.sort(key=lambda r: (r[0], r[1]))
    win = pred.item() if isinstance(pred, np.generic) else pred
    return f"{word}: " + "; ".join(r[2] for r in rows) + f" -> {text.label(win)}"


__all__ = ["Explanation", "NearMiss", "explain"]
