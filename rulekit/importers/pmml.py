"""Import PMML 4.x tree models: ``rulekit import model.pmml --format pmml``.

Reads ``TreeModel``; ``MiningModel`` segmentations of trees (``sum``, ``average``, ``majorityVote``,
``weightedAverage``, ``weightedMajorityVote``) and the ``modelChain`` that sklearn2pmml writes for
gradient boosting, XGBoost and LightGBM (sums of trees with ``Targets``, then a ``RegressionModel``
with a logit or softmax link); ``Targets`` rescaling; DerivedFields that are a FieldRef. A
``RuleSetModel`` becomes a rule base, not a model (:mod:`.pmml_rules`).
Anything else is refused with the file and the element's line.

Arithmetic: leaf values and tests are exact (see :mod:`.pmml_tree`); ``Targets`` rescaling is folded
into the leaves and the base score, so a sum ``(t1 + .. + tn) * factor + constant`` becomes
``constant + t1*factor + .. + tn*factor`` (the same to ~1e-15 relative, not bit for bit).
``x-mathContext="float"`` (JPMML's XGBoost models) sums in float32.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from rulekit.importers.pmml_fields import PmmlFields, label_value, read_schema
from rulekit.importers.pmml_rules import RuleSetReader
from rulekit.importers.pmml_tree import GraphMaker, TreeContext, predicate_of
from rulekit.importers.pmml_xml import (
    MAX_BYTES,
    PmmlError,
    Where,
    child,
    children,
    etree,
    local,
    parse,
    safe_parser,
)
from rulekit.ir.model import Combiner, Model
from rulekit.rules.base import RuleBase

MODEL_ELEMENTS = ("TreeModel", "MiningModel", "RuleSetModel", "RegressionModel", "NeuralNetwork",
                  "GeneralRegressionModel", "NaiveBayesModel", "SupportVectorMachineModel",
                  "Scorecard", "ClusteringModel", "AssociationModel", "NearestNeighborModel",
                  "BaselineModel", "BayesianNetworkModel", "GaussianProcessModel", "SequenceModel",
                  "TextModel", "TimeSeriesModel", "AnomalyDetectionModel")

__all__ = ["MAX_BYTES", "PmmlError", "load_file", "loads"]


def load_file(path: str | Path, *, assume_complete: bool = False) -> Model | RuleBase:
    """The rulekit model of a PMML file (a RuleBase for a ``RuleSetModel``). ``assume_complete``:
    read ``nullPrediction`` trees (which give no prediction on a missing value) as if no value were
    ever missing; the model then agrees with the file on complete rows only, and says so in
    ``model.source``."""
    path = Path(path)
    where = Where(path)
    root = parse(path)
    return _read(root, where, assume_complete)


def loads(text: str | bytes, *, assume_complete: bool = False, name: str = "<pmml>") -> Model | RuleBase:
    """:func:`load_file` for a PMML document in memory."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        tree = etree.ElementTree(etree.fromstring(data, safe_parser()))
    except etree.XMLSyntaxError as err:
        raise PmmlError(f"not well-formed XML: {err.msg}", file=name) from None
    if tree.docinfo.doctype:
        raise PmmlError("a PMML document has no DOCTYPE; this one declares one", file=name, line=1)
    return _read(tree.getroot(), Where(Path(name)), assume_complete)


