"""Vectorized evaluation of a rule base: ``predict`` and ``predict_proba`` (``explain`` is in
:mod:`rulekit.rules.explain`, on the same evaluation).

Conditions are evaluated column-wise in three-valued logic: each distinct literal once per column as
a boolean vector (numeric tests through :func:`rulekit.semantics.canonical`, so a rule equals its
tree's float32/float64 comparison on every value). No Python loop runs per row.

First-hit rule lists (and each group of an ensemble) are additionally compiled into a decision
diagram (:mod:`rulekit.rules.decision_diagram`) whose walk costs O(depth) per row instead of O(rules); the
generic evaluator is the reference and the fallback (oblique tests, very large DNFs, ``vote``,
``weighted-sum``, ``explain``). There, conditions shaped AND of ORs of ANDs of literals (every path
rule) are compiled once per rule base into literal indexes and evaluated for their TRUE rows only.
The compile and ``explain`` pause the cyclic garbage collector. Costs and the layouts tried:
docs/engines.md, "Rule engine". What each rule concludes is read in :mod:`rulekit.rules.outcomes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.ir.data import to_matrix
from rulekit.rules.boxes import LiteralSchema, NomSet, NumSet, conjuncts, fold, iter_literals, no_gc
from rulekit.rules.conditions import And, Not, Or
from rulekit.rules.outcomes import Outcomes, build_outcomes, outcomes, rule_name
from rulekit.semantics import combiners

if TYPE_CHECKING:
    from rulekit.rules.base import RuleBase

CHUNK_CELLS = 1 << 23  # rows x rules evaluated at once by the generic evaluator


# --- input -------------------------------------------------------------------------------------------


def matrix(rb: RuleBase, X: Any) -> np.ndarray:
    """``X`` as the float64 matrix of the rule base's features (nominal values as domain codes)."""
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype == np.float64 \
            and X.shape[1] == len(rb.features) and all(f.kind == "numeric" for f in rb.features):
        return X
    return to_matrix(X, rb.features)


# --- the generic three-valued evaluator ------------------------------------------------------------------


class Evaluator:
    """Evaluates conditions on a matrix; literals are cached by their exact value set."""

    def __init__(self, schema: LiteralSchema, M: np.ndarray):
        self.schema = schema
        self.M = M
        self.n = M.shape[0]
        self._cols: dict[Any, np.ndarray] = {}
        self._miss: dict[Any, np.ndarray] = {}
        self._lits: dict[tuple, np.ndarray] = {}
        self._by_id: dict[int, np.ndarray] = {}
        self._ones = np.ones(self.n, bool)
        self._zeros = np.zeros(self.n, bool)

    def column(self, key: Any) -> np.ndarray:
        col = self._cols.get(key)
        if col is None:
            if isinstance(key, tuple):  # linear: sum(w * x) left to right in float64
                terms = key[1]
                with np.errstate(invalid="ignore", over="ignore"):
                    col = terms[0][0] * self.M[:, self.schema.key(terms[0][1])]
                    for w, name in terms[1:]:
                        col = col + w * self.M[:, self.schema.key(name)]
            else:
                col = self.M[:, key]
            self._cols[key] = col
        return col

    def missing(self, key: Any) -> np.ndarray:
        m = self._miss.get(key)
        if m is None:
            m = np.isnan(self.column(key))
            self._miss[key] = m
        return m

    def member(self, key: Any, c: NumSet | NomSet, *, cache: bool = True) -> np.ndarray:
        """Rows whose value of ``key`` lies in ``c`` (TRUE rows of a literal); ``cache``: keep it
        under its value (hashing a set costs more than small chunks take to compute)."""
        sig = (key, c)
        if cache:
            hit = self._lits.get(sig)
            if hit is not None:
                return hit
        x = self.column(key)
        if isinstance(c, NomSet):
            if c.is_universe:
                t = ~self.missing(key)
            elif not c.codes:
                t = self._zeros.copy()
            else:
                t = np.isin(x, np.fromiter(c.codes, float, len(c.codes)))
        else:
            t = None
            for lo, hi in c.intervals:
                part = None
                if lo.at > -np.inf:
                    part = x >= lo.at
                if hi.at < np.inf:
                    part = (x <= hi.at) if part is None else part & (x <= hi.at)
                if part is None:
                    part = ~self.missing(key)
                t = part if t is None else t | part
            if t is None:
                t = self._zeros.copy()
        if c.missing:
            t = t | self.missing(key)
        if cache:
            self._lits[sig] = t
        return t

    def literal(self, lit: Any) -> tuple[np.ndarray, np.ndarray]:
        key, c = self.schema.literal_set(lit)
        t = self.member(key, c)
        if getattr(lit, "kind", None) == "missing":  # `is missing` is never unknown
            return t, ~t
        return t, ~t & ~self.missing(key)

    def truth(self, cond: Any) -> tuple[np.ndarray, np.ndarray]:
        """(TRUE rows, FALSE rows); the rest are UNKNOWN."""

        def step(node, args):
            if isinstance(node, And):
                if not args:
                    return self._ones, self._zeros
                t, f = args[0]
                for a, b in args[1:]:
                    t, f = t & a, f | b
                return t, f
            if isinstance(node, Or):
                if not args:
                    return self._zeros, self._ones
                t, f = args[0]
                for a, b in args[1:]:
                    t, f = t | a, f & b
                return t, f
            if isinstance(node, Not):
                t, f = args[0]
                return f, t
            return self.literal(node)

        return fold(cond, step)

    def true(self, cond: Any) -> np.ndarray:
        return self.truth(cond)[0]

    def all_of(self, terms: list[list[list[int]]], sets: list[tuple[Any, Any]]) -> np.ndarray:
        """TRUE rows of an AND of ORs of ANDs of literals, each literal an index into ``sets`` (its
        key and TRUE set, see :func:`_compiled`); cached by index, so no set is hashed per chunk."""
        t = self._ones
        for alts in terms:
            a = None
            for conj in alts:
                c = None
                for j in conj:
                    m = self._by_id.get(j)
                    if m is None:
                        m = self._by_id[j] = self.member(*sets[j], cache=False)
                    c = m if c is None else c & m
                a = c if a is None else a | c
            t = a if t is self._ones else t & a
        return t


