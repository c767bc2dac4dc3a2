"""A PMML ``TreeModel`` -> one rulekit tree graph, exactly.

PMML evaluates a node's children in order and enters the first whose predicate is TRUE. A predicate
on a missing value is UNKNOWN, and the tree's ``missingValueStrategy`` says what then happens:
``none`` treats it as FALSE (the next child is tried), ``defaultChild`` enters the node's default
child, ``lastPrediction`` returns the node's own score; ``nullPrediction`` returns nothing, which a
rulekit model cannot express (refused, naming the element, unless the caller vouches that no value
is ever missing). When no child is TRUE, ``noTrueChildStrategy`` returns the node's score
(``returnLastPrediction``) or nothing (refused where it can happen).

Each PMML test becomes rulekit splits with three exits (true, false, unknown): one numeric or
nominal split when the unknown exit is one of the other two, else a missing-value check first. A
child reached on more than one path (a default child, the rest of a compound predicate) is copied,
so the result is a tree; ``max_nodes`` bounds the copying. Built with an explicit work stack.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rulekit.importers.folding_bounds import largest_passing
from rulekit.importers.pmml_fields import FieldRef, Schema, apply_steps, label_value, parse_float32
from rulekit.importers.pmml_xml import Where, child, children, etree, local
from rulekit.ir.tree import TreeBuilder

MAX_NODES = 200_000  # ~5 s of building; a bigger tree is refused
PREDICATES = ("SimplePredicate", "SimpleSetPredicate", "CompoundPredicate", "True", "False")
_OPS = {  # PMML operator -> (rulekit op, exit when the test holds: "T" or "F" on branch 0)
    "lessOrEqual": ("<=", True), "lessThan": ("<", True),
    "greaterThan": ("<=", False), "greaterOrEqual": ("<", False),
}


@dataclass(frozen=True, eq=False)
class TreeContext:
    """How one tree is read: its strategies, leaf value kind and the scale Targets put on scores."""

    el: etree._Element
    missing: str = "none"
    no_true: str = "returnNullPrediction"
    classes: tuple | None = None  # classification: leaves are distributions over these
    class_type: str = "string"
    scale: float = 1.0  # Targets' rescaleFactor, or a weighted average's weight, on every leaf
    float32: bool = False  # x-mathContext="float": scores are float32 values
    assume_complete: bool = False
    onehot: bool = False  # a (weighted) majority vote: a leaf is its predicted class, one-hot, times scale


def predicate_of(el: etree._Element, where: Where) -> etree._Element:
    for c in el.iterchildren(etree.Element):
        if local(c) in PREDICATES:
            return c
    raise where.error(el, f"<{local(el)}> has no predicate")


class GraphMaker:
    """Turns descriptors (what to evaluate next) into rulekit nodes, one work stack per tree."""

    def __init__(self, schema: Schema, where: Where, max_nodes: int | None = None):
        self._kids: dict = {}
        self._class_indexes: dict = {}
        self._labels: dict = {}
        self.schema = schema
        self.where = where
        self.max_nodes = MAX_NODES if max_nodes is None else max_nodes

    # --- entry points -------------------------------------------------------------------------
    def tree(self, root: etree._Element, ctx: TreeContext):
        """The graph of a TreeModel's root Node (its own predicate must be True)."""
        pred = predicate_of(root, self.where)
        if local(pred) != "True":
            raise self.where.error(pred, "the root <Node> of a TreeModel must have the predicate <True/>")
        return self._run(("node", root, ctx), ctx.el)

    # --- the work loop ------------------------------------------------------------------------
    def _run(self, start, where_el):
        self.b = TreeBuilder()
        stack = [(start, None, 0, None)]
        while stack:
            desc, parent, branch, values = stack.pop()
            self._emit(desc, parent, branch, values, stack)
            if self.b._next > self.max_nodes:
                raise self.where.error(where_el, f"this model grows past {self.max_nodes} rulekit nodes (a "
                                                 f"node reached on several paths is copied on each: default "
                                                 f"children, compound predicates, the rest of a rule list)")
        return self.b.graph

    def _link(self, node: int, parent, branch, values) -> int:
        if parent is not None:
            self.b.connect(parent, node, branch, values)
        return node

    def _emit(self, desc, parent, branch, values, stack) -> None:
        kind = desc[0]
        if kind == "node":
            _, el, ctx = desc
            kids = children(el, "Node")
            stack.append((("chain", el, 0, ctx) if kids else ("leaf", el, ctx), parent, branch, values))
        elif kind == "chain":
            self._chain(desc, parent, branch, values, stack)
        elif kind == "leaf":
            _, el, ctx = desc
            self._link(self.b.leaf(self._leaf_value(el, ctx)), parent, branch, values)
        elif kind == "value":
            self._link(self.b.leaf(desc[1]), parent, branch, values)
        elif kind == "null":
            raise self.where.error(desc[1], desc[2])
        elif kind in ("pred", "and", "or", "surrogate") and desc[2] == desc[3] == desc[4]:
            stack.append((desc[2], parent, branch, values))  # every outcome leads to the same place
        elif kind == "pred":
            self._predicate(desc, parent, branch, values, stack)
        elif kind in ("and", "or", "surrogate"):
            self._compound(desc, parent, branch, values, stack)
        elif kind == "cmp":
            self._compare(desc, parent, branch, values, stack)
        elif kind == "nominal":
            self._nominal(desc, parent, branch, values, stack)
        elif kind == "ismissing":
            self._is_missing(desc, parent, branch, values, stack)
        else:  # pragma: no cover - a descriptor this module made
            raise AssertionError(kind)

    # --- PMML tree semantics ------------------------------------------------------------------
    def _chain(self, desc, parent, branch, values, stack) -> None:
        _, el, i, ctx = desc
        kids = self._kids.get(el)
        if kids is None:
            kids = self._kids[el] = children(el, "Node")
        if i == len(kids):
            if ctx.no_true == "returnLastPrediction" and el.get("score") is not None:
                stack.append((("leaf", el, ctx), parent, branch, values))
                return
            raise self.where.error(el, f"a row can reach this <Node> and find no true child: "
                                       f"noTrueChildStrategy={ctx.no_true!r} gives no prediction there, "
                                       f"which a rulekit model cannot express")
        kid = kids[i]
        if i == len(kids) - 1 and (i > 0 or el.get("defaultChild") == kid.get("id")) and \
                self._end_unreachable(el, kids, ctx):
            # the last child is the 'else' (a missing F took the default child at the first test)
            stack.append((("node", kid, ctx), parent, branch, values))
            return
        pred = predicate_of(kid, self.where)
        true_d = ("node", kid, ctx)
        if i + 1 < len(kids) and _complements(pred, predicate_of(kids[i + 1], self.where), self):
            # a binary split written as p, not p: FALSE on a value means the next child is TRUE
            false_d = ("node", kids[i + 1], ctx)
            unknown_d = self._unknown(el, ctx, ("chain", el, i + 2, ctx))
        else:
            false_d = ("chain", el, i + 1, ctx)
            unknown_d = self._unknown(el, ctx, false_d)
        stack.append((("pred", pred, true_d, false_d, unknown_d), parent, branch, values))

    def _end_unreachable(self, el, kids, ctx: TreeContext) -> bool:
        """Whether no row with a valid value can pass every child of ``el``: its children test one
        categorical field F (a missing F takes the default child at the first of them) and their
        categories cover every category the path to ``el`` lets through, as sklearn2pmml writes
        HistGradientBoosting's categorical splits. An ancestor's test on F counts only if every
        sibling before it tests F too (else a missing other field may enter it by default)."""
        if ctx.missing != "defaultChild":
            return False
        preds = [predicate_of(k, self.where) for k in kids]
        field = preds[0].get("field")
        ref = self.schema.refs.get(field) if field is not None else None
        if ref is None or ref.precision != "nominal" or ref.mapping is not None:
            return False
        covered: frozenset = frozenset()
        for p in preds:
            codes = _category_codes(p, self) if p.get("field") == field else None
            if codes is None:
                return False
            covered |= codes
        allowed = frozenset(range(len(self.schema.features[ref.index].domain or ())))
        node = el
        while node is not None and local(node) == "Node":
            up = node.getparent()
            own = predicate_of(node, self.where)
            codes = _category_codes(own, self) if own.get("field") == field else None
            if codes is not None and up is not None and local(up) == "Node":
                sibs = children(up, "Node")
                before = sibs[: sibs.index(node) + 1]
                if all(predicate_of(b, self.where).get("field") == field for b in before):
                    allowed &= codes
            node = up
        return not (allowed - covered)

    def _unknown(self, el, ctx: TreeContext, false_d):
        strategy = ctx.missing
        if strategy == "none" or (strategy == "nullPrediction" and ctx.assume_complete):
            return false_d
        if strategy == "defaultChild":
            target = el.get("defaultChild")
            kid = next((k for k in children(el, "Node") if k.get("id") == target), None)
            if kid is None:
                return ("null", el, (f"missingValueStrategy='defaultChild' but this <Node> has no "
                                    f"default child (defaultChild={target!r})"))
            return ("node", kid, ctx)
        if strategy == "lastPrediction":
            if el.get("score") is None and child(el, "ScoreDistribution") is None:
                return ("null", el, "missingValueStrategy='lastPrediction' at a <Node> without a score")
            return ("leaf", el, ctx)
        if strategy == "nullPrediction":
            return ("null", ctx.el, ("missingValueStrategy='nullPrediction': a missing value makes this "
                                    "model return no prediction, which a rulekit model cannot express "
                                    "('rulekit import --assume-complete' or load_file(..., assume_complete=True) "
                                    "reads it for data without missing values)"))
        return ("null", ctx.el, (f"missingValueStrategy={strategy!r} cannot be expressed by rulekit's "
                                f"missing-value routing"))

    def _leaf_value(self, el, ctx: TreeContext) -> tuple[float, ...]:
        score = el.get("score")
        if ctx.classes is None:
            if score is None:
                raise self.where.error(el, "a regression <Node> that ends a path needs a score")
            try:
                v = parse_float32(score) if ctx.float32 else float(score)
            except ArithmeticError:
                raise self.where.error(el, f"score {score!r} is not a number") from None
            except ValueError:
                raise self.where.error(el, f"score {score!r} is not a number") from None
            if not math.isfinite(v):
                raise self.where.error(el, f"score {score!r} is not finite")
            return (v * ctx.scale,)
        index = self._index(ctx)
        dist = self.distribution(el, ctx)
        if ctx.onehot:  # the tree's vote: its score, else its most probable class (the first on a tie)
            if score is None and dist is None:
                raise self.where.error(el, "a classification <Node> that ends a path needs a score")
            value = [0.0] * len(ctx.classes)
            value[self._class_index(el, score, ctx, index) if score is not None
                  else max(range(len(dist)), key=dist.__getitem__)] = ctx.scale
            return tuple(value)
        if dist is None:
            if score is None:
                raise self.where.error(el, "a classification <Node> that ends a path needs a score")
            value = [0.0] * len(ctx.classes)
            value[self._class_index(el, score, ctx, index)] = 1.0
            return tuple(v * ctx.scale for v in value)
        value = list(dist)
        best = max(range(len(value)), key=value.__getitem__)  # the first of equal maxima, as np.argmax
        if ctx.scale != 1.0:  # a weighted average's segment weight, folded into the leaf
            value = [v * ctx.scale for v in value]
        if score is not None:
            label = self._class_index(el, score, ctx, index)
            if best != label:
                raise self.where.error(el, f"score {score!r} is not the most probable class of this "
                                           f"<Node> (first on a tie), as rulekit would predict")
        return tuple(value)

    def _index(self, ctx: TreeContext) -> dict:
        index = self._class_indexes.get(ctx)
        if index is None:
            index = self._class_indexes[ctx] = {c: i for i, c in enumerate(ctx.classes)}
        return index

    def distribution(self, el, ctx: TreeContext) -> tuple[float, ...] | None:
        """The class distribution an element's ScoreDistributions give (their probabilities, else
        their recordCounts normalised); None when it has none."""
        dists = children(el, "ScoreDistribution")
        if not dists:
            return None
        index = self._index(ctx)
        k = len(ctx.classes)
        counts = [0.0] * k
        probs: list[float | None] = [None] * k
        for d in dists:
            i = self._class_index(d, self.where.attr(d, "value"), ctx, index)
            counts[i] = self.where.number(d, "recordCount", "0")
            if d.get("probability") is not None:
                probs[i] = self.where.number(d, "probability")
        if all(p is not None for p in probs):
            value = [float(p) for p in probs]  # type: ignore[arg-type]
        elif any(p is not None for p in probs):
            raise self.where.error(el, "some ScoreDistributions give a probability and some do not")
        else:
            total = sum(counts)
            if not total > 0:
                raise self.where.error(el, "the ScoreDistributions' recordCounts sum to 0")
            value = [c / total for c in counts]
        return tuple(value)

    def _class_index(self, el, text: str, ctx: TreeContext, index: dict) -> int:
        known = self._labels.get((ctx.class_type, text))
        if known is not None and known in index:
            return index[known]
        try:
            label = label_value(text, ctx.class_type)
        except ValueError:
            label = text
        if label not in index:
            raise self.where.error(el, f"class {text!r} is not one of the target's values")
        self._labels[(ctx.class_type, text)] = label
        return index[label]

    # --- predicates ---------------------------------------------------------------------------
    def _predicate(self, desc, parent, branch, values, stack) -> None:
        _, pred, t, f, u = desc
        name = local(pred)
        if name == "True":
            stack.append((t, parent, branch, values))
        elif name == "False":
            stack.append((f, parent, branch, values))
        elif name == "CompoundPredicate":
            op = self.where.attr(pred, "booleanOperator")
            items = tuple(c for c in children(pred) if local(c) in PREDICATES)
            if op not in ("and", "or", "surrogate") or not items:
                raise self.where.error(pred, f"CompoundPredicate booleanOperator={op!r} is not supported "
                                             f"(and, or, surrogate)")
            stack.append(((op, items, t, f, u), parent, branch, values))
        elif name == "SimplePredicate":
            self._simple(pred, t, f, u, parent, branch, values, stack)
        elif name == "SimpleSetPredicate":
            self._set(pred, t, f, u, parent, branch, values, stack)
        else:
            raise self.where.error(pred, f"<{name}> is not a predicate rulekit reads")

    def _compound(self, desc, parent, branch, values, stack) -> None:
        op, items, t, f, u = desc
        first, rest = items[0], items[1:]
        if not rest:
            stack.append((("pred", first, t, f, u), parent, branch, values))
            return
        if op == "and":  # Kleene: FALSE wins, then UNKNOWN
            nxt = ("and", rest, t, f, u)
            stack.append((("pred", first, nxt, f, ("and", rest, u, f, u)), parent, branch, values))
        elif op == "or":  # TRUE wins, then UNKNOWN
            nxt = ("or", rest, t, f, u)
            stack.append((("pred", first, t, nxt, ("or", rest, t, u, u)), parent, branch, values))
        else:  # surrogate: the first predicate that is not UNKNOWN decides
            stack.append((("pred", first, t, f, ("surrogate", rest, t, f, u)), parent, branch, values))

    def _field(self, pred) -> FieldRef:
        name = self.where.attr(pred, "field")
        ref = self.schema.refs.get(name)
        if ref is None:
            raise self.where.error(pred, f"field {name!r} is not an input of the model")
        return ref

    def _simple(self, pred, t, f, u, parent, branch, values, stack) -> None:
        ref = self._field(pred)
        op = self.where.attr(pred, "operator")
        if ref.mapping is not None:  # a number mapped from a category: a test on the category
            codes, hit, miss, u = self._mapped(pred, ref, op, t, f, u)
            stack.append((("nominal", ref, codes, hit, miss, u), parent, branch, values))
            return
        if ref.steps is not None and op not in ("isMissing", "isNotMissing"):  # a test on the raw input
            lo, hi = self.raw_interval(pred, ref, op)
            raw = FieldRef(ref.index, "float64", ref.replacement)
            hit, miss = (f, t) if op == "notEqual" else (t, f)
            if ref.replacement is not None:
                r = self._threshold(pred, raw, ref.replacement)
                u = hit if lo < r <= hi else miss
            desc = ("cmp", raw, "<=", hi, hit, miss, u) if hi != math.inf or lo == -math.inf else hit
            if lo != -math.inf:
                desc = ("cmp", raw, "<=", lo, miss, desc, u)
            stack.append((desc, parent, branch, values))
            return
        if op in ("isMissing", "isNotMissing"):
            yes, no = (t, f) if op == "isMissing" else (f, t)
            if ref.replacement is not None:  # replaced before the model sees it: never missing
                stack.append((no, parent, branch, values))
            else:
                stack.append((("ismissing", ref, yes, no), parent, branch, values))
            return
        text = self.where.attr(pred, "value")
        if ref.precision == "nominal":
            if op not in ("equal", "notEqual"):
                raise self.where.error(pred, f"operator {op!r} on a categorical field (rulekit reads "
                                             f"equal and notEqual there)")
            codes = self._codes(pred, ref, [text])
            hit, miss = (t, f) if op == "equal" else (f, t)
            if ref.replacement is not None:
                u = hit if self._codes(pred, ref, [ref.replacement]) == codes else miss
            stack.append((("nominal", ref, codes, hit, miss, u), parent, branch, values))
            return
        value = self._threshold(pred, ref, text)
        if op in _OPS:
            rk_op, holds_left = _OPS[op]
            left, right = (t, f) if holds_left else (f, t)
            if ref.replacement is not None:
                u = left if self._holds(rk_op, ref, ref.replacement, value, pred) else right
            stack.append((("cmp", ref, rk_op, value, left, right, u), parent, branch, values))
        elif op in ("equal", "notEqual"):
            hit, miss = (t, f) if op == "equal" else (f, t)
            if ref.replacement is not None:
                r = self._threshold(pred, ref, ref.replacement)
                u = hit if r == value else miss
            inner = ("cmp", ref, "<", value, miss, hit, u)  # x <= v and not x < v
            stack.append((("cmp", ref, "<=", value, inner, miss, u), parent, branch, values))
        else:
            raise self.where.error(pred, f"SimplePredicate operator {op!r} is not supported")

    def mapped_codes(self, pred, ref: FieldRef, op: str) -> tuple[tuple[int, ...], bool | None]:
        """For a test on a MapValues field: the input categories (domain indices) whose mapped
        number passes it, and whether a missing input passes it (None: UNKNOWN, it stays missing).
        A category with no mapped number would make the test UNKNOWN: refused."""
        if op in ("isMissing", "isNotMissing"):
            yes = op == "isMissing"
            codes = tuple(i for i, c in enumerate(ref.mapping) if (c is None) == yes)
            return codes, (ref.missing_code is None) == yes
        unmapped = [i for i, c in enumerate(ref.mapping) if c is None]
        if unmapped:
            label = self.schema.features[ref.index].domain[unmapped[0]]
            raise self.where.error(pred, f"category {label!r} has no mapped value: the test is UNKNOWN "
                                         f"there, which a nominal test cannot say")
        if op not in _HOLDS:
            raise self.where.error(pred, f"SimplePredicate operator {op!r} is not supported")
        value = self._threshold(pred, ref, self.where.attr(pred, "value"))
        holds = _HOLDS[op]
        codes = tuple(i for i, c in enumerate(ref.mapping) if holds(c, value))
        return codes, (None if ref.missing_code is None else holds(ref.missing_code, value))

    def raw_interval(self, pred, ref: FieldRef, op: str) -> tuple[float, float]:
        """A test on an Apply field (increasing in its input) as ``lo < x <= hi`` on the raw double
        (``notEqual``: outside it), with the exact float64 bounds found by bisection over the doubles
        (:func:`folding_bounds.largest_passing`), never by inverting the arithmetic."""
        if op not in _HOLDS:
            raise self.where.error(pred, f"SimplePredicate operator {op!r} is not supported")
        v = self._threshold(pred, ref, self.where.attr(pred, "value"))
        below = float(np.nextafter(np.float32(v), np.float32(-np.inf))) if ref.precision == "float32" \
            else math.nextafter(v, -math.inf)  # F < v  <=>  F <= below (F takes values of the precision)
        le_v, le_below = largest_passing(lambda x: apply_steps(ref, x), np.array([v, below])).tolist()
        return {"lessOrEqual": (-math.inf, le_v), "lessThan": (-math.inf, le_below),
                "greaterThan": (le_v, math.inf), "greaterOrEqual": (le_below, math.inf),
                "equal": (le_below, le_v), "notEqual": (le_below, le_v)}[op]

    def _mapped(self, pred, ref: FieldRef, op: str, t, f, u):
        codes, on_missing = self.mapped_codes(pred, ref, op)
        return codes, t, f, (u if on_missing is None else t if on_missing else f)

    def _threshold(self, pred, ref: FieldRef, text: str) -> float:
        try:
            v = parse_float32(text) if ref.precision == "float32" else float(text)
        except (ValueError, ArithmeticError):
            raise self.where.error(pred, f"value {text!r} is not a number") from None
        if math.isnan(v):
            raise self.where.error(pred, f"value {text!r} is not a number")
        return v

    def _holds(self, op: str, ref: FieldRef, text: str, value: float, pred) -> bool:
        r = self._threshold(pred, ref, text)
        return r <= value if op == "<=" else r < value

    def _codes(self, pred, ref: FieldRef, texts) -> tuple[int, ...]:
        feat = self.schema.features[ref.index]
        domain = feat.domain or ()
        out = []
        for text in texts:
            for i, d in enumerate(domain):
                if str(d) == text.strip() or (isinstance(d, int) and _int_text(text) == d):
                    out.append(i)
                    break
        return tuple(sorted(set(out)))

    def _set(self, pred, t, f, u, parent, branch, values, stack) -> None:
        ref = self._field(pred)
        op, items = set_predicate(pred, ref, self.where)
        codes = self._codes(pred, ref, items)
        hit, miss = (t, f) if op == "isIn" else (f, t)
        if ref.replacement is not None:
            rc = self._codes(pred, ref, [ref.replacement])
            u = hit if rc and rc[0] in codes else miss
        stack.append((("nominal", ref, codes, hit, miss, u), parent, branch, values))

    # --- rulekit splits -----------------------------------------------------------------------
    def _compare(self, desc, parent, branch, values, stack) -> None:
        _, ref, op, value, left, right, u = desc
        if u != left and u != right:
            stack.append((("ismissing", ref, u, ("cmp", ref, op, value, left, right, right)), parent,
                          branch, values))
            return
        node = self._link(self.b.numeric(ref.index, value, op=op, precision=ref.precision,
                                         missing=0 if u == left else 1), parent, branch, values)
        stack.append((right, node, 1, None))
        stack.append((left, node, 0, None))

    def _nominal(self, desc, parent, branch, values, stack) -> None:
        _, ref, codes, hit, miss, u = desc
        missing = 0 if u == hit else 1 if u == miss else 2
        node = self._link(self.b.nominal(ref.index, missing=missing), parent, branch, values)
        if missing == 2:
            stack.append((u, node, 2, ()))
        stack.append((miss, node, 1, None))
        stack.append((hit, node, 0, codes))

    def _is_missing(self, desc, parent, branch, values, stack) -> None:
        _, ref, yes, no = desc
        if ref.precision == "nominal":
            node = self._link(self.b.nominal(ref.index, missing=1), parent, branch, values)
            stack.append((yes, node, 1, ()))
            stack.append((no, node, 0, None))
            return
        node = self._link(self.b.numeric(ref.index, math.inf, op="<=", precision="float64", missing=1),
                          parent, branch, values)
        stack.append((yes, node, 1, None))
        stack.append((no, node, 0, None))


