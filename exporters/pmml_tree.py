"""A rulekit Model as a PMML ``TreeModel`` or a ``MiningModel`` of trees.

Each split becomes children in branch order: a numeric split ``x <= b`` / ``True``; a nominal split
one ``equal``-test child per branch with the codes :mod:`rulekit.semantics.routing` sends it (a
code several edges list goes to the last; PMML takes the first true child), and the branch an
unseen value takes (the "other" edge, else the missing branch) last as ``True``, so an unlisted or
unseen value never meets a null prediction. A missing value follows the split's ``missing`` branch:
that child's predicate is ``isMissing or <test>`` (or ``True``), and every other test is UNKNOWN on
it, which ``missingValueStrategy="none"`` reads as FALSE. So no default child is needed and
rulekit's routing is kept exactly.

Combiners: ``average`` -> ``average``, ``vote`` -> ``majorityVote``, ``sum`` -> ``sum`` with the
base score as a first one-leaf tree (the engine adds in rulekit's order), then for classifiers a
``modelChain`` into a ``RegressionModel`` with the logit (sigmoid) or softmax link. XGBoost's float32
sums carry JPMML's ``x-mathContext="float"``.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
from rulekit.exporters.pmml_doc import (
    E,
    category_test,
    compound,
    document,
    etree,
    label_text,
    mining_schema,
    num,
    numeric_test,
    simple,
    target_name,
)

from rulekit.errors import ExportError
from rulekit.ir.model import Model
from rulekit.ir.tree import children_by_branch, depth, root_of
from rulekit.semantics.routing import codes_by_branch, nominal_table, unseen_branch

RAW = "rulekit_raw"
# XML parsers without a "huge" mode (libxml2, hence lxml and rulekit's own importer) stop at 256
# nested elements; a Node per tree level, plus the document, segment and predicate levels around it
MAX_TREE_DEPTH = 240


def model_document(model: Model) -> etree._Element:
    deepest = max(depth(t) for t in model.trees)
    if deepest > MAX_TREE_DEPTH:
        raise ExportError(f"a tree {deepest} levels deep nests {deepest} PMML Nodes; XML readers refuse "
                          f"documents nested past 256 levels, so PMML export takes trees up to "
                          f"{MAX_TREE_DEPTH} levels")
    target = target_name(model.features, model.target)
    pmml = document(model.features, target, model.classes if model.task == "classification" else None)
    c = model.combiner
    f32 = c.arithmetic == "float32"
    if c.kind == "single":
        _tree_model(pmml, model, model.trees[0], target, model.task)
        return pmml
    if c.kind in ("average", "vote"):
        mm = E("MiningModel", pmml, functionName=model.task)
        mining_schema(mm, model.features, target)
        _outputs(mm, model)
        method = "average" if c.kind == "average" else "majorityVote"
        seg = E("Segmentation", mm, multipleModelMethod=method)
        for i, tree in enumerate(model.trees):
            s = E("Segment", seg, id=str(i + 1))
            E("True", s)
            _tree_model(s, model, tree, None, model.task, outputs=False)
        return pmml
    # sum
    outs = list(c.tree_output or (0,) * len(model.trees))
    if model.task == "regression":
        mm = E("MiningModel", pmml, functionName="regression")
        mining_schema(mm, model.features, target)
        _sum_segmentation(mm, model, [t for t in model.trees], c.base_score[0], f32)
        if f32:
            mm.set("x-mathContext", "float")
        return pmml
    mm = E("MiningModel", pmml, functionName="classification")
    mining_schema(mm, model.features, target)
    chain = E("Segmentation", mm, multipleModelMethod="modelChain")
    raw_names = []
    for k in range(c.n_outputs):
        name = _raw_name(model, k, c.n_outputs)
        raw_names.append(name)
        s = E("Segment", chain, id=str(k + 1))
        E("True", s)
        part = E("MiningModel", s, functionName="regression")
        if f32:
            part.set("x-mathContext", "float")
        mining_schema(part, model.features, None)
        out = E("Output", part)
        E("OutputField", out, name=name, optype="continuous", dataType="float" if f32 else "double",
          isFinalResult="false")
        trees = [t for t, o in zip(model.trees, outs) if o == k]
        _sum_segmentation(part, model, trees, c.base_score[k], f32)
    s = E("Segment", chain, id=str(c.n_outputs + 1))
    E("True", s)
    rm = E("RegressionModel", s, functionName="classification",
           normalizationMethod="logit" if c.link == "sigmoid" else "softmax")
    if f32:
        rm.set("x-mathContext", "float")
    mining_schema(rm, [], target, extra=raw_names)
    _outputs(rm, model)
    classes = model.classes or []
    if c.link == "sigmoid":
        t = E("RegressionTable", rm, intercept="0.0", targetCategory=label_text(classes[1]))
        E("NumericPredictor", t, name=raw_names[0], coefficient="1.0")
        E("RegressionTable", rm, intercept="0.0", targetCategory=label_text(classes[0]))
    else:
        for k, cls in enumerate(classes):
            t = E("RegressionTable", rm, intercept="0.0", targetCategory=label_text(cls))
            E("NumericPredictor", t, name=raw_names[k], coefficient="1.0")
    return pmml


def _raw_name(model: Model, k: int, n: int) -> str:
    names = set(model.feature_names)
    name = RAW if n == 1 else f"{RAW}({k})"
    while name in names:
        name += "_"
    return name


def _outputs(model_el, model: Model) -> None:
    if model.task != "classification":
        return
    out = E("Output", model_el)
    for cls in model.classes or ():
        E("OutputField", out, name=f"probability({label_text(cls)})", optype="continuous",
          dataType="double", feature="probability", value=label_text(cls))


def _sum_segmentation(mm, model: Model, trees: Sequence[nx.DiGraph], base: float, f32: bool) -> None:
    seg = E("Segmentation", mm, multipleModelMethod="sum")
    s = E("Segment", seg, id="base")
    E("True", s)
    tm = E("TreeModel", s, functionName="regression")
    if f32:
        tm.set("x-mathContext", "float")
    mining_schema(tm, model.features, None)
    node = E("Node", tm, score=num(base))
    E("True", node)
    for i, tree in enumerate(trees):
        s = E("Segment", seg, id=str(i + 1))
        E("True", s)
        tm = _tree_model(s, model, tree, None, "regression", outputs=False)
        if f32:
            tm.set("x-mathContext", "float")


def _tree_model(parent, model: Model, tree: nx.DiGraph, target: str | None, task: str,
                outputs: bool = True) -> etree._Element:
    tm = E("TreeModel", parent, functionName=task, missingValueStrategy="none",
           noTrueChildStrategy="returnNullPrediction")
    mining_schema(tm, model.features, target)
    if outputs:
        _outputs(tm, model)
    root = E("Node", tm)
    E("True", root)
    _fill(root, model, tree, task)
    return tm


def _fill(root_el, model: Model, tree: nx.DiGraph, task: str) -> None:
    """Write the tree under ``root_el`` (its predicate already written), with an explicit stack."""
    stack = [(root_of(tree), root_el)]
    classes = model.classes or []
    while stack:
        node, el = stack.pop()
        a = tree.nodes[node]
        kind = a["kind"]
        if kind == "leaf":
            _leaf(el, a["value"], task, classes)
            continue
        if kind == "linear":
            raise ExportError("an oblique (linear) split has no PMML TreeModel form")
        field = model.features[a["feature"]].name
        kids = children_by_branch(tree, node)
        miss = a["missing"]
        placed = []
        if kind == "numeric":
            for br in (0, 1):
                child_el = E("Node", el)
                if br == 1:
                    E("True", child_el)  # the test failed on a present value, or missing goes here
                else:
                    pred_parent = compound(child_el, "or") if miss == 0 else child_el
                    if miss == 0:
                        simple(pred_parent, field, "isMissing")
                    numeric_test(pred_parent, field, a["op"], a["threshold"], a["precision"])
                placed.append((kids[br], child_el))
        else:  # nominal: the branches' codes by rulekit's routing, the unseen branch last as True
            domain = model.features[a["feature"]].domain or ()
            table = nominal_table(tree.succ[node].values(), miss, len(domain))
            sets = codes_by_branch(table, len(kids))
            last = unseen_branch(table)
            for br, kid in enumerate(kids):
                if br == last:
                    continue
                listed = dict.fromkeys(int(v) for v in tree.edges[node, kid].get("values") or ())
                labels = [domain[v] for v in listed if v in sets[br]]  # the edge's order, kept
                child_el = E("Node", el)
                if br == miss:
                    c = compound(child_el, "or")
                    simple(c, field, "isMissing")
                    category_test(c, field, labels, negated=False)
                else:
                    category_test(child_el, field, labels, negated=False)
                placed.append((kid, child_el))
            child_el = E("Node", el)
            E("True", child_el)
            placed.append((kids[last], child_el))
        for kid, child_el in reversed(placed):
            stack.append((kid, child_el))


def _leaf(el, value, task: str, classes) -> None:
    if task == "regression":
        el.set("score", num(value[0]))
        return
    best = int(np.argmax(value))
    el.set("score", label_text(classes[best]))
    for cls, p in zip(classes, value):
        E("ScoreDistribution", el, value=label_text(cls), recordCount=num(p), probability=num(p))