def conjunction(cond: Any) -> list[list[list[Any]]] | None:
    """``cond`` as an AND of ORs of ANDs of literals (None when a NOT or deeper nesting occurs). In
    three-valued logic an AND is TRUE where all its items are TRUE and an OR where any is, whatever
    the UNKNOWN rows, so TRUE rows need no FALSE vectors. Path rules are all of this shape
    (``x <= t or x is missing``, ``(a < x and x <= b) or x is missing``)."""
    out = []
    stack = [cond]
    while stack:
        node = stack.pop()
        if isinstance(node, And):
            stack.extend(reversed(node.items))
        elif isinstance(node, Not):
            return None
        elif isinstance(node, Or):
            if not node.items:
                return None
            alts = []
            for x in node.items:
                if isinstance(x, And) and x.items and not any(isinstance(y, (And, Or, Not)) for y in x.items):
                    alts.append(list(x.items))
                elif isinstance(x, (And, Or, Not)):
                    return None
                else:
                    alts.append([x])
            out.append(alts)
        else:
            out.append([[node]])
    return out


def compiled_conditions(rb: RuleBase, schema: LiteralSchema) -> tuple[list, list[tuple[Any, Any]], list]:
    """Per rule its :func:`conjunction` with literals as indexes into one list of (key, TRUE set)
    pairs, one per distinct literal (None: not of that shape), that list, and per rule where each
    top-level conjunct's terms end (``explain`` reports conjuncts); cached per rule base object."""
    hit = _conj_cache.get(id(rb))
    if hit is not None and hit[0] is rb:
        return hit[1]
    with no_gc():  # many small lists: the collector's full passes otherwise cost 8x the build
        result = _compile(rb, schema)
    _conj_cache[id(rb)] = (rb, result)
    while len(_conj_cache) > 64:
        _conj_cache.pop(next(iter(_conj_cache)))
    return result


def _compile(rb: RuleBase, schema: LiteralSchema) -> tuple[list, list[tuple[Any, Any]], list]:
    ids: dict[Any, int] = {}
    sets: list[tuple[Any, Any]] = []
    rules: list = []
    ends: list = []
    for i, r in enumerate(rb.rules):
        schema.where = f"rule {rule_name(rb, i)}: "
        out: list | None = []
        cut = []
        for part in conjuncts(r.condition):  # conjunction(And(a, b)) is conjunction(a) + conjunction(b)
            terms = conjunction(part)
            if terms is None:
                out = None
                break
            for alts in terms:
                row = []
                for conj in alts:
                    js = []
                    for lit in conj:
                        j = ids.get(lit)
                        if j is None:
                            j = ids[lit] = len(sets)
                            sets.append(schema.literal_set(lit))
                        js.append(j)
                    row.append(js)
                out.append(row)
            cut.append(len(out))
        rules.append(out)
        ends.append(cut if out is not None else None)
    return rules, sets, ends


_conj_cache: dict[int, tuple[RuleBase, tuple]] = {}


