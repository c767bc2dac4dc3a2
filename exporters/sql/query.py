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

What each tree adds and how the sums end (scale, link, label rule) come from
:mod:`rulekit.semantics.combiners` through :mod:`.spec`; :mod:`.stages` places the sums,
:mod:`.links` spells the last steps, :mod:`.inline` writes the bare expression.
"""

from __future__ import annotations

from rulekit.errors import ExportError
from rulekit.exporters.sql import expr
from rulekit.exporters.sql import float32 as f32
from rulekit.exporters.sql.dialect import Dialect
from rulekit.exporters.sql.inline import inline
from rulekit.exporters.sql.links import (  # noqa: F401 - argmax, numpy_sum, clamp, EXP_LIMIT: their old home
    EXP_LIMIT,
    argmax,
    clamp,
    label_texts,
    numpy_sum,
    raw_label,
    sigmoid,
    vote_result,
)
from rulekit.exporters.sql.names import PREDICTION, PROBA_PREFIX, Names
from rulekit.exporters.sql.spec import Spec, model_spec, rules_spec, sum_plan, tree_terms, vote_plan
from rulekit.exporters.sql.stages import (  # noqa: F401
    StagedQuery, accumulate, fold_sum, leaf_ids, pick, pick_doubles)
from rulekit.ir.model import Model


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
    b = StagedQuery(d, names, carry)
    labels = label_texts(d, classes) if spec.task == "classification" else []
    if spec.kind == "single":
        pred, probs = _single(spec, d, b, names, labels, proba)
    else:
        if b.bare and not d.correlated_from:
            return inline(spec, d, names)
        pred, probs = _ensemble(spec, d, b, names, labels, proba)
    items = [f"{pred} AS {names.outputs[0]}"] + [f"{p} AS {n}" for p, n in zip(probs, names.outputs[1:])]
    if b.bare:
        return b.select([pred])
    c = obj.combiner
    float64_sums = c is not None and c.arithmetic == "float32" and not spec.f32
    return (f32.header(d, c.kind) if float64_sums else "") + b.select(items)


def _single(spec: Spec, d: Dialect, b: StagedQuery, names: Names, labels: list[str],
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


def _ensemble(spec: Spec, d: Dialect, b: StagedQuery, names: Names, labels: list[str],
              proba: bool) -> tuple[str, list[str]]:
    kind = spec.kind
    K = len(labels)
    num = d.number
    if kind == "rule-vote":
        return _rule_vote(spec, d, b, names, labels, proba)
    if kind == "rule-sum":
        return _rule_sum(spec, d, b, names, labels, proba)
    red = spec.reduction
    if red is None or kind not in ("average", "vote", "sum"):
        raise ExportError(f"cannot export a {kind!r} combiner to SQL")
    if red.scale == "term" and spec.f32:
        return _average32(spec, d, b, names, labels, proba)
    if kind in ("average", "vote"):
        width = len(red.summed)
        acc = accumulate(spec, d, b, names, width, [None] * width, tree_terms(spec))
        n = num(float(red.n_trees))
        if spec.task == "regression":
            return f"{acc[0]} / {n}", []
        p = [names.internal(f"p{k}") for k in range(K)]
        b.stage([f"{a} / {n} AS {pk}" for a, pk in zip(acc, p)], features=False)
        return argmax(p, labels), p if proba else []
    acc = accumulate(spec, d, b, names, red.width, [num(x) for x in red.base], tree_terms(spec))
    if spec.task == "regression":
        return acc[0], []
    raw = red.label != "argmax"  # the label from the raw scores (scikit-learn's boosting)
    if spec.f32:
        return _staged_link32(d, b, names, acc, labels, proba, red)
    if red.link == "sigmoid":
        a = acc[0]
        p1 = names.internal("p1")
        b.stage([a, f"{sigmoid(d, a)} AS {p1}"], features=False)
        p0 = f"{num(1.0)} - {p1}"
        pred = raw_label(d, red, acc, labels) if raw else expr.case([(f"{p0} >= {p1}", labels[0])], labels[1])
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
    pred = raw_label(d, red, acc, labels) if raw else argmax(p, labels)
    return pred, p if proba else []


def _average32(spec: Spec, d: Dialect, b: StagedQuery, names: Names, labels: list[str],
               proba: bool) -> tuple[str, list[str]]:
    """Float32 sums of ``float32(v / n)`` in unit order; two classes ``[1 - s, s]`` in float32."""
    width = len(spec.reduction.summed)
    acc = accumulate(spec, d, b, names, width, [None] * width, tree_terms(spec))
    if spec.reduction.link != "complement":
        return argmax(acc, labels), acc if proba else []
    p0 = names.internal("p0")
    b.stage([acc[0], f"{f32.complement(d, acc[0])} AS {p0}"], features=False)
    return expr.case([(f"{p0} >= {acc[0]}", labels[0])], labels[1]), [p0, acc[0]] if proba else []


def _staged_link32(d: Dialect, b: StagedQuery, names: Names, acc: list[str], labels: list[str], proba: bool,
                   red) -> tuple[str, list[str]]:
    """Sigmoid or softmax of float32 margins in float32 (:mod:`rulekit.exporters.sql.float32`);
    the label is the first most probable class, or the raw-score rule (then the margins are
    carried to the last stage)."""
    raw = red.label != "argmax"
    keep = acc if raw else []
    if red.link == "sigmoid":
        p1 = names.internal("p1")
        b.stage(keep + [f"{f32.sigmoid(d, acc[0])} AS {p1}"], features=False)
        p0 = names.internal("p0")
        b.stage(keep + [p1, f"{f32.complement(d, p1)} AS {p0}"], features=False)
        pred = raw_label(d, red, acc, labels) if raw else expr.case([(f"{p0} >= {p1}", labels[0])], labels[1])
        return pred, [p0, p1] if proba else []
    m = names.internal("m")
    b.stage(acc + [f"{d.max_of(acc)} AS {m}"], features=False)
    e = [names.internal(f"e{k}") for k in range(len(acc))]
    b.stage(keep + [f"{x} AS {ek}" for x, ek in zip(f32.exps(d, acc, m), e)], features=False)
    p = [names.internal(f"p{k}") for k in range(len(acc))]
    b.stage(keep + [f"{x} AS {pk}" for x, pk in zip(f32.ratios(d, e, expr.sum_terms(e)), p)], features=False)
    return raw_label(d, red, acc, labels) if raw else argmax(p, labels), p if proba else []


def _rule_vote(spec, d, b, names, labels, proba):
    width, init, terms = vote_plan(spec, d, len(labels))
    acc = accumulate(spec, d, b, names, width, init, terms)
    tot = None
    if spec.task == "classification":
        tot = names.internal("tot")
        b.stage(acc + [f"{numpy_sum(acc[:len(labels)])} AS {tot}"], features=False)
    return vote_result(spec, d, acc, tot, labels, proba)


def _rule_sum(spec, d, b, names, labels, proba):
    num = d.number
    width, init, terms = sum_plan(spec, d, len(labels))
    acc = accumulate(spec, d, b, names, width, init, terms)
    if spec.task == "regression":
        return acc[0], []
    s = names.internal("tot")
    b.stage(acc + [f"{numpy_sum(acc)} AS {s}"], features=False)
    pred = argmax(acc, labels)
    probs = [expr.case([(f"{s} > {num(0.0)}", f"{a} / {s}")], num(0.0)) for a in acc] if proba else []
    return pred, probs


__all__ = ["build", "model_spec", "rules_spec"]