_HOLDS = {"lessThan": float.__lt__, "lessOrEqual": float.__le__, "greaterThan": float.__gt__,
          "greaterOrEqual": float.__ge__, "equal": float.__eq__, "notEqual": float.__ne__}
_COMPLEMENT = {("lessOrEqual", "greaterThan"), ("lessThan", "greaterOrEqual"), ("equal", "notEqual"),
               ("isMissing", "isNotMissing"), ("isIn", "isNotIn")}


def _category_codes(p, maker: GraphMaker) -> frozenset | None:
    """The domain codes a set or (not-)equal test on a plain categorical field holds for."""
    ref = maker.schema.refs.get(p.get("field"))
    if ref is None or ref.precision != "nominal":
        return None
    n = len(maker.schema.features[ref.index].domain or ())
    if local(p) == "SimpleSetPredicate" and p.get("booleanOperator") in ("isIn", "isNotIn"):
        arr = child(p, "Array")
        if arr is None:
            return None
        codes = frozenset(maker._codes(p, ref, array_items(arr, maker.where)))
        return codes if p.get("booleanOperator") == "isIn" else frozenset(range(n)) - codes
    if local(p) == "SimplePredicate" and p.get("operator") in ("equal", "notEqual") and p.get("value") is not None:
        codes = frozenset(maker._codes(p, ref, [p.get("value")]))
        return codes if p.get("operator") == "equal" else frozenset(range(n)) - codes
    return None