def _rule_true(rb: RuleBase, ev: Evaluator, compiled: tuple, i: int) -> np.ndarray:
    terms = compiled[0][i]
    if terms is not None:
        return ev.all_of(terms, compiled[1])
    ev.schema.where = f"rule {rule_name(rb, i)}: "
    return ev.true(rb.rules[i].condition)


def conjuncts_true(rb: RuleBase, ev: Evaluator, compiled: tuple, i: int) -> list[np.ndarray]:
    """TRUE rows of each top-level conjunct of rule ``i`` (in :func:`conjuncts` order)."""
    terms, ends = compiled[0][i], compiled[2][i]
    if terms is None:
        ev.schema.where = f"rule {rule_name(rb, i)}: "
        return [ev.true(c) for c in conjuncts(rb.rules[i].condition)]
    return [ev.all_of(terms[a:b], compiled[1]) for a, b in zip([0] + ends, ends)]


def _schema(rb: RuleBase, where: str = "") -> LiteralSchema:
    s = LiteralSchema(rb)
    s.where = where
    return s


def validate(rb: RuleBase) -> None:
    """Check every name, label and operator of the rule base (RulekitError naming the rule)."""
    schema = LiteralSchema(rb)
    for i, r in enumerate(rb.rules):
        schema.where = f"rule {rule_name(rb, i)}: "
        for lit in iter_literals(r.condition):
            schema.literal_set(lit)
    build_outcomes(rb)


