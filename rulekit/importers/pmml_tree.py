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

The PMML tests are read by :mod:`.pmml_predicates` and the leaves by :mod:`.pmml_scores` (both mixed
into :class:`GraphMaker`); this module turns them into rulekit splits.
"""

from __future__ import annotations

import math

from rulekit.importers.pmml_fields import FieldRef, PmmlFields
from rulekit.importers.pmml_predicates import (  # noqa: F401 - PREDICATES, set_predicate, array_items re-exported
    PREDICATES,
    PredicateReader,
    array_items,
    category_codes,
    complements,
    predicate_of,
    set_predicate,
)
from rulekit.importers.pmml_scores import LeafScores, TreeContext
from rulekit.importers.pmml_xml import Where, child, children, etree, local
from rulekit.ir.tree import TreeBuilder

MAX_NODES = 200_000  # ~5 s of building; a bigger tree is refused
_OPS = {  # PMML operator -> (rulekit op, exit when the test holds: "T" or "F" on branch 0)
    "lessOrEqual": ("<=", True), "lessThan": ("<", True),
    "greaterThan": ("<=", False), "greaterOrEqual": ("<", False),
}


class GraphMaker(PredicateReader, LeafScores):
    """Turns descriptors (what to evaluate next) into rulekit nodes, one work stack per tree."""

    def __init__(self, schema: PmmlFields, where: Where, max_nodes: int | None = None):
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
        if i + 1 < len(kids) and complements(pred, predicate_of(kids[i + 1], self.where), self):
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
            codes = category_codes(p, self) if p.get("field") == field else None
            if codes is None:
                return False
            covered |= codes
        allowed = frozenset(range(len(self.schema.features[ref.index].domain or ())))
        node = el
        while node is not None and local(node) == "Node":
            up = node.getparent()
            own = predicate_of(node, self.where)
            codes = category_codes(own, self) if own.get("field") == field else None
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
                r = self.threshold_of(pred, raw, ref.replacement)
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
            codes = self.codes_of(pred, ref, [text])
            hit, miss = (t, f) if op == "equal" else (f, t)
            if ref.replacement is not None:
                u = hit if self.codes_of(pred, ref, [ref.replacement]) == codes else miss
            stack.append((("nominal", ref, codes, hit, miss, u), parent, branch, values))
            return
        value = self.threshold_of(pred, ref, text)
        if op in _OPS:
            rk_op, holds_left = _OPS[op]
            left, right = (t, f) if holds_left else (f, t)
            if ref.replacement is not None:
                u = left if self._holds(rk_op, ref, ref.replacement, value, pred) else right
            stack.append((("cmp", ref, rk_op, value, left, right, u), parent, branch, values))
        elif op in ("equal", "notEqual"):
            hit, miss = (t, f) if op == "equal" else (f, t)
            if ref.replacement is not None:
                r = self.threshold_of(pred, ref, ref.replacement)
                u = hit if r == value else miss
            inner = ("cmp", ref, "<", value, miss, hit, u)  # x <= v and not x < v
            stack.append((("cmp", ref, "<=", value, inner, miss, u), parent, branch, values))
        else:
            raise self.where.error(pred, f"SimplePredicate operator {op!r} is not supported")

    def _mapped(self, pred, ref: FieldRef, op: str, t, f, u):
        codes, on_missing = self.mapped_codes(pred, ref, op)
        return codes, t, f, (u if on_missing is None else t if on_missing else f)
    def _set(self, pred, t, f, u, parent, branch, values, stack) -> None:
        ref = self._field(pred)
        op, items = set_predicate(pred, ref, self.where)
        codes = self.codes_of(pred, ref, items)
        hit, miss = (t, f) if op == "isIn" else (f, t)
        if ref.replacement is not None:
            rc = self.codes_of(pred, ref, [ref.replacement])
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