def _read(root: etree._Element, where: Where, assume_complete: bool) -> Model | RuleBase:
    models = [c for c in children(root) if local(c) in MODEL_ELEMENTS]
    if not models:
        raise where.error(root, "the PMML document holds no model")
    model_el = models[0]
    if local(model_el) not in ("TreeModel", "MiningModel", "RuleSetModel"):
        raise where.error(model_el, f"<{local(model_el)}> is not a tree model (rulekit reads TreeModel, "
                                    f"MiningModel of trees and RuleSetModel)")
    _refuse_nested_field_treatments(model_el, where)
    schema = read_schema(root, model_el, where)
    source: dict[str, Any] = {"library": "pmml", "element": local(model_el),
                              "version": root.get("version", "")}
    app = child(child(root, "Header") if child(root, "Header") is not None else root, "Application")
    if app is not None and app.get("name"):
        source["application"] = app.get("name")
    if local(model_el) == "RuleSetModel":
        return _ruleset(model_el, schema, where, source)
    reader = _Reader(schema, where, assume_complete)
    model = reader.model(model_el)
    if reader.assumed:
        source["assume_complete"] = True
    model.source.update(source)
    model.target = schema.target
    return model


def _ruleset(el, schema: PmmlFields, where: Where, source: dict) -> RuleBase:
    if where.attr(el, "functionName") != "classification":
        raise where.error(el, "a RuleSetModel is a classifier (functionName='classification')")
    if not schema.classes:
        raise where.error(el, "a classification model needs a categorical target with its values")
    if child(el, "Targets") is not None:
        raise where.error(child(el, "Targets"), "Targets on a classification model is not supported")
    rb = RuleSetReader(schema, where).read(el)
    app = f" ({source['application']})" if source.get("application") else ""
    line = " ".join(f"imported from a PMML {source['version']} RuleSetModel{app}".split())  # one comment line
    return rb.model_copy(update={"comments": (line,) + rb.comments})


def _refuse_nested_field_treatments(model_el, where: Where) -> None:
    top = child(model_el, "MiningSchema")
    for ms in model_el.iter():
        if not isinstance(ms.tag, str) or local(ms) != "MiningSchema" or ms is top:
            continue
        for mf in children(ms, "MiningField"):
            for attr in ("missingValueReplacement", "lowValue", "highValue"):
                if mf.get(attr) is not None:
                    raise where.error(mf, f"a nested MiningField with {attr} is not supported")
            if mf.get("outliers", "asIs") != "asIs":
                raise where.error(mf, "a nested MiningField with outliers is not supported")