def _complements(p, q, maker: GraphMaker) -> bool:
    """Whether ``q`` is exactly ``not p`` on every present value (same field, same value; or two
    category tests that split the field's values between them, as sklearn2pmml writes
    HistGradientBoosting's categorical splits)."""
    if p.get("field") is not None and p.get("field") == q.get("field") and \
            local(p) in PREDICATES[:2] and local(q) in PREDICATES[:2]:
        a, b = _category_codes(p, maker), _category_codes(q, maker)
        if a is not None and b is not None:
            n = len(maker.schema.features[maker.schema.refs[p.get("field")].index].domain or ())
            return not (a & b) and len(a | b) == n
    if local(p) != local(q) or local(p) not in ("SimplePredicate", "SimpleSetPredicate"):
        return False
    if p.get("field") != q.get("field") or p.get("field") is None:
        return False
    key = "operator" if local(p) == "SimplePredicate" else "booleanOperator"
    ops = (p.get(key), q.get(key))
    if ops not in _COMPLEMENT and ops[::-1] not in _COMPLEMENT:
        return False
    if local(p) == "SimpleSetPredicate":
        a, b = child(p, "Array"), child(q, "Array")
        return a is not None and b is not None and (a.text or "").split() == (b.text or "").split()
    if ops[0] in ("isMissing", "isNotMissing"):
        return True
    ref = maker.schema.refs.get(p.get("field"))
    if ref is None or p.get("value") is None or q.get("value") is None:
        return False
    if ref.precision == "nominal":
        return p.get("value") == q.get("value")
    try:
        return maker._threshold(p, ref, p.get("value")) == maker._threshold(q, ref, q.get("value"))
    except Exception:  # noqa: BLE001 - a bad value is reported when the predicate itself is read
        return False


