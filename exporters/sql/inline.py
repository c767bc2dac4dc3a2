"""A bare SQL expression for dialects without correlated derived tables: every sum written out
where it is used, what is read more than once bound to a name where the dialect binds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from rulekit.errors import ExportError
from rulekit.exporters.sql import expr
from rulekit.exporters.sql import float32 as f32
from rulekit.exporters.sql.dialect import Dialect
from rulekit.exporters.sql.links import argmax, clamp, label_texts, numpy_sum, raw_label, sigmoid, vote_result
from rulekit.exporters.sql.names import Names
from rulekit.exporters.sql.spec import Spec, Terms, sum_plan, tree_terms, vote_plan
from rulekit.exporters.sql.stages import check_bare_depth, fold_sum, tree_walks


def inline(spec: Spec, d: Dialect, names: Names) -> str:
    """A bare expression for dialects without correlated derived tables: every sum written out
    where it is used (regression sums, averaged or voting forests, sigmoid boosting). A CASE tree
    feeding several sums is written once per sum. Where the dialect binds (:class:`Binder`), what
    is read more than once is bound to a name once: the walks' row array and each walk feeding
    several sums (Spark), softmax's class sums, the accumulators of voting or weighted-sum rule
    bases, and the running sums of long sums (:func:`long_sums`)."""
    num = d.number
    K = len(spec.classes or [])
    binder = Binder(d, names)
    red = spec.reduction
    if spec.task == "regression" and spec.kind in ("average", "sum", "rule-sum"):
        if spec.kind == "rule-sum":
            base = num(spec.default[0]) if spec.default is not None else num(0.0)
            terms = [u.render([num(spec.weights[i] * u.vec[0][0]), num(0.0)]) for i, u in enumerate(spec.units)]
            (total,) = long_sums(binder, [[base] + terms])
            return binder.value(total)
        (total,) = inline_sums(binder, spec, 1, tree_terms(spec), [num(x) for x in red.base] or [None])
        return binder.value(total if spec.kind == "sum" else f"{total} / {num(float(red.n_trees))}")
    labels = label_texts(d, spec.classes or [])
    if spec.kind == "average" and spec.f32:
        width = len(red.summed)
        sums = inline_sums(binder, spec, width, tree_terms(spec), [None] * width)
        if red.link != "complement":
            if d.bind_class_sums and d.bind is not None:
                sums = binder.bind("s", sums)
            return binder.label(lambda marks: argmax(sums, marks), labels)
        if d.bind is not None:
            sums = binder.bind("s", sums)
        return binder.label(lambda m: expr.case([(f"{f32.complement(d, sums[0])} >= {sums[0]}", m[0])], m[1]),
                            labels)
    if spec.task == "classification" and spec.kind in ("average", "vote"):
        n = num(float(red.n_trees))
        sums = inline_sums(binder, spec, K, tree_terms(spec), [None] * K)
        if d.bind_class_sums and d.bind is not None and K > 2:  # argmax reads each sum k - 1 times
            sums = binder.bind("s", sums)
        return binder.label(lambda marks: argmax([f"({a} / {n})" for a in sums], marks), labels)
    if spec.kind == "sum" and red.link == "sigmoid" and red.width == 1:
        (a,) = inline_sums(binder, spec, 1, tree_terms(spec), [num(red.base[0])])
        if red.label != "argmax":  # the label from the raw score (scikit-learn's boosting)
            return binder.label(lambda m: raw_label(d, red, [a], m), labels)
        if spec.f32:
            if d.bind is not None:
                (a,) = binder.bind("s", [a])
            p1 = f32.sigmoid(d, a)
            if d.bind is not None:
                (p1,) = binder.bind("p", [p1])
            return binder.label(lambda m: expr.case([(f"{f32.complement(d, p1)} >= {p1}", m[0])], m[1]), labels)
        if d.bind is not None:
            (a,) = binder.bind("s", [a])  # read six times below: computed once
        p1 = f"({sigmoid(d, a)})"
        return binder.label(lambda m: expr.case([(f"{num(1.0)} - {p1} >= {p1}", m[0])], m[1]), labels)
    if spec.kind == "sum" and red.link == "softmax" and d.bind is not None:
        sums = inline_sums(binder, spec, red.width, tree_terms(spec), [num(x) for x in red.base])
        return bound_softmax_label(binder, sums, labels, raw=red.label != "argmax", f32_link=spec.f32)
    if spec.kind in ("rule-vote", "rule-sum") and d.bind is not None:
        plan = vote_plan if spec.kind == "rule-vote" else sum_plan
        width, init, terms = plan(spec, d, K)
        acc = binder.bind("a", inline_sums(binder, spec, width, terms, init))
        if spec.kind == "rule-sum":
            return binder.label(lambda marks: argmax(acc, marks), labels)
        if spec.task == "regression":
            return binder.value(vote_result(spec, d, acc, None, [], False)[0])
        return binder.label(lambda marks: vote_result(spec, d, acc, numpy_sum(acc[:K]), marks, False)[0], labels)
    raise ExportError(f"{d.name} cannot score this ensemble in a bare expression (no correlated subqueries "
                      f"in FROM); pass a table (--table)")


class Binder:
    """Values bound to names inside one expression (``Dialect.bind``), level after level: each
    bound expression is computed once, and later levels and the body read it by name. Without
    levels (or without ``bind``) the body is returned as is."""

    def __init__(self, d: Dialect, names: Names):
        self.d, self.names = d, names
        self.levels: list[tuple[str, list[tuple[str, str]]]] = []  # outermost first

    def bind(self, prefix: str, exprs: list[str]) -> list[str]:
        """Names reading ``exprs``, bound one level inside the previous ones (``prefix`` unique)."""
        alias = self.names.internal(prefix)
        fields = [f"{self.names.prefix}{prefix}{k}" for k in range(len(exprs))]
        self.levels.append((alias, list(zip(fields, exprs))))
        return [self.d.bind_ref.format(alias=alias, field=self.d.ident(f), index=k) for k, f in enumerate(fields)]

    def _wrap(self, body: str) -> str:
        check_bare_depth(self.d, len(self.levels))
        for alias, values in reversed(self.levels):
            body = self.d.bound(alias, values, body)
        return body

    def label(self, choose: Callable[[list[str]], str], labels: list[str]) -> str:
        """``choose(marks)`` picks one of ``marks`` (or NULL); the result names that class. Where
        bound results come back untyped, the marks are class indexes cast back and named outside."""
        if not self.levels or not self.d.bind_untyped:
            return self._wrap(choose(labels))
        body = self._wrap(choose([str(k) for k in range(len(labels))]))
        return f"CASE CAST({body} AS INTEGER) " + " ".join(
            f"WHEN {k} THEN {label}" for k, label in enumerate(labels)) + " END"

    def value(self, body: str) -> str:
        """A double computed from the bound names."""
        if not self.levels:
            return body
        out = self._wrap(body)
        return f"CAST({out} AS DOUBLE)" if self.d.bind_untyped else out


def bound_softmax_label(binder: Binder, sums: list[str], labels: list[str], *, raw: bool,
                         f32_link: bool = False) -> str:
    """The label of softmax boosting as one expression: the class sums, then the same steps as the
    staged form (max, clamped exp, numpy's sum, division, first-max argmax), each step bound in
    turn; ``raw``: argmax of the sums themselves (scikit-learn labels from raw scores)."""
    d = binder.d
    s = binder.bind("s", sums)
    if raw:
        return binder.label(lambda marks: argmax(s, marks), labels)
    m = d.max_of(s)
    if f32_link:  # XGBoost's float32 softmax (float32.py)
        e = binder.bind("e", f32.exps(d, s, m))
        p = binder.bind("p", f32.ratios(d, e, expr.sum_terms(e)))
        return binder.label(lambda marks: argmax(p, marks), labels)
    e = binder.bind("e", [f"EXP({clamp(d, f'{sk} - {m}')})" for sk in s])
    p = binder.bind("p", [f"{ek} / {numpy_sum(e)}" for ek in e])
    return binder.label(lambda marks: argmax(p, marks), labels)


def inline_sums(binder: Binder, spec: Spec, width: int, terms: Terms, init: list[str | None]) -> list[str]:
    """Each accumulator as one parenthesized left-to-right sum over the units, in unit order.
    Where the dialect binds, walked trees read the row array through a name bound once, and a
    walk feeding several sums is bound once too; otherwise each is written where it is read."""
    d, names = binder.d, binder.names

    def place(features: str) -> str:
        return features if d.bind is None else binder.bind("x", [features])[0]

    walks = tree_walks(spec, d, names, place) if d.walker else {}
    plan = [(i, k, vals) for i, u in enumerate(spec.units) for k, vals in terms(i, u)
            if not all(v == 0.0 for v in vals)]
    node: dict[int, str] = {}
    if walks and d.bind is not None:
        uses = Counter(i for i, _, vals in plan if i in walks and len(set(vals)) > 1)
        shared = [i for i in walks if uses[i] > 1]
        if shared:
            node = dict(zip(shared, binder.bind("w", [walks[i].expr for i in shared])))
    num = d.number
    sums: list[list[str]] = [[x] if x is not None else [] for x in init]
    for i, k, vals in plan:
        u = spec.units[i]
        sums[k].append(walks[i].pick(u.leaves, vals, num, node.get(i)) if i in walks
                       else u.render([num(v) for v in vals]))
    return long_sums(binder, [parts or [num(0.0)] for parts in sums], f32_sums=spec.f32)


def long_sums(binder: Binder, sums: list[list[str]], *, f32_sums: bool = False) -> list[str]:
    """Each list of terms summed left to right, parenthesized. Engines recurse once per ``+`` (a
    1,000-term sum overflowed MariaDB's thread stack and Spark's parser), so a long sum is a fold
    where the dialect has one (:func:`fold_sum`), or else, where it binds, the running sums are
    bound every ``Dialect.bare_sum`` terms, all accumulators in one level, each level inside the
    previous: the same float64 additions in the same order either way (``f32_sums``: each partial
    sum rounded to float32, :mod:`rulekit.exporters.sql.float32`)."""
    d, n = binder.d, binder.d.bare_sum

    def plain(terms: list[str]) -> str:
        return "(" + (f32.add(d, terms) if f32_sums else expr.sum_terms(terms)) + ")"

    if d.sum_fold is not None:
        folder = f32.fold if f32_sums else fold_sum
        return [folder(d, binder.names, terms) if len(terms) > n else plain(terms) for terms in sums]
    if d.bind is None or all(len(terms) <= n for terms in sums):
        return [plain(terms) for terms in sums]
    heads = [terms[:n] for terms in sums]
    for j in range(n, max(len(terms) for terms in sums), n):
        live = [k for k, terms in enumerate(sums) if len(terms) > j]
        refs = binder.bind(f"c{j // n}_", [plain(heads[k]) for k in live])
        for k, ref in zip(live, refs):
            heads[k] = [ref] + sums[k][j:j + n]
    return [plain(terms) for terms in heads]


__all__ = ["Binder", "bound_softmax_label", "inline", "inline_sums", "long_sums"]