class _Reader:
    def __init__(self, schema: PmmlFields, where: Where, assume_complete: bool):
        self.schema = schema
        self.where = where
        self.assume_complete = assume_complete
        self.assumed = False
        self.maker = GraphMaker(schema, where)

    # --- dispatch -----------------------------------------------------------------------------
    def model(self, el) -> Model:
        name = local(el)
        targets = child(el, "Targets")
        if targets is not None and el.get("functionName") == "classification":
            raise self.where.error(targets, "Targets on a classification model is not supported")
        if name == "TreeModel":
            return self._tree_model(el)
        return self._mining(el)

    def _task(self, el) -> str:
        fn = self.where.attr(el, "functionName")
        if fn not in ("classification", "regression"):
            raise self.where.error(el, f"functionName={fn!r} (rulekit reads classification and regression)")
        if fn == "classification" and not self.schema.classes:
            raise self.where.error(el, "a classification model needs a categorical target with its values")
        return fn

    def _ctx(self, tree_el, task: str, scale: float = 1.0, float32: bool = False,
             onehot: bool = False) -> TreeContext:
        missing = tree_el.get("missingValueStrategy", "none")
        if missing == "nullPrediction" and self.assume_complete:
            self.assumed = True
        if tree_el.get("splitCharacteristic", "multiSplit") not in ("binarySplit", "multiSplit"):
            raise self.where.error(tree_el, "unknown splitCharacteristic")
        return TreeContext(el=tree_el, missing=missing,
                           no_true=tree_el.get("noTrueChildStrategy", "returnNullPrediction"),
                           classes=tuple(self.schema.classes) if task == "classification" else None,
                           class_type=self.schema.target_type, scale=scale,
                           float32=float32 or tree_el.get("x-mathContext") == "float",
                           assume_complete=self.assume_complete, onehot=onehot)

    def _graph(self, tree_el, task: str, scale: float = 1.0, float32: bool = False, onehot: bool = False):
        root = child(tree_el, "Node")
        if root is None:
            raise self.where.error(tree_el, "a TreeModel needs a root <Node>")
        return self.maker.tree(root, self._ctx(tree_el, task, scale, float32, onehot))

    def _model(self, trees, task: str, combiner: Combiner | None = None) -> Model:
        return Model(trees, self.schema.features, task=task,
                     classes=self.schema.classes if task == "classification" else None,
                     combiner=combiner, target=self.schema.target)

    # --- TreeModel ----------------------------------------------------------------------------
    def _tree_model(self, el) -> Model:
        task = self._task(el)
        if task == "regression":
            base, factor = self._targets(el)
            f32 = el.get("x-mathContext") == "float"
            if base != 0.0 or factor != 1.0:
                g = self._graph(el, task, scale=factor, float32=f32)
                return self._model([g], task, Combiner(kind="sum", base_score=(base,),
                                                       arithmetic="float32" if f32 else None))
            return self._model([self._graph(el, task, float32=f32)], task)
        return self._model([self._graph(el, task)], task)

    def _targets(self, el) -> tuple[float, float]:
        targets = child(el, "Targets")
        if targets is None:
            return 0.0, 1.0
        ts = children(targets, "Target")
        if len(ts) != 1:
            raise self.where.error(targets, "rulekit reads Targets with one Target")
        t = ts[0]
        for attr in ("min", "max", "castInteger"):
            if t.get(attr) is not None:
                raise self.where.error(t, f"Target {attr} is not supported")
        if children(t, "TargetValue"):
            raise self.where.error(t, "Target with TargetValues is not supported")
        base = self.where.number(t, "rescaleConstant", "0")
        factor = self.where.number(t, "rescaleFactor", "1")
        if el.get("x-mathContext") == "float":
            base = float(np.float32(base))
            if factor != 1.0:
                raise self.where.error(t, "rescaleFactor in float arithmetic is not supported")
        return base, factor

    # --- MiningModel --------------------------------------------------------------------------
    def _segments(self, seg_el) -> list:
        out = []
        for s in children(seg_el, "Segment"):
            pred = predicate_of(s, self.where)
            if local(pred) != "True":
                raise self.where.error(pred, "rulekit reads segments whose predicate is <True/>")
            inner = [c for c in children(s) if local(c) in MODEL_ELEMENTS]
            if len(inner) != 1:
                raise self.where.error(s, "a Segment needs one model")
            out.append((s, inner[0]))
        if not out:
            raise self.where.error(seg_el, "a Segmentation without segments")
        return out

    def _segmentation(self, el):
        seg = child(el, "Segmentation")
        if seg is None:
            raise self.where.error(el, "a MiningModel needs a <Segmentation>")
        return seg, self.where.attr(seg, "multipleModelMethod")

    def _mining(self, el) -> Model:
        task = self._task(el)
        seg, method = self._segmentation(el)
        if method == "modelChain":
            return self._chain(el, seg, task)
        segments = self._segments(seg)
        for s, m in segments:
            if local(m) != "TreeModel":
                raise self.where.error(m, f"a {method} segment holding <{local(m)}> (rulekit reads trees)")
        weights = [self.where.number(s, "weight", "1") for s, _ in segments]
        if method in ("weightedAverage", "weightedMajorityVote") and len(set(weights)) == 1:
            method = "average" if method == "weightedAverage" else "majorityVote"
        if method == "weightedAverage":
            return self._weighted_average(el, seg, segments, weights, task)
        if method == "weightedMajorityVote":
            return self._weighted_vote(el, seg, segments, weights, task)
        if method == "sum":
            if task != "regression":
                raise self.where.error(seg, "a sum of classification trees is not a PMML model rulekit reads")
            base, factor = self._targets(el)
            f32 = el.get("x-mathContext") == "float"
            trees = [self._graph(m, task, factor, f32) for _, m in segments]
            return self._model(trees, task, Combiner(kind="sum", base_score=(base,),
                                                     arithmetic="float32" if f32 else None))
        if child(el, "Targets") is not None:
            raise self.where.error(child(el, "Targets"), f"Targets on a {method} segmentation is not supported")
        if method == "average":
            trees = [self._graph(m, task) for _, m in segments]
            kind = "single" if len(trees) == 1 else "average"
            return self._model(trees, task, Combiner(kind=kind))
        if method == "majorityVote" and task == "classification":
            trees = [self._graph(m, task) for _, m in segments]
            return self._model(trees, task, Combiner(kind="vote"))
        raise self.where.error(seg, f"multipleModelMethod={method!r} is not supported for {task}")

    def _weighted_average(self, el, seg, segments, weights, task: str) -> Model:
        """sum(w_i * v_i) / sum(w_i) with each tree's leaves scaled by w_i / sum(w) (times the tree
        count for rulekit's average): the same to ~1e-16 relative, not bit for bit."""
        total = sum(weights)
        if not total > 0 or any(w < 0 for w in weights):
            raise self.where.error(seg, "weightedAverage needs non-negative weights with a positive sum")
        if child(el, "Targets") is not None:
            raise self.where.error(child(el, "Targets"), "Targets on a weightedAverage is not supported")
        n = len(segments)
        if task == "regression":
            trees = [self._graph(m, task, w / total) for (_, m), w in zip(segments, weights)]
            return self._model(trees, task, Combiner(kind="sum", base_score=(0.0,)))
        trees = [self._graph(m, task, w * n / total) for (_, m), w in zip(segments, weights)]
        return self._model(trees, task, Combiner(kind="single" if n == 1 else "average"))

    def _weighted_vote(self, el, seg, segments, weights, task: str) -> Model:
        """Each tree votes for its predicted class with its weight; the probabilities are the vote
        shares. As rulekit's ``average`` of one-hot leaves scaled by ``w_i * n / sum(w)``: shares to
        ~1e-16 relative; a label can differ only where two classes' totals tie to that rounding."""
        if task != "classification":
            raise self.where.error(seg, "weightedMajorityVote is a classification method")
        if child(el, "Targets") is not None:
            raise self.where.error(child(el, "Targets"), "Targets on a weightedMajorityVote is not supported")
        total = sum(weights)
        if any(not (w > 0 and math.isfinite(w)) for w in weights) or not math.isfinite(total):
            raise self.where.error(seg, "weightedMajorityVote needs positive finite segment weights (a zero "
                                        "or negative weight could let a class no tree voted for win)")
        n = len(segments)
        trees = [self._graph(m, task, w * n / total, onehot=True) for (_, m), w in zip(segments, weights)]
        return self._model(trees, task, Combiner(kind="single" if n == 1 else "average"))

    def _regression_part(self, m, task_el):
        """A chain segment computing one raw score: its trees, base, output field name, float32."""
        out = child(m, "Output")
        fields = children(out, "OutputField") if out is not None else []
        if len(fields) != 1:
            raise self.where.error(m, "a model chain's scoring segment needs one OutputField")
        name = self.where.attr(fields[0], "name")
        if fields[0].get("feature", "predictedValue") != "predictedValue" or fields[0].get("expression"):
            raise self.where.error(fields[0], "the OutputField must be the predicted value")
        f32 = m.get("x-mathContext") == "float"
        if local(m) == "TreeModel":
            if self.where.attr(m, "functionName") != "regression":
                raise self.where.error(m, "a model chain's scoring TreeModel must be a regression")
            base, factor = self._targets(m)
            return [self._graph(m, "regression", factor, f32)], base, name, f32
        if local(m) != "MiningModel":
            raise self.where.error(m, f"<{local(m)}> in a model chain (rulekit reads trees)")
        seg, method = self._segmentation(m)
        if method != "sum":
            raise self.where.error(seg, f"a model chain's scoring segment with {method!r} (rulekit reads sum)")
        base, factor = self._targets(m)
        trees = []
        for _, t in self._segments(seg):
            if local(t) != "TreeModel":
                raise self.where.error(t, f"<{local(t)}> in a sum (rulekit reads trees)")
            trees.append(self._graph(t, "regression", factor, f32))
        return trees, base, name, f32

    def _chain(self, el, seg, task: str) -> Model:
        segments = self._segments(seg)
        *parts, (_, last) = segments
        if task == "regression" and (parts or local(last) == "RegressionModel"):
            raise self.where.error(seg, "a regression model chain is not supported")
        if local(last) != "RegressionModel" or last.get("functionName") != "classification":
            raise self.where.error(last, "rulekit reads model chains that end in a classification "
                                         "RegressionModel (logit or softmax)")
        raw: dict[str, tuple] = {}
        for _, m in parts:
            trees, base, name, f32 = self._regression_part(m, el)
            raw[name] = (trees, base, f32)
        norm = last.get("normalizationMethod", "none")
        classes = self.schema.classes or []
        tables = children(last, "RegressionTable")
        if len(tables) != len(classes):
            raise self.where.error(last, f"{len(tables)} RegressionTables for {len(classes)} classes")
        links: list[tuple[int, str | None]] = []
        for t in tables:
            if self.where.number(t, "intercept", "0") != 0.0:
                raise self.where.error(t, "a RegressionTable with a non-zero intercept is not supported")
            preds = children(t, "NumericPredictor")
            if children(t) != preds or len(preds) > 1:
                raise self.where.error(t, "rulekit reads RegressionTables of at most one NumericPredictor")
            try:
                cat = label_value(self.where.attr(t, "targetCategory"), self.schema.target_type)
            except ValueError:
                raise self.where.error(t, f"targetCategory {t.get('targetCategory')!r} is not of the "
                                          f"target's dataType") from None
            if cat not in classes:
                raise self.where.error(t, f"targetCategory {cat!r} is not a class of the target")
            name = None
            if preds:
                p = preds[0]
                if self.where.number(p, "coefficient") != 1.0 or p.get("exponent", "1") not in ("1",):
                    raise self.where.error(p, "a NumericPredictor with a coefficient other than 1")
                name = self.where.attr(p, "name")
                if name not in raw:
                    raise self.where.error(p, f"{name!r} is not the output of an earlier segment")
            links.append((classes.index(cat), name))
        f32s = {f for _, _, f in raw.values()}
        arithmetic = "float32" if f32s == {True} else None
        if len(f32s) > 1:
            raise self.where.error(seg, "segments mix float and double arithmetic")
        if norm == "logit" and len(classes) == 2:
            (pos, name), (_neg, other) = links
            if name is None or other is not None or pos != 1:
                raise self.where.error(last, "a logit chain needs the second class's table to hold the "
                                             "score and the first class's table to be empty")
            trees, base, _ = raw[name]
            return self._model(trees, "classification",
                               Combiner(kind="sum", base_score=(base,), link="sigmoid", arithmetic=arithmetic))
        if norm == "softmax":
            if any(name is None for _, name in links) or sorted(i for i, _ in links) != list(range(len(classes))):
                raise self.where.error(last, "a softmax chain needs one score per class")
            trees, outs, bases = [], [], [0.0] * len(classes)
            for k, name in links:
                ts, base, _ = raw[name]
                trees.extend(ts)
                outs.extend([k] * len(ts))
                bases[k] = base
            return self._model(trees, "classification",
                               Combiner(kind="sum", base_score=tuple(bases), link="softmax",
                                        tree_output=tuple(outs), arithmetic=arithmetic))
        raise self.where.error(last, f"normalizationMethod={norm!r} for {len(classes)} classes is not "
                                     f"supported (logit for two classes, softmax)")