def _int_text(text: str):
    try:
        return int(text.strip())
    except ValueError:
        return None


def set_predicate(el: etree._Element, ref: FieldRef, where: Where) -> tuple[str, list[str]]:
    """A ``SimpleSetPredicate``'s ``booleanOperator`` (isIn/isNotIn) and its ``Array`` entries, after
    the checks every reader of one needs (a nominal field, a known operator, an Array)."""
    if ref.precision != "nominal":
        raise where.error(el, "SimpleSetPredicate on a continuous field is not supported")
    op = where.attr(el, "booleanOperator")
    if op not in ("isIn", "isNotIn"):
        raise where.error(el, f"SimpleSetPredicate booleanOperator={op!r}")
    arr = child(el, "Array")
    if arr is None:
        raise where.error(el, "SimpleSetPredicate needs an <Array>")
    return op, array_items(arr, where)


def array_items(arr: etree._Element, where: Where) -> list[str]:
    """The entries of a PMML ``Array`` (whitespace-separated, double quotes around entries with
    spaces, a backslash escaping a quote)."""
    text = arr.text or ""
    items: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch == '"':
            i += 1
            buf = []
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] == '"':
                    i += 1
                buf.append(text[i])
                i += 1
            if i >= n:
                raise where.error(arr, "an <Array> entry has no closing quote")
            i += 1
            items.append("".join(buf))
        else:
            j = i
            while j < n and not text[j].isspace():
                j += 1
            items.append(text[i:j].replace('\\"', '"'))  # JPMML writes q'uo\"te unquoted
            i = j
    declared = arr.get("n")
    if declared is not None and declared.isdigit() and int(declared) != len(items):
        raise where.error(arr, f"<Array n={declared}> holds {len(items)} entries")
    return items
