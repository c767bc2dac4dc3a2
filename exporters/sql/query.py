"""The whole SELECT: units summed in stages, then the source's link and label rule, in its order.

Layout for an ensemble (``WITH`` stages, each computed once per row)::

    s1: key, features, <leaf id of trees 1..50>                 (where the dialect can pick)
    s2: key, features, base + pick(v, l1) + ... AS a0, <leaf ids of trees 51..100>
    s3: key, a0 + pick(v, l51) + ... AS a0
    s4: key, a0 / n AS p0, ...                                  (link: mean, sigmoid, softmax ...)
    SELECT key, <argmax of p> AS prediction, p0 AS "proba:..." ... FROM s4

Sums keep the source's left-to-right order (float64 addition is not associative), so stages carry
the running sum instead of adding partial sums; at most 50 terms per stage. A tree that feeds
several sums (one per class) is evaluated once as a leaf id, its values picked from constant lists,
where the dialect has lists; otherwise it is written once per sum. Each stage ends with the
dialect's ``stage_suffix`` so engines that would inline it (SQLite, PostgreSQL, MariaDB) evaluate
it once. A single tree or first-hit rule list needs at most one stage.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from rulekit import semantics
from rulekit.errors import ExportError
from rulekit.exporters.sql import expr
from rulekit.exporters.sql import float32 as f32
from rulekit.exporters.sql.dialect import Dialect
from rulekit.exporters.sql.names import PREDICTION, PROBA_PREFIX, Names
from rulekit.exporters.sql.trees import Columns
from rulekit.exporters.sql.units import MatchUnit, RuleListUnit, TreeUnit, size, tree_unit
from rulekit.exporters.sql.walker import Walk, walkable
from rulekit.ir.model import Model

EXP_LIMIT = 700.0  # |argument| beyond which EXP is clamped (PostgreSQL errors on over/underflow)


# --- what to compute ---------------------------------------------------------------------------------


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


def model_spec(model: Model, d: Dialect) -> Spec:
    cols = Columns(model.features, d)
    units = [tree_unit(t, cols, model.leaf_value_size, d.case_depth) for t in model.trees]
    c = model.combiner
    kind = "single" if c.kind == "single" or len(units) == 1 and c.kind == "average" else c.kind
    return Spec(model.task, model.classes, model.features, units, kind, c,
                f32=c.arithmetic == "float32" and f32.supported(d))


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
                    f32=c.arithmetic == "float32" and f32.supported(d))
    if rb.semantics == "first-hit":
        unit = RuleListUnit(texts, vec, cls)
        return Spec(rb.task, classes, features, [unit], "single")
    zero = tuple(0.0 for _ in vec[R])
    units = [MatchUnit(texts[i], [vec[i], zero], [cls[i], -1]) for i in range(R)]
    kind = "rule-vote" if rb.semantics == "vote" else "rule-sum"
    return Spec(rb.task, classes, features, units, kind, None, [float(w) for w in out.weight[:R]],
                default=vec[R] if out.has_default else None, default_cls=cls[R])


# --- text helpers --------------------------------------------------------------------------------------


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


# --- stages ----------------------------------------------------------------------------------------------


class Builder:
    """Collects stages as CTEs over the table, or for a bare expression as nested derived tables
    (or correlated CTEs inside the scalar subquery, where the dialect's parser nests poorly)."""

    def __init__(self, d: Dialect, names: Names, carry: list[str]):
        self.d = d
        self.names = names
        self.carry = carry
        self.stages: list[tuple[str, str, bool]] = []  # (name, body, materialized)
        self.bare = names.table is None
        self.prev = names.table

    def stage(self, items: list[str], *, features: bool, tables: list[tuple[str, str]] = ()) -> None:
        """A stage selecting ``items`` (plus the key, and the feature columns when ``features``);
        ``tables``: one-row tables joined laterally after the previous stage (:func:`f32.chain`)."""
        name = self.names.internal(f"s{len(self.stages) + 1}")
        every = self.d.materialize_every
        mat = bool(every) and len(self.stages) % every == every - 1
        if self.bare:
            body = "SELECT " + ", ".join(items)
            if self.stages:
                if self.d.bare_with:
                    body += " FROM " + f32.joined(self.d, self.stages[-1][0], tables) + self.d.stage_suffix
                else:
                    body += " FROM " + f32.joined(self.d, f"({self.stages[-1][1]}) AS {self.stages[-1][0]}", tables)
            elif tables:
                body += " FROM " + f32.joined(self.d, None, tables)
        else:
            cols = (self.carry if features else ([self.names.key] if self.names.key else [])) + items
            src = f32.joined(self.d, self.prev, tables)
            body = f"SELECT {', '.join(cols)} FROM {src}{'' if mat else self.d.stage_suffix}"
        self.stages.append((name, body, mat))
        self.prev = name

    def select(self, items: list[str]) -> str:
        if self.bare:
            if not self.stages:
                return items[0]
            last = self.stages[-1]
            if self.d.bare_with:
                stages = ", ".join(f"{n} AS {'MATERIALIZED ' if m else ''}({b})" for n, b, m in self.stages)
                return f"(WITH {stages} SELECT {items[0]} FROM {last[0]})"
            _check_bare_depth(self.d, len(self.stages))
            return f"(SELECT {items[0]} FROM ({last[1]}) AS {last[0]})"
        cols = ([self.names.key] if self.names.key else []) + items
        head = ""
        if self.d.max_ctes is not None and len(self.stages) > self.d.max_ctes:
            raise ExportError(f"this source needs {len(self.stages)} stages and {self.d.name} takes at most "
                              f"{self.d.max_ctes} in one query (WITH elements); it is too big for this engine")
        if self.stages:
            head = "WITH " + ",\n".join(f"{n} AS {'MATERIALIZED ' if m else ''}({b})"
                                        for n, b, m in self.stages) + "\n"
        sep = ",\n  "
        return f"{head}SELECT\n  {sep.join(cols)}\nFROM {self.prev}"


def _check_bare_depth(d: Dialect, depth: int) -> None:
    if d.bare_depth is not None and depth > d.bare_depth:
        raise ExportError(f"the bare {d.name} expression would nest {depth} subqueries (the engine allows "
                          f"{d.bare_depth}); pass a table (--table)")


# --- assembly ------------------------------------------------------------------------------------------------


def build(obj, d: Dialect, *, table: str | None, key: str | None, proba: bool) -> str:
    spec = model_spec(obj, d) if isinstance(obj, Model) else rules_spec(obj, d)
    if proba and spec.task != "classification":
        raise ExportError("--proba needs a classifier; this source is a regression")
    if table is None and key is not None:
        raise ExportError("a key column needs a table (--table)")
    classes = spec.classes or []
    outputs = [PREDICTION] + ([f"{PROBA_PREFIX}{c}" for c in classes] if proba else [])
    names = Names(d, [f.name for f in spec.features], key=key, table=table, outputs=outputs)
    if table is None and proba:
        raise ExportError("the bare expression form gives the prediction only; pass a table for --proba")
    carry = ([names.key] if names.key else []) + [
        d.ident(f.name) for f in spec.features if not (names.key_is_feature and f.name == key)]
    b = Builder(d, names, carry)
    labels = label_texts(d, classes) if spec.task == "classification" else []
    if spec.kind == "single":
        pred, probs = _single(spec, d, b, names, labels, proba)
    else:
        if b.bare and not d.correlated_from:
            return _inline(spec, d, names)
        pred, probs = _ensemble(spec, d, b, names, labels, proba)
    items = [f"{pred} AS {names.outputs[0]}"] + [f"{p} AS {n}" for p, n in zip(probs, names.outputs[1:])]
    if b.bare:
        return b.select([pred])
    c = obj.combiner
    float64_sums = c is not None and c.arithmetic == "float32" and not spec.f32
    return (f32.header(d, c.kind) if float64_sums else "") + b.select(items)


def _inline(spec: Spec, d: Dialect, names: Names) -> str:
    """A bare expression for dialects without correlated derived tables: every sum written out
    where it is used (regression sums, averaged or voting forests, sigmoid boosting). A CASE tree
    feeding several sums is written once per sum. Where the dialect binds (:class:`_Binder`), what
    is read more than once is bound to a name once: the walks' row array and each walk feeding
    several sums (Spark), softmax's class sums, the accumulators of voting or weighted-sum rule
    bases, and the running sums of long sums (:func:`_long_sums`)."""
    num = d.number
    K = len(spec.classes or [])
    binder = _Binder(d, names)
    if spec.task == "regression" and spec.kind in ("average", "sum", "rule-sum"):
        if spec.kind == "rule-sum":
            base = num(spec.default[0]) if spec.default is not None else num(0.0)
            terms = [u.render([num(spec.weights[i] * u.vec[0][0]), num(0.0)]) for i, u in enumerate(spec.units)]
            (total,) = _long_sums(binder, [[base] + terms])
            return binder.value(total)
        (total,) = _inline_sums(binder, spec, 1, lambda i, u: [(0, [v[0] for v in u.vec])],
                                [num(spec.combiner.base_score[0])] if spec.kind == "sum" else [None])
        return binder.value(total if spec.kind == "sum" else f"{total} / {num(float(len(spec.units)))}")
    labels = label_texts(d, spec.classes or [])
    if spec.kind == "average" and spec.f32:
        ks, terms = _average32_terms(spec, K)
        sums = _inline_sums(binder, spec, len(ks), terms, [None] * len(ks))
        if K > 2:
            if d.bind_class_sums and d.bind is not None:
                sums = binder.bind("s", sums)
            return binder.label(lambda marks: argmax(sums, marks), labels)
        if d.bind is not None:
            sums = binder.bind("s", sums)
        return binder.label(lambda m: expr.case([(f"{f32.complement(d, sums[0])} >= {sums[0]}", m[0])], m[1]),
                            labels)
    if spec.task == "classification" and spec.kind in ("average", "vote"):
        if spec.kind == "vote":
            def terms(i, u):
                votes = [int(np.argmax(v)) for v in u.vec]
                return [(k, [1.0 if c == k else 0.0 for c in votes]) for k in range(K)]
        else:
            def terms(i, u):
                return [(k, [v[k] for v in u.vec]) for k in range(K)]
        n = num(float(len(spec.units)))
        sums = _inline_sums(binder, spec, K, terms, [None] * K)
        if d.bind_class_sums and d.bind is not None and K > 2:  # argmax reads each sum k - 1 times
            sums = binder.bind("s", sums)
        return binder.label(lambda marks: argmax([f"({a} / {n})" for a in sums], marks), labels)
    c = spec.combiner
    if spec.kind == "sum" and c.link == "sigmoid" and c.n_outputs == 1:
        (a,) = _inline_sums(binder, spec, 1, lambda i, u: [(0, [v[0] for v in u.vec])], [num(c.base_score[0])])
        if spec.f32:
            if d.bind is not None:
                (a,) = binder.bind("s", [a])
            p1 = f32.sigmoid(d, a)
            if d.bind is not None:
                (p1,) = binder.bind("p", [p1])
            return binder.label(lambda m: expr.case([(f"{f32.complement(d, p1)} >= {p1}", m[0])], m[1]), labels)
        if c.decision in ("raw>=0", "raw>0"):
            return binder.label(lambda m: expr.case([(f"{a} {c.decision[3:-1]} {num(0.0)}", m[1])], m[0]), labels)
        if d.bind is not None:
            (a,) = binder.bind("s", [a])  # read six times below: computed once
        lo, hi = num(-EXP_LIMIT), num(EXP_LIMIT)
        p1 = (f"(CASE WHEN {a} < {lo} THEN {num(0.0)} WHEN {a} > {hi} THEN {num(1.0)} "
              f"ELSE {num(1.0)} / ({num(1.0)} + EXP(-{a})) END)")
        return binder.label(lambda m: expr.case([(f"{num(1.0)} - {p1} >= {p1}", m[0])], m[1]), labels)
    if spec.kind == "sum" and c.link == "softmax" and d.bind is not None:
        outs = c.tree_output or (0,) * len(spec.units)
        sums = _inline_sums(binder, spec, c.n_outputs, lambda i, u: [(outs[i], [v[0] for v in u.vec])],
                            [num(x) for x in c.base_score])
        return _bound_softmax_label(binder, sums, labels, raw=c.decision is not None, f32_link=spec.f32)
    if spec.kind in ("rule-vote", "rule-sum") and d.bind is not None:
        plan = _vote_plan if spec.kind == "rule-vote" else _sum_plan
        width, init, terms = plan(spec, d, K)
        acc = binder.bind("a", _inline_sums(binder, spec, width, terms, init))
        if spec.kind == "rule-sum":
            return binder.label(lambda marks: argmax(acc, marks), labels)
        if spec.task == "regression":
            return binder.value(_vote_result(spec, d, acc, None, [], False)[0])
        return binder.label(lambda marks: _vote_result(spec, d, acc, numpy_sum(acc[:K]), marks, False)[0], labels)
    raise ExportError(f"{d.name} cannot score this ensemble in a bare expression (no correlated subqueries "
                      f"in FROM); pass a table (--table)")


class _Binder:
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
        _check_bare_depth(self.d, len(self.levels))
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


def _bound_softmax_label(binder: _Binder, sums: list[str], labels: list[str], *, raw: bool,
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


def _inline_sums(binder: _Binder, spec: Spec, width: int, terms: Terms, init: list[str | None]) -> list[str]:
    """Each accumulator as one parenthesized left-to-right sum over the units, in unit order.
    Where the dialect binds, walked trees read the row array through a name bound once, and a
    walk feeding several sums is bound once too; otherwise each is written where it is read."""
    d, names = binder.d, binder.names

    def place(features: str) -> str:
        return features if d.bind is None else binder.bind("x", [features])[0]

    walks = _walks(spec, d, names, place) if d.walker else {}
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
    return _long_sums(binder, [parts or [num(0.0)] for parts in sums], f32_sums=spec.f32)


def _long_sums(binder: _Binder, sums: list[list[str]], *, f32_sums: bool = False) -> list[str]:
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


def fold_sum(d: Dialect, names: Names, terms: list[str]) -> str:
    """``terms`` added left to right by the dialect's fold (``Dialect.sum_fold``): a flat list of
    terms, so the expression does not deepen with the number of terms."""
    if len(terms) == 1:
        return terms[0]
    return d.sum_fold.format(first=terms[0], terms=", ".join(terms[1:]), acc=names.internal("f"),
                             x=names.internal("t"))


def _single(spec: Spec, d: Dialect, b: Builder, names: Names, labels: list[str],
            proba: bool) -> tuple[str, list[str]]:
    unit = spec.units[0]
    if spec.task == "regression":
        return unit.render([d.number(v[0]) for v in unit.vec]), []
    label_of = [labels[c] if c >= 0 else "NULL" for c in unit.cls]
    cols = [label_of] + ([[d.number(v[k]) if c >= 0 else "NULL" for v, c in zip(unit.vec, unit.cls)]
                          for k in range(len(labels))] if proba else [])
    if proba and d.pick is not None and not b.bare:
        leaf = names.internal("leaf")
        ids, reps = leaf_ids(unit)
        b.stage([f"{ids} AS {leaf}"], features=False)
        label = pick(d, [label_of[r] for r in reps], leaf)
        if any(unit.cls[r] < 0 for r in reps):  # a rule list without default: NULL probabilities
            return label, [pick(d, [col[r] for r in reps], leaf) for col in cols[1:]]
        return label, [pick_doubles(d, [unit.vec[r][k] for r in reps], leaf) for k in range(len(labels))]
    rendered = [unit.render(col) for col in cols]
    return rendered[0], rendered[1:]


def leaf_ids(unit) -> tuple[str, list[int]]:
    """``unit`` as a CASE giving a 1-based id per distinct payload, and a payload index per id."""
    seen: dict = {}
    texts = []
    for p, (v, c) in enumerate(zip(unit.vec, unit.cls)):
        key = (tuple(float(x).hex() for x in v), c)
        if key not in seen:
            seen[key] = (len(seen) + 1, p)
        texts.append(str(seen[key][0]))
    return unit.render(texts), [p for _, p in seen.values()]


def pick(d: Dialect, values: list[str], index: str) -> str:
    if len(set(values)) == 1:
        return values[0]
    return d.pick.format(values=", ".join(values), index=index)


def pick_doubles(d: Dialect, values: list[float], index: str) -> str:
    if len(set(values)) == 1 or d.pick_doubles is None or not all(math.isfinite(v) for v in values):
        return pick(d, [d.number(v) for v in values], index)  # d.number refuses infinities and NaN
    return d.pick_doubles.format(values=", ".join(semantics.exact17(v) for v in values), index=index)


Terms = Callable[[int, object], list[tuple[int, list[float]]]]


def _accumulate(spec: Spec, d: Dialect, b: Builder, names: Names, width: int, init: list[str | None],
                terms: Terms) -> list[str]:
    """Stages summing every unit's contributions into ``width`` accumulators, in unit order.

    ``terms(i, unit)`` gives (accumulator, value per payload) pairs for unit ``i``. A unit feeding
    several accumulators is evaluated once, as a leaf id, when the dialect can pick a value from a
    list: the ids of batch j+1 are computed in the stage that sums batch j (engines plan deeply
    nested stages slowly, so there are as few as possible). Otherwise it is written once per
    accumulator."""
    acc = [names.internal(f"a{k}") for k in range(width)]
    step = max(1, min(50, d.batch))
    n = len(spec.units)
    if d.stage_leaves and n:
        mean = sum(size(u) for u in spec.units) / n
        step = max(1, min(step, int(d.stage_leaves // max(1.0, mean))))
    if d.max_stages:
        step = max(step, min(d.max_batch, -(-n // d.max_stages)))
    num = d.number
    walks = _walks(spec, d, names, _staged_xs(b, names)) if d.walker and not b.bare else {}
    batches = [range(s, min(n, s + step)) for s in range(0, n, step)] or [range(0)]
    plans = []  # per batch: (id items, per-accumulator terms)
    for batch in batches:
        per: list[list[str]] = [[] for _ in range(width)]
        ids_items: list[str] = []
        for i in batch:
            u = spec.units[i]
            contrib = [(k, vals) for k, vals in terms(i, u) if any(v != 0.0 for v in vals)]  # + 0.0: no-op
            if i in walks and len(contrib) > 1 and d.walker.ahead:
                leaf = names.internal(f"l{i}")
                ids_items.append(f"{walks[i].expr} AS {leaf}")
                for k, vals in contrib:
                    per[k].append(walks[i].pick(u.leaves, vals, num, leaf))
            elif i in walks:
                for k, vals in contrib:
                    per[k].append(walks[i].pick(u.leaves, vals, num))
            elif d.pick is not None and not b.bare and len(contrib) > 1:
                leaf = names.internal(f"l{i}")
                ids, reps = leaf_ids(u)
                ids_items.append(f"{ids} AS {leaf}")
                for k, vals in contrib:
                    per[k].append(pick_doubles(d, [vals[r] for r in reps], leaf))
            else:
                for k, vals in contrib:
                    per[k].append(u.render([num(v) for v in vals]))
        plans.append((ids_items, per))
    if plans and plans[0][0]:
        b.stage(plans[0][0], features=True)
    # an engine that merges the stages sees one sum over every unit: fold it when it is long
    fold = d.sum_fold is not None and n > d.bare_sum
    chained = spec.f32 and f32.chained(d)
    for j, (_, per) in enumerate(plans):
        items = []
        sums: list[list[str]] = []  # chained: the terms of each sum, summed in one-row tables
        for k in range(width):
            if j == 0:
                parts = ([init[k]] if init[k] is not None else []) + per[k] or [num(0.0)]
            elif per[k]:
                parts = [acc[k]] + per[k]
            else:
                items.append(acc[k])
                continue
            if chained:
                sums.append(parts)
                items.append(len(sums) - 1)  # placeholder: the sum's reference, below
                continue
            if spec.f32:
                total = f32.fold(d, names, parts) if fold else f32.add(d, parts)
            else:
                total = fold_sum(d, names, parts) if fold else expr.sum_terms(parts)
            items.append(f"{total} AS {acc[k]}")
        tables: list[tuple[str, str]] = []
        if sums:
            tables, refs = f32.chain(d, names, sums, str(j))
            items = [f"{refs[it]} AS {acc[k]}" if isinstance(it, int) else it for k, it in enumerate(items)]
        last = j == len(plans) - 1
        b.stage(items + ([] if last else plans[j + 1][0]), features=not last, tables=tables)
    return acc


def _walks(spec: Spec, d: Dialect, names: Names, place: Callable[[str], str]) -> dict[int, Walk]:
    """Walks for the trees the dialect walks, reading ``xs``, the array of the features they test:
    ``place(array expression)`` says where it is computed once and returns how the walks read it."""
    trees = [i for i, u in enumerate(spec.units) if isinstance(u, TreeUnit) and walkable(u.tree, d.walker)]
    if not trees:
        return {}
    used = sorted({info[1][1] for i in trees for info in spec.units[i].tree.info.values()})
    slot = {j: p + 1 for p, j in enumerate(used)}
    cols = spec.units[trees[0]].tree.cols.names
    xs = place(d.walker.features([cols[j] for j in used]))
    var = (names.internal("n"), names.internal("i"))
    return {i: Walk(spec.units[i].tree, slot, xs, var, d.walker) for i in trees}


def _staged_xs(b: Builder, names: Names) -> Callable[[str], str]:
    """``xs`` as a column of its own stage, carried through the following stages."""
    def place(features: str) -> str:
        xs = names.internal("xs")
        b.stage([f"{features} AS {xs}"], features=True)
        b.carry = b.carry + [xs]
        return xs
    return place


def _ensemble(spec: Spec, d: Dialect, b: Builder, names: Names, labels: list[str],
              proba: bool) -> tuple[str, list[str]]:
    kind = spec.kind
    K = len(labels)
    num = d.number
    if kind == "average" and spec.f32:
        return _average32(spec, d, b, names, labels, proba)
    if kind in ("average", "vote"):
        width = K if spec.task == "classification" else 1
        if kind == "vote":
            def terms(i, u):
                votes = [int(np.argmax(v)) for v in u.vec]  # each tree votes for its argmax class
                return [(k, [1.0 if c == k else 0.0 for c in votes]) for k in range(width)]
        else:
            def terms(i, u):
                return [(k, [v[k] for v in u.vec]) for k in range(width)]
        acc = _accumulate(spec, d, b, names, width, [None] * width, terms)
        n = num(float(len(spec.units)))
        if spec.task == "regression":
            return f"{acc[0]} / {n}", []
        p = [names.internal(f"p{k}") for k in range(K)]
        b.stage([f"{a} / {n} AS {pk}" for a, pk in zip(acc, p)], features=False)
        return argmax(p, labels), p if proba else []
    if kind == "sum":
        c = spec.combiner
        width = c.n_outputs
        outs = c.tree_output or (0,) * len(spec.units)

        def terms(i, u):
            return [(outs[i], [v[0] for v in u.vec])]

        acc = _accumulate(spec, d, b, names, width, [num(x) for x in c.base_score], terms)
        if spec.task == "regression":
            return acc[0], []
        decision = c.decision  # sklearn boosting labels from the raw score
        if spec.f32:
            return _staged_link32(d, b, names, acc, labels, proba, c.link)
        if c.link == "sigmoid":
            a = acc[0]
            p1 = names.internal("p1")
            lo, hi = num(-EXP_LIMIT), num(EXP_LIMIT)
            sig = (f"CASE WHEN {a} < {lo} THEN {num(0.0)} WHEN {a} > {hi} THEN {num(1.0)} "
                   f"ELSE {num(1.0)} / ({num(1.0)} + EXP(-{a})) END")
            b.stage([a, f"{sig} AS {p1}"], features=False)
            p0 = f"{num(1.0)} - {p1}"
            if decision == "raw>=0":
                pred = expr.case([(f"{a} >= {num(0.0)}", labels[1])], labels[0])
            elif decision == "raw>0":
                pred = expr.case([(f"{a} > {num(0.0)}", labels[1])], labels[0])
            else:
                pred = expr.case([(f"{p0} >= {p1}", labels[0])], labels[1])
            return pred, [p0, p1] if proba else []
        # softmax
        m = names.internal("m")
        b.stage(acc + [f"{d.max_of(acc)} AS {m}"], features=False)
        e = [names.internal(f"e{k}") for k in range(K)]
        b.stage(acc + [f"EXP({clamp(d, f'{a} - {m}')}) AS {ek}" for a, ek in zip(acc, e)], features=False)
        s = names.internal("sum")
        b.stage(acc + e + [f"{numpy_sum(e)} AS {s}"], features=False)
        p = [names.internal(f"p{k}") for k in range(K)]
        b.stage(acc + [f"{ek} / {s} AS {pk}" for ek, pk in zip(e, p)], features=False)
        pred = argmax(acc if decision is not None else p, labels)
        return pred, p if proba else []
    if kind == "rule-vote":
        return _rule_vote(spec, d, b, names, labels, proba)
    if kind == "rule-sum":
        return _rule_sum(spec, d, b, names, labels, proba)
    raise ExportError(f"cannot export a {kind!r} combiner to SQL")


def _average32_terms(spec: Spec, K: int) -> tuple[list[int], Terms]:
    """An ``average`` classifier with float32 arithmetic: the classes summed (class 1 alone for two
    classes) and each unit's terms ``float32(v / n)`` (:func:`rulekit.ir.float32.average32`)."""
    n = len(spec.units)
    ks = [1] if K == 2 else list(range(K))

    def terms(i, u):
        return [(q, [float(np.float32(v[k] / n)) for v in u.vec]) for q, k in enumerate(ks)]
    return ks, terms


def _average32(spec: Spec, d: Dialect, b: Builder, names: Names, labels: list[str],
               proba: bool) -> tuple[str, list[str]]:
    """Float32 sums of ``float32(v / n)`` in unit order; two classes ``[1 - s, s]`` in float32."""
    ks, terms = _average32_terms(spec, len(labels))
    acc = _accumulate(spec, d, b, names, len(ks), [None] * len(ks), terms)
    if len(labels) > 2:
        return argmax(acc, labels), acc if proba else []
    p0 = names.internal("p0")
    b.stage([acc[0], f"{f32.complement(d, acc[0])} AS {p0}"], features=False)
    return expr.case([(f"{p0} >= {acc[0]}", labels[0])], labels[1]), [p0, acc[0]] if proba else []


def _staged_link32(d: Dialect, b: Builder, names: Names, acc: list[str], labels: list[str], proba: bool,
                   link: str) -> tuple[str, list[str]]:
    """Sigmoid or softmax of float32 margins in float32 (:mod:`rulekit.exporters.sql.float32`);
    the label is the first most probable class, as the model's argmax of its probabilities."""
    if link == "sigmoid":
        p1 = names.internal("p1")
        b.stage([f"{f32.sigmoid(d, acc[0])} AS {p1}"], features=False)
        p0 = names.internal("p0")
        b.stage([p1, f"{f32.complement(d, p1)} AS {p0}"], features=False)
        return expr.case([(f"{p0} >= {p1}", labels[0])], labels[1]), [p0, p1] if proba else []
    m = names.internal("m")
    b.stage(acc + [f"{d.max_of(acc)} AS {m}"], features=False)
    e = [names.internal(f"e{k}") for k in range(len(acc))]
    b.stage([f"{x} AS {ek}" for x, ek in zip(f32.exps(d, acc, m), e)], features=False)
    p = [names.internal(f"p{k}") for k in range(len(acc))]
    b.stage([f"{x} AS {pk}" for x, pk in zip(f32.ratios(d, e, expr.sum_terms(e)), p)], features=False)
    return argmax(p, labels), p if proba else []


def _vote_plan(spec, d: Dialect, K: int) -> tuple[int, list[str | None], Terms]:
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


def _vote_result(spec, d: Dialect, acc: list[str], tot: str | None, labels: list[str], proba: bool):
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


def _rule_vote(spec, d, b, names, labels, proba):
    width, init, terms = _vote_plan(spec, d, len(labels))
    acc = _accumulate(spec, d, b, names, width, init, terms)
    tot = None
    if spec.task == "classification":
        tot = names.internal("tot")
        b.stage(acc + [f"{numpy_sum(acc[:len(labels)])} AS {tot}"], features=False)
    return _vote_result(spec, d, acc, tot, labels, proba)


def _sum_plan(spec, d: Dialect, K: int) -> tuple[int, list[str | None], Terms]:
    """Accumulators of a weighted-sum rule base: per output the default plus weighted conclusions."""
    w = spec.weights
    width = len(spec.default) if spec.default is not None else max(1, K)
    base = spec.default if spec.default is not None else (0.0,) * width

    def terms(i, u):
        return [(k, [w[i] * u.vec[0][k], 0.0]) for k in range(width) if w[i] * u.vec[0][k] != 0.0]

    return width, [d.number(x) for x in base], terms


def _rule_sum(spec, d, b, names, labels, proba):
    num = d.number
    width, init, terms = _sum_plan(spec, d, len(labels))
    acc = _accumulate(spec, d, b, names, width, init, terms)
    if spec.task == "regression":
        return acc[0], []
    s = names.internal("tot")
    b.stage(acc + [f"{numpy_sum(acc)} AS {s}"], features=False)
    pred = argmax(acc, labels)
    probs = [expr.case([(f"{s} > {num(0.0)}", f"{a} / {s}")], num(0.0)) for a in acc] if proba else []
    return pred, probs


__all__ = ["build", "model_spec", "rules_spec"]