def match_matrix(rb: RuleBase, M: np.ndarray, rules: list[int] | None = None) -> np.ndarray:
    """(n_rows, n_rules) booleans: rule condition TRUE on the row."""
    schema = LiteralSchema(rb)
    idx = list(range(len(rb.rules))) if rules is None else rules
    out = np.zeros((M.shape[0], len(idx)), bool)
    step = max(1, CHUNK_CELLS // max(1, len(idx)))
    compiled = compiled_conditions(rb, schema)
    for s in range(0, M.shape[0], step):
        ev = Evaluator(schema, M[s:s + step])
        for j, i in enumerate(idx):
            out[s:s + step, j] = _rule_true(rb, ev, compiled, i)
    return out


# --- first hit ---------------------------------------------------------------------------------------------


def groups(rb: RuleBase) -> list[tuple[int, list[int]]]:
    """(group id, rule indices in order) for each group, sorted by group id."""
    by: dict[int, list[int]] = {}
    for i, r in enumerate(rb.rules):
        by.setdefault(r.group, []).append(i)
    return sorted(by.items())


def first_hit(rb: RuleBase, M: np.ndarray, rules: list[int] | None = None, *,
              use_diagram: bool = True) -> np.ndarray:
    """Index (into ``rb.rules``) of the first rule of ``rules`` whose condition holds; -1 for none."""
    idx = list(range(len(rb.rules))) if rules is None else list(rules)
    n = M.shape[0]
    if not idx:
        return np.full(n, -1, np.int64)
    if use_diagram:
        from rulekit.rules import decision_diagram as diagram  # noqa: PLC0415

        d = diagram.get(rb, tuple(idx))
        if d is not None:
            return d.first_hit(M)
    return _first_hit_generic(rb, M, idx)


def _first_hit_generic(rb: RuleBase, M: np.ndarray, idx: list[int]) -> np.ndarray:
    n = M.shape[0]
    out = np.full(n, -1, np.int64)
    schema = LiteralSchema(rb)
    compiled = compiled_conditions(rb, schema)
    step = max(1, CHUNK_CELLS // max(1, len(idx)))
    for s in range(0, n, step):
        ev = Evaluator(schema, M[s:s + step])
        res = out[s:s + step]
        open_ = np.ones(res.size, bool)
        for i in idx:
            hit = _rule_true(rb, ev, compiled, i) & open_
            if hit.any():
                res[hit] = i
                open_ &= ~hit
                if not open_.any():
                    break
    return out


# --- predictions -------------------------------------------------------------------------------------------


def _scores(rb: RuleBase, M: np.ndarray, *, need_vec: bool = True) -> tuple[np.ndarray | None,
                                                                             np.ndarray | None, Outcomes]:
    """(probabilities or values (n, width), class index per row or None, outcomes)."""
    out = outcomes(rb)
    n = M.shape[0]
    if rb.combiner is not None:
        return _combine(rb, M, out)
    if rb.semantics == "first-hit":
        hit = first_hit(rb, M)  # -1 (no rule) indexes the default, stored last
        vec = out.vec[hit] if need_vec or rb.task == "regression" else None
        cls = out.cls[hit] if rb.task == "classification" else None
        return vec, cls, out
    match = match_matrix(rb, M)
    R = len(rb.rules)
    none = ~match.any(axis=1)
    if rb.semantics == "vote":
        if rb.task == "regression":
            w = match * out.weight[:R]
            tot = w.sum(axis=1)
            num = np.zeros(n)
            for i in range(R):  # in rule order, matching rows only: the Python export's sum, bit for bit
                m = match[:, i]
                num[m] += out.weight[i] * out.vec[i, 0]
            with np.errstate(invalid="ignore", divide="ignore"):
                val = num / tot
            val = np.where(none, out.vec[R, 0], val)
            return val[:, None], None, out
        K = len(out.classes)
        votes = np.zeros((n, K))
        for i in range(R):
            votes[match[:, i], out.cls[i]] += out.weight[i]
        tot = votes.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            proba = np.where(tot > 0, votes / np.where(tot > 0, tot, 1.0), 0.0)
        proba[none] = out.vec[R]
        cls = np.argmax(votes, axis=1)
        cls[none] = out.cls[R]
        return proba, cls, out
    # weighted-sum: default value + sum of weight * value over matching rules
    base = out.vec[R]
    total = np.tile(base, (n, 1))
    for i in range(R):
        m = match[:, i]
        if m.any():
            total[m] += out.weight[i] * out.vec[i]
    if rb.task == "regression":
        return total, None, out
    cls = np.argmax(total, axis=1)
    s = total.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        proba = np.where(s > 0, total / np.where(s > 0, s, 1.0), 0.0)
    return proba, cls, out


def _combine(rb: RuleBase, M: np.ndarray, out: Outcomes) -> tuple[np.ndarray, np.ndarray | None, Outcomes]:
    """Groups are trees: first hit within each group, then the model's combiner
    (:mod:`rulekit.semantics.combiners`, the tree evaluator's arithmetic)."""
    c = rb.combiner
    n = M.shape[0]
    R = len(rb.rules)
    grs = groups(rb)
    if c.tree_output is not None and len(c.tree_output) != len(grs):
        raise RulekitError(f"the combiner names {len(c.tree_output)} trees but the rules form {len(grs)} groups")
    K = len(out.classes)

    def tree_values():
        for _, idx in grs:
            hit = first_hit(rb, M, idx)
            yield out.vec[np.where(hit < 0, R, hit)]

    red = combiners.reduction(c, len(grs), task=rb.task, value_size=K if rb.task == "classification" else 1)
    raw = combiners.aggregate(red, tree_values(), n)
    if rb.task == "regression":
        return raw[:, :1], None, out
    proba = combiners.probabilities(red, raw)
    return proba, combiners.label_index(red, raw, proba), out


def predict(rb: RuleBase, X: Any) -> np.ndarray:
    """Labels (classification) or numbers (regression), one per row."""
    return predict_matrix(rb, matrix(rb, X))


def predict_matrix(rb: RuleBase, M: np.ndarray) -> np.ndarray:
    """``predict`` on an already encoded matrix (see :func:`matrix`)."""
    vec, cls, out = _scores(rb, M, need_vec=False)
    if rb.task == "regression":
        return vec[:, 0].copy()
    return _labels_of(cls, out)


def _labels_of(cls: np.ndarray, out: Outcomes) -> np.ndarray:
    if (cls < 0).any():  # rows no rule decides and no default: a missing prediction
        res = np.empty(len(cls), object)
        ok = cls >= 0
        res[ok] = out.labels[cls[ok]]
        res[~ok] = None
        return res
    return out.labels[cls]


def predict_with_proba(rb: RuleBase, X: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(predict(rb, X), predict_proba(rb, X))`` of a classification rule base from one evaluation
    (``rulekit diff`` needs both; two passes cost twice as much)."""
    if rb.task != "classification":
        raise RulekitError("predict_proba needs a classification rule base; this one is a regression")
    vec, cls, out = _scores(rb, matrix(rb, X))
    labels = _labels_of(cls, out)
    if (cls < 0).any():
        vec = vec.copy()
        vec[cls < 0] = np.nan
    return labels, vec


def predict_proba(rb: RuleBase, X: Any) -> np.ndarray:
    """One probability per class in ``rb.classes`` order."""
    return proba_matrix(rb, matrix(rb, X))


def proba_matrix(rb: RuleBase, M: np.ndarray) -> np.ndarray:
    if rb.task != "classification":
        raise RulekitError("predict_proba needs a classification rule base; this one is a regression")
    vec, cls, out = _scores(rb, M)
    if (cls < 0).any():
        vec = vec.copy()
        vec[cls < 0] = np.nan
    return vec


__all__ = ["Evaluator", "conjuncts_true", "compiled_conditions", "first_hit", "match_matrix", "matrix",
           "predict", "predict_matrix", "predict_proba", "proba_matrix", "validate"]
