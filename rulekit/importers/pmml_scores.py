"""What a PMML tree's leaves say: a regression score (float32 under ``x-mathContext="float"``), a
class distribution from ScoreDistributions, a one-hot vote, scaled by Targets' rescaling or a
segment's weight, and :class:`TreeContext` (how one tree is read). The tree reader's ``GraphMaker``
is a :class:`LeafScores`; the rule set reader reads its conclusions with the same methods.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rulekit.importers.pmml_fields import label_value, parse_float32
from rulekit.importers.pmml_xml import Where, children, etree


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


class LeafScores:
    """Leaf values and class lookups for one model (the caches live as long as the reader)."""

    where: Where
    _class_indexes: dict
    _labels: dict

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
            value[self.class_index_of(el, score, ctx, index) if score is not None
                  else max(range(len(dist)), key=dist.__getitem__)] = ctx.scale
            return tuple(value)
        if dist is None:
            if score is None:
                raise self.where.error(el, "a classification <Node> that ends a path needs a score")
            value = [0.0] * len(ctx.classes)
            value[self.class_index_of(el, score, ctx, index)] = 1.0
            return tuple(v * ctx.scale for v in value)
        value = list(dist)
        best = max(range(len(value)), key=value.__getitem__)  # the first of equal maxima, as np.argmax
        if ctx.scale != 1.0:  # a weighted average's segment weight, folded into the leaf
            value = [v * ctx.scale for v in value]
        if score is not None:
            label = self.class_index_of(el, score, ctx, index)
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
            i = self.class_index_of(d, self.where.attr(d, "value"), ctx, index)
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

    def class_index_of(self, el, text: str, ctx: TreeContext, index: dict) -> int:
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
