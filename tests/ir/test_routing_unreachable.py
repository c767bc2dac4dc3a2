"""Trees with a nominal branch that no row reaches (an edge whose codes all go to later edges, or that
lists none, and that is neither the "other" edge nor the missing branch): the ONNX export drops it
(exporters/onnx/flatten.py ``reachable_part``) and must score every row as the IR does, in
onnxruntime with both TreeEnsemble encodings (opset 5 sets, opset 3 equality chains), on codes,
unseen and fractional codes, NaN, threshold and neighbour rows and NaN oblique sums. Python and SQL
already accepted such trees; the rule exports are checked on them too.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import rulekit
from rulekit.exporters.onnx.flatten import flatten, reachable_part
from rulekit.ir import compiled
from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder, validate_tree
from rulekit.probe import probe_rows
from rulekit.semantics import combiners

ort = pytest.importorskip("onnxruntime")

FEATURES = [Feature(name="c", kind="nominal", domain=("red", "green", "blue", "grey")),
            Feature(name="x", kind="numeric"),
            Feature(name="d", kind="nominal", domain=("s", "m", "l")),
            Feature(name="y", kind="numeric")]
TOL = {"float": 1e-6, "double": 1e-12}
DT = {"float": np.float32, "double": np.float64}


def _tree(k: int, leaf) -> object:
    """One tree over FEATURES; ``leaf(i)`` gives the i-th leaf's value. Unreachable: branch 0 of the
    root (its code 0 goes to branch 1, listed later) with a whole subtree under it (numeric, oblique,
    nominal), and under the "other" edge a nested split on d whose branch ``k % 3`` lists nothing."""
    b = TreeBuilder()
    count = itertools.count()

    def lf():
        return b.leaf(leaf(next(count)))

    root = b.nominal(0, missing=2 if k % 2 else 1)
    dead = b.numeric(1, 0.5, precision="float32", missing=0)
    b.connect(root, dead, 0, values=(0,))
    b.connect(dead, lf(), 0)
    obl = b.linear((1, 3), (1.0, -2.0), 0.25, missing=1)
    b.connect(dead, obl, 1)
    b.connect(obl, lf(), 0)
    inner = b.nominal(2, missing=0)
    b.connect(obl, inner, 1)
    b.connect(inner, lf(), 0, values=(0, 1))
    b.connect(inner, lf(), 1, values=None)
    live = b.linear((1, 3), (2.0, 1.0), -0.5, missing=k % 2)
    b.connect(root, live, 1, values=(0, 1))
    b.connect(live, lf(), 0)
    num = b.numeric(3, 1.5, precision="float32", missing=1 - k % 2)
    b.connect(live, num, 1)
    b.connect(num, lf(), 0)
    b.connect(num, lf(), 1)
    other = b.nominal(2, missing=(k + 1) % 3)
    b.connect(root, other, 2, values=None)
    for branch in (2, 0, 1):  # edge order differs from branch order
        vals = () if branch == k % 3 else ((branch,) if branch != 2 else None)
        b.connect(other, lf(), branch, values=vals)
    validate_tree(b.graph, n_features=len(FEATURES))
    return b.graph


def _only_missing_tree(leaf) -> object:
    """A nominal root whose codes and unseen codes all take the missing branch; branch 0 is dead."""
    b = TreeBuilder()
    root = b.nominal(2, missing=1)
    b.connect(root, b.leaf(leaf(0)), 0, values=())
    b.connect(root, b.leaf(leaf(1)), 1, values=())
    validate_tree(b.graph, n_features=len(FEATURES))
    return b.graph


def _nan_only_tree(leaf) -> object:
    """A nominal root whose missing branch 0 lists no code (only NaN reaches it), every code takes the
    "other" branch 1, and branch 2 is dead."""
    b = TreeBuilder()
    root = b.nominal(0, missing=0)
    b.connect(root, b.leaf(leaf(1)), 1, values=None)
    b.connect(root, b.leaf(leaf(0)), 0, values=())
    b.connect(root, b.leaf(leaf(2)), 2, values=())
    validate_tree(b.graph, n_features=len(FEATURES))
    return b.graph


def _plain_tree(leaf) -> object:
    b = TreeBuilder()
    root = b.numeric(1, -0.75, precision="float32", missing=0)
    b.connect(root, b.leaf(leaf(0)), 0)
    b.connect(root, b.leaf(leaf(1)), 1)
    return b.graph


def _models() -> dict[str, Model]:
    def reg(i):
        return (float(i) * 1.5 - 2.0,)

    def proba(k):
        def f(i):
            p = np.asarray([(i * 7 + j * 3 + k) % 5 + 1.0 for j in range(3)])
            return tuple(p / p.sum())
        return f

    def binary(k):
        def f(i):
            p = ((i * 5 + k) % 7 + 1) / 9.0
            return (1.0 - p, p)
        return f

    def raw(k):
        return lambda i: (0.125 * ((i * 3 + k) % 11) - 0.5,)

    return {
        "regression_tree": Model([_tree(0, reg)], FEATURES, task="regression"),
        "average_3_classes": Model([_plain_tree(proba(9)), _tree(1, proba(1)), _tree(2, proba(2)),
                                    _only_missing_tree(proba(3)), _nan_only_tree(proba(4))], FEATURES, task="classification",
                                   classes=["a", "b", "c"], combiner=Combiner(kind="average")),
        "vote_2_classes": Model([_tree(0, binary(0)), _plain_tree(binary(5)), _tree(1, binary(1)),
                                 _nan_only_tree(binary(2))],
                                FEATURES, task="classification", classes=["no", "yes"],
                                combiner=Combiner(kind="vote")),
        "boosting_sigmoid": Model([_tree(2, raw(0)), _only_missing_tree(raw(1)), _tree(1, raw(2)),
                                   _nan_only_tree(raw(3))],
                                  FEATURES, task="classification", classes=[0, 1],
                                  combiner=Combiner(kind="sum", link="sigmoid", base_score=(0.3,),
                                                    tree_output=(0, 0, 0, 0))),
    }


def _rows(model: Model) -> np.ndarray:
    """Code matrix: every code, unseen (-1, size, 1e9, +-inf), fractional codes and NaN for both
    nominal features, crossed with numeric values around the splits (and +-inf: NaN oblique sums),
    plus threshold/neighbour and NaN rows (rulekit.probe)."""
    codes_c = [0, 1, 2, 3, -1, 4, 1e9, math.inf, -math.inf, 0.5, 1.9, -0.5, math.nan]
    codes_d = [0, 1, 2, -1, 3, 2.5, math.nan]
    nums = [-1.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, math.inf, -math.inf, math.nan]
    base = np.asarray(list(itertools.product(codes_c, nums, codes_d, nums)), dtype=np.float64)
    return probe_rows(model, base, n_missing=50)


def _reference(model: Model, M: np.ndarray) -> dict[str, np.ndarray]:
    """The IR's outputs on a code matrix (Model.predict's arithmetic without the label encoding)."""
    red = model.reduction()
    raw = combiners.aggregate(red, model.tree_values(M), M.shape[0])
    if model.task == "regression":
        return {"prediction": raw[:, 0]}
    labels = model.label_array()[combiners.label_index(red, raw)]
    return {"label": labels, "probabilities": combiners.probabilities(red, raw)}


def _run(proto, X: np.ndarray) -> dict[str, np.ndarray]:
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"X": X})))


MODELS = _models()


def test_the_trees_have_dead_branches():
    """Each model holds nodes no row reaches, and what is dropped is only those."""
    sizes = [len(f.domain or ()) for f in FEATURES]
    for model in MODELS.values():
        M = _rows(model)
        dead = 0
        for t, ct in zip(model.trees, model._compiled_trees()):
            kept = set(reachable_part(t, sizes))
            dead += t.number_of_nodes() - len(kept)
            reached = set(ct.node_ids[compiled.apply(ct, M)].tolist())
            assert reached <= kept  # nothing a row reaches is dropped
        assert dead >= 2


@pytest.mark.parametrize("opset", [5, 3])
@pytest.mark.parametrize("dtype", ["double", "float"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_onnx_accepts_dead_branches_and_matches_the_ir(name, dtype, opset):
    model = MODELS[name]
    proto = rulekit.export.to_onnx(model, dtype=dtype, opset=opset)
    M = _rows(model)
    with np.errstate(over="ignore"):
        X = M.astype(DT[dtype])
    want = _reference(model, X.astype(np.float64))
    got = _run(proto, X)
    if model.task == "regression":
        assert np.abs(got["prediction"].ravel() - want["prediction"]).max() <= TOL[dtype]
        return
    assert list(map(str, got["label"])) == list(map(str, want["label"]))
    assert np.abs(got["probabilities"] - want["probabilities"]).max() <= TOL[dtype]


def test_flatten_keeps_trees_without_dead_branches():
    """A tree every node of which some row reaches is flattened from the same graph object."""
    from tests import zoo

    model, _ = zoo.get("handmade_nominal")
    sizes = [len(f.domain or ()) for f in model.features]
    assert reachable_part(model.trees[0], sizes) is model.trees[0]
    forest = flatten(model)
    assert forest.n_trees == 1


@pytest.mark.parametrize("name", sorted(MODELS))
def test_rule_exports_on_dead_branches(name):
    """Rules extracted from such trees score as the model in the rule engine, ONNX and Python, the
    branch that takes every code and missing values included (it lost its ``or d is missing``)."""
    model = MODELS[name]
    rb = rulekit.to_rules(model)
    M = _rows(model)
    frame = _frame(model, M)
    want = model.predict(frame)
    assert list(map(str, rb.predict(frame))) == list(map(str, want))
    if model.task == "classification":
        assert np.abs(rb.predict_proba(frame) - model.predict_proba(frame)).max() <= 1e-12
    out = _run(rulekit.export.to_onnx(rb, dtype="double"), model.matrix(frame))
    key = "prediction" if model.task == "regression" else "label"
    got = np.asarray(out[key]).ravel()
    if model.task == "regression":
        assert np.abs(got - want).max() <= 1e-12
    else:
        assert list(map(str, got)) == list(map(str, want))
    ns: dict = {}
    exec(rulekit.export.to_python(rb), ns)  # noqa: S102
    rows = frame.to_dict("records")
    py = [ns["predict"]({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()})
          for r in rows]
    if model.task == "regression":
        assert np.abs(np.asarray(py, float) - want).max() <= 1e-12
    else:
        assert list(map(str, py)) == list(map(str, want))


def _frame(model: Model, M: np.ndarray):
    from tests import zoo

    return zoo._frame(model, M)
