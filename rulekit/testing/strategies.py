"""Hypothesis strategies for RuleBases: valid, varied and hostile (names, labels, numbers, nesting).

For round-trip tests of every exporter as well as the DSL::

    from hypothesis import given
    from rulekit.testing.strategies import rule_bases

    @given(rule_bases())
    def test_round_trip(rb): ...

Every generated rule base is *valid*: features are unique, nominal values come from their domains,
labels from the classes, distributions have one entry per class, thresholds are never NaN.
``strict_repr`` tells apart what ``==`` does not (``1`` vs ``1.0`` vs ``True``, ``0.0`` vs ``-0.0``).
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from rulekit.ir.model import Combiner, Feature
from rulekit.rules.base import And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or, Rule, RuleBase

#: every word of the rule DSL, plus names that are hard to write in any language
HOSTILE_NAMES = (
    "and", "or", "not", "if", "then", "true", "false", "inf", "nan", "is", "in", "missing", "value",
    "label", "nothing", "weight", "with", "group", "default", "feature", "target", "rulebase",
    "semantics", "precision", "combiner", "classes", "numeric", "nominal", "classification",
    "regression", "vote", "sum", "single", "average", "link", "identity", "sigmoid", "softmax",
    "base_score", "tree_output", "decision", "raw", "match", "exact", "truncate", "float32", "float64",
    "first", "first-hit", "weighted-sum", "Age", "age", "AGE", "order date", "it's", 'say "hi"',
    "back\\slash", "trailing\\", "new\nline", "cr\rreturn", "tab\there", "", " ", "  lead", "trail ",
    "1st", "42", "-1", "1.5", "1e5", "a.b", "a..b", "a.", ".a", "x-y", "x+y", "a*b", "a:b", "#hash",
    "{set}", "[list]", "(paren)", "a=b", "é", "âge", "年齢", "Ωmega", "emoji 🎉", "zero\x00byte",
    "\x7f", "\u2028sep", "\ufeffbom", "\ud800", "\\u{41}", "'", '"', "''", "x'y'z", "SELECT",
)

#: ordinary names, so that generated rule bases also look like real ones
PLAIN_NAMES = ("a", "b", "c", "x", "y", "x1", "x_2", "age", "income", "colour", "petal.length", "r1", "yes",
               "no", "setosa", "Sunny", "t0_r12")
_plain_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=10)
names = st.one_of(st.sampled_from(HOSTILE_NAMES), st.sampled_from(PLAIN_NAMES), _plain_text)
#: float64 values including infinities, -0.0 and subnormals, never NaN
floats = st.floats(allow_nan=False)
ints = st.integers(min_value=-(10**18), max_value=10**18)
labels = st.one_of(names, ints, floats, st.booleans())
domain_values = st.one_of(names, ints)
comment_texts = st.one_of(
    st.sampled_from(["", "note", "  indented", "# double", "if x > 3 then yes", "ünïcödé ✓", "tab\tin"]),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\n"),
            max_size=20).filter(lambda t: t == t.rstrip()))


def _typed_key(v):
    return (type(v), v)


def _unique(values):
    seen, out = set(), []
    for v in values:
        k = _typed_key(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return tuple(out)


_AT_MINUS_INF = {"<": "<=", ">=": ">"}


def _exact(op: str, value: float) -> tuple[str, float]:
    """``x < -inf`` and ``x >= -inf`` are refused (no canonical test says them,
    ``rulekit.semantics.thresholds.MinusInfinityTest``): drawn there, the strategy writes ``<=``/``>``."""
    return (_AT_MINUS_INF.get(op, op), value) if value == -math.inf else (op, value)


@st.composite
def features(draw, min_size: int = 1, max_size: int = 6) -> tuple[Feature, ...]:
    fnames = draw(st.lists(names, min_size=min_size, max_size=max_size, unique=True))
    out = []
    for n in fnames:
        if draw(st.booleans()):
            out.append(Feature(name=n))
        else:
            dom = _unique(draw(st.lists(domain_values, max_size=5)))
            match = draw(st.sampled_from([None, None, "truncate", "exact"]))
            out.append(Feature(name=n, kind="nominal", domain=dom, match=match))
    return tuple(out)


def _literal(draw, feats):
    f = draw(st.sampled_from(feats))
    numeric = [g for g in feats if g.kind == "numeric"]
    kind = draw(st.sampled_from(["cmp", "cmp", "cmp", "missing", "set", "linear"]))
    if kind == "missing":
        return IsMissing(feature=f.name, negated=draw(st.booleans()))
    if kind == "linear" and numeric:
        terms = draw(st.lists(st.tuples(floats, st.sampled_from([g.name for g in numeric])),
                              min_size=1, max_size=3))
        op, value = _exact(draw(st.sampled_from(["<", "<=", ">", ">="])), draw(floats))
        return Linear(terms=tuple(terms), op=op, value=value)
    if f.kind == "numeric":
        op, value = _exact(draw(st.sampled_from(["<", "<=", ">", ">=", "=", "!="])), draw(floats))
        return Compare(feature=f.name, op=op, value=value)
    if kind == "set" or not f.domain:
        vals = draw(st.lists(st.sampled_from(f.domain), max_size=4)) if f.domain else []
        return InSet(feature=f.name, values=tuple(vals), negated=draw(st.booleans()))
    return Compare(feature=f.name, op=draw(st.sampled_from(["=", "!="])), value=draw(st.sampled_from(f.domain)))


@st.composite
def conditions(draw, feats, max_depth: int = 4):
    """A condition over ``feats``: literals, and/or (0-4 items), not; chains of bounds included."""
    def node(depth):
        r = draw(st.integers(0, 9)) if depth < max_depth else 0
        if r <= 4:
            return _literal(draw, feats)
        if r == 5:
            return Not(item=node(depth + 1))
        if r == 6:  # a bound pair that prints as a chain: lo < x <= hi
            numeric = [g for g in feats if g.kind == "numeric"]
            if numeric:
                g = draw(st.sampled_from(numeric)).name
                lo_op, lo = _exact(draw(st.sampled_from([">", ">="])), draw(floats))
                hi_op, hi = _exact(draw(st.sampled_from(["<", "<="])), draw(floats))
                return And(items=(Compare(feature=g, op=lo_op, value=lo), Compare(feature=g, op=hi_op, value=hi),
                                  *[node(depth + 1) for _ in range(draw(st.integers(0, 2)))]))
        n = draw(st.integers(0, 4))
        items = tuple(node(depth + 1) for _ in range(n))
        return (And if r in (7, 8) else Or)(items=items)
    return node(0)


@st.composite
def conclusions(draw, task, classes):
    if draw(st.integers(0, 15)) == 0:
        return Conclusion()
    kw = {}
    if task == "classification":
        if draw(st.integers(0, 4)):
            kw["label"] = draw(st.sampled_from(classes)) if classes else draw(labels)
        if draw(st.booleans()):
            n = len(classes) if classes is not None else draw(st.integers(0, 4))
            kw["distribution"] = tuple(draw(st.lists(floats, min_size=n, max_size=n)))
        if draw(st.integers(0, 3)) == 0 or not kw:
            kw["value"] = draw(floats)
    else:
        kw["value"] = draw(floats)
        if draw(st.integers(0, 10)) == 0:
            kw["label"] = draw(labels)
    return Conclusion(**kw)


@st.composite
def rules(draw, task, classes, feats):
    kw = {"condition": draw(conditions(feats)), "conclusion": draw(conclusions(task, classes))}
    if draw(st.booleans()):
        kw["id"] = draw(st.one_of(names, st.integers(0, 10**6).map(str), st.integers(0, 999).map("r{}".format)))
    if draw(st.integers(0, 4)) == 0:
        kw["weight"] = draw(floats)
    if draw(st.integers(0, 3)) == 0:
        kw["group"] = draw(st.integers(-3, 50))
    if draw(st.integers(0, 2)) == 0:
        kw["stats"] = draw(st.dictionaries(names, floats, max_size=3))
    if draw(st.integers(0, 3)) == 0:
        kw["comments"] = tuple(draw(st.lists(comment_texts, max_size=3)))
    if draw(st.integers(0, 4)) == 0:
        kw["trailing_comment"] = draw(comment_texts)
    return Rule(**kw)


@st.composite
def combiners(draw):
    kind = draw(st.sampled_from(["single", "average", "vote", "sum"]))
    kw = {"kind": kind, "link": draw(st.sampled_from(["identity", "sigmoid", "softmax"]))}
    if draw(st.booleans()):
        kw["base_score"] = tuple(draw(st.lists(floats, max_size=3)))
    if draw(st.booleans()):
        kw["tree_output"] = tuple(draw(st.lists(st.integers(0, 5), max_size=4)))
    if draw(st.booleans()):
        kw["decision"] = draw(st.sampled_from(["raw>=0", "raw>0"]))
    return Combiner(**kw)


@st.composite
def rule_bases(draw, max_rules: int = 6) -> RuleBase:
    task = draw(st.sampled_from(["classification", "regression"]))
    classes = None
    if task == "classification" and draw(st.integers(0, 5)):
        classes = _unique(draw(st.lists(labels, min_size=1, max_size=5)))
    elif task == "regression" and draw(st.integers(0, 10)) == 0:
        classes = _unique(draw(st.lists(labels, max_size=3)))
    feats = draw(features())
    rs = draw(st.lists(rules(task, classes, feats), max_size=max_rules))
    kw = dict(task=task, target=draw(names), classes=classes, features=feats, rules=tuple(rs),
              name=draw(names), semantics=draw(st.sampled_from(["first-hit", "vote", "weighted-sum"])),
              precision=draw(st.sampled_from(["float32", "float64"])))
    if draw(st.booleans()):
        kw["default"] = draw(conclusions(task, classes))
    if draw(st.integers(0, 3)) == 0:
        kw["combiner"] = draw(combiners())
    if draw(st.integers(0, 3)) == 0:
        kw["comments"] = tuple(draw(st.lists(comment_texts, max_size=3)))
    if draw(st.integers(0, 5)) == 0:
        kw["footer_comments"] = tuple(draw(st.lists(comment_texts, min_size=1, max_size=2)))
    return RuleBase(**kw)


def strict_repr(rb: RuleBase) -> str:
    """A text that differs whenever two rule bases differ in any value or its type (or -0.0)."""
    return repr(rb.model_dump())


__all__ = ["HOSTILE_NAMES", "comment_texts", "conclusions", "conditions", "features", "floats",
           "labels", "names", "rule_bases", "rules", "strict_repr"]
