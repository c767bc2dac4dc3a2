"""ONNX export: every zoo model runs in onnxruntime exactly like its rulekit Model (and scikit-learn).

Float mode feeds float32(x): the reference is the model applied to the same float32-rounded data.
Labels must be identical; probabilities within 1e-6 (float32) / 1e-12 (float64); regression values
within 1e-6 / 1e-12 relative to max(1, |y|).
"""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import onnx
import pytest

from rulekit.errors import ExportError, RulekitError
from rulekit.export import to_onnx
from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder
from tests import zoo
from tests.marks import zoo_cases

ort = pytest.importorskip("onnxruntime")
# float input on float64 models is tested on purpose here (against float32-rounded references)
pytestmark = pytest.mark.filterwarnings("ignore::rulekit.exporters.onnx.Float32InputWarning")

TOL = {"float": 1e-6, "double": 1e-12}
DT = {"float": np.float32, "double": np.float64}


def session(proto: onnx.ModelProto):
    return ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])


def run(proto, X: np.ndarray) -> dict[str, np.ndarray]:
    sess = session(proto)
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(None, {"X": X})))


def cast_frame(model: Model, data, dtype):
    """(ONNX input matrix, the same rows as a frame for the reference model)."""
    M = model.matrix(data)
    with np.errstate(over="ignore"):  # a float input reads doubles beyond float32's range as +-inf
        X = M.astype(dtype)
    ref = data.copy()
    for j, f in enumerate(model.features):
        if f.kind == "numeric":
            ref[f.name] = X[:, j].astype(np.float64)
    return X, ref


def assert_parity(model: Model, out: dict, ref_data, tol: float) -> None:
    if model.task == "classification":
        want = model.predict(ref_data)
        got = out["label"]
        assert list(map(str, got)) == list(map(str, want)), \
            f"{int((np.asarray(got).astype(str) != np.asarray(want).astype(str)).sum())} labels differ"
        P = model.predict_proba(ref_data)
        assert out["probabilities"].shape == P.shape
        assert np.abs(out["probabilities"] - P).max() <= tol
    else:
        y = model.predict(ref_data)
        got = out["prediction"]
        assert got.shape == y.shape
        assert (np.abs(got - y) / np.maximum(1.0, np.abs(y))).max() <= tol


@pytest.mark.parametrize("opset", [5, 3])
@pytest.mark.parametrize("dtype", ["float", "double"])
@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_zoo_parity(name, dtype, opset):
    model, data = zoo.get(name)
    proto = to_onnx(model, dtype=dtype, opset=opset)
    X, ref = cast_frame(model, data, DT[dtype])
    out = run(proto, X)
    assert_parity(model, out, ref, TOL[dtype])
    # the probe rows are really there: NaN rows and rows exactly at thresholds
    assert np.isnan(X).any(axis=1).sum() >= 5


def test_outputs_follow_the_contract():
    model, _ = zoo.get("sklearn_tree_multiclass_hostile")
    proto = to_onnx(model)
    assert [i.name for i in proto.graph.input] == ["X"]
    assert proto.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    assert [o.name for o in proto.graph.output] == ["label", "probabilities"]
    assert proto.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.STRING
    assert not [n for n in proto.graph.node if n.op_type in ("ZipMap", "TreeEnsembleClassifier")]
    assert [n.op_type for n in proto.graph.node if n.domain == "ai.onnx.ml"] == ["TreeEnsemble"]
    ens = next(n for n in proto.graph.node if n.op_type == "TreeEnsemble")
    assert onnx.helper.get_attribute_value(next(a for a in ens.attribute if a.name == "post_transform")) == 0
    double = to_onnx(model, dtype="double")
    assert double.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    reg, _ = zoo.get("sklearn_tree_regressor")
    assert [o.name for o in to_onnx(reg).graph.output] == ["prediction"]
    legacy = to_onnx(model, opset=3)
    assert [n.op_type for n in legacy.graph.node if n.domain == "ai.onnx.ml"] == ["TreeEnsembleRegressor"]


def test_ir_version_pinned_for_onnxruntime():
    model, _ = zoo.get("sklearn_tree_binary")
    for opset, ir in ((5, 10), (3, 8)):
        proto = to_onnx(model, opset=opset)
        assert proto.ir_version == ir < onnx.IR_VERSION
        assert {o.domain: o.version for o in proto.opset_import}["ai.onnx.ml"] == opset


def test_int_and_bool_labels_keep_their_type():
    model, data = zoo.get("sklearn_tree_binary")
    out = run(to_onnx(model), model.matrix(data).astype(np.float32))
    assert out["label"].dtype == np.int64
    b = TreeBuilder()
    root = b.numeric(0, 0.5, missing=1)
    b.connect(root, b.leaf((0.75, 0.25)), 0)
    b.connect(root, b.leaf((0.25, 0.75)), 1)
    m = Model([b.graph], ["x"], task="classification", classes=[False, True])
    out = run(to_onnx(m), np.array([[0.0], [1.0], [np.nan]]))  # float64 test: double input (auto)
    assert out["label"].tolist() == [False, True, True]


def test_metadata_documents_nominal_encoding():
    model, _ = zoo.get("handmade_nominal")
    meta = {p.key: p.value for p in to_onnx(model).metadata_props}
    feats = json.loads(meta["rulekit.features"])
    assert feats[0] == {"name": "colour", "kind": "nominal", "domain": ["red", "green", "blue", "it's"],
                        "encoding": "code"}
    assert "index of the value" in meta["rulekit.input_encoding"]
    assert json.loads(meta["rulekit.classes"]) == ["no", "yes"]


def test_nominal_codes_are_normalised_like_the_evaluator():
    """Unseen (-1, too big, +-inf), non-integer codes and NaN reach the same leaf as Model.predict."""
    model, _ = zoo.get("handmade_nominal")
    codes = np.array([-1, 0, 1, 2, 3, 4, 1e9, np.inf, -np.inf, 0.5, 1.7, 2.2, 3.9, -0.5, np.nan])
    M = np.array([[c, s, h] for c in codes for s in (2.0, 2.5, 3.0, np.nan)
                  for h in (-1, 0, 1, 2, 2.5, 5, np.nan)])
    from rulekit.ir import compiled

    want = None
    for dtype in ("float", "double"):
        for opset in (5, 3):
            out = run(to_onnx(model, dtype=dtype, opset=opset), M.astype(DT[dtype]))
            if want is None:
                cts = model._compiled_trees()
                want = cts[0].value[compiled.apply(cts[0], M)]
            assert np.abs(out["probabilities"] - want).max() <= TOL[dtype]


def _mutant(monkeypatch, target: str, replacement):
    import rulekit.exporters.onnx.ensemble as ens

    monkeypatch.setattr(ens, target, replacement)


def _float64_tree() -> Model:
    """LightGBM-like: float64 thresholds, which float32 rounding to nearest gets wrong."""
    rng = np.random.default_rng(11)
    b = TreeBuilder()
    frontier = [b.numeric(0, float(rng.normal()), precision="float64", missing=0)]
    for depth in range(5):
        nxt = []
        for node in frontier:
            for branch in (0, 1):
                if depth == 4:
                    b.connect(node, b.leaf((float(branch), 1.0 - branch)), branch)
                    continue
                child = b.numeric(int(rng.integers(3)), float(rng.normal()), precision="float64",
                                  missing=branch)
                b.connect(node, child, branch)
                nxt.append(child)
        frontier = nxt
    return Model([b.graph], ["a", "b", "c"], task="classification", classes=["x", "y"])


def test_float32_rounding_matters_and_probe_rows_catch_it(monkeypatch):
    """Rounding thresholds to the nearest float32 (what peers do) flips threshold rows; rounding
    down, as exported, does not."""
    from rulekit.probe import probe_rows

    model = _float64_tree()
    rng = np.random.default_rng(0)
    M = probe_rows(model, rng.normal(size=(50, 3)), n_missing=20)
    X = M.astype(np.float32)
    want = model.predict(X.astype(np.float64))
    assert (run(to_onnx(model, dtype="float"), X)["label"] == want).all()
    _mutant(monkeypatch, "f32_floor", lambda v: np.asarray(v, np.float64).astype(np.float32))
    assert (run(to_onnx(model, dtype="float"), X)["label"] != want).sum() > 0


def test_missing_direction_matters_and_nan_rows_catch_it(monkeypatch):
    model, data = zoo.get("sklearn_forest_classifier")
    X, ref = cast_frame(model, data, np.float64)
    import rulekit.exporters.onnx.flatten as fl

    real = fl.Forest.arrays

    def no_missing(self, name):
        arr = real(self, name)
        return np.zeros_like(arr) if name == "missing_true" else arr

    monkeypatch.setattr(fl.Forest, "arrays", no_missing)
    out = run(to_onnx(model, dtype="double"), X)
    assert np.abs(out["probabilities"] - model.predict_proba(ref)).max() > 1e-3


def test_f32_floor_matches_semantics():
    from rulekit import semantics
    from rulekit.exporters.onnx.ensemble import f32_floor

    rng = np.random.default_rng(3)
    vals = np.concatenate([rng.normal(size=2000) * 10.0 ** rng.integers(-40, 40, 2000),
                           [0.0, -0.0, 1e-46, -1e-46, 3.5e38, -3.5e38, 1e300, -1e300, np.inf, -np.inf,
                            float(np.float32(0.1)), np.nextafter(float(np.float32(0.1)), 1.0)]])
    got = f32_floor(vals)
    assert got.dtype == np.float32
    assert [float(g) for g in got] == [semantics.f32_round_down(float(v)) for v in vals]


def test_sklearn_source_parity_float_and_double():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeRegressor

    import rulekit
    from rulekit.probe import probe_rows

    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(400, 5)) * 7, 2)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int) + (np.nan_to_num(X[:, 2]) > 3)
    est = RandomForestClassifier(n_estimators=12, max_depth=7, random_state=0).fit(X, y)
    model = rulekit.from_sklearn(est)
    P = probe_rows(model, X, n_missing=80, max_rows=4000)
    for dtype in ("float", "double"):
        Xin = P.astype(DT[dtype])
        out = run(to_onnx(model, dtype=dtype), Xin)
        assert (out["label"] == est.predict(Xin)).all()
        assert np.abs(out["probabilities"] - est.predict_proba(Xin)).max() <= TOL[dtype]
    reg = DecisionTreeRegressor(max_depth=8, random_state=0).fit(X, np.nan_to_num(X[:, 3]) * 2.5 + y)
    model = rulekit.from_sklearn(reg)
    P = probe_rows(model, X, n_missing=80, max_rows=4000)
    out = run(to_onnx(model, dtype="double", opset=3), P)
    assert np.array_equal(out["prediction"], reg.predict(P))


def test_combiners_vote_and_softmax_and_single_leaf():
    b = TreeBuilder()
    b.leaf((0.2, 0.3, 0.5))
    lone = b.graph
    b = TreeBuilder()
    r = b.numeric(0, 1.0, missing=0)
    b.connect(r, b.leaf((0.6, 0.3, 0.1)), 0)
    b.connect(r, b.leaf((0.1, 0.1, 0.8)), 1)
    split = b.graph
    feats = ["x", "y"]
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, -1.0], [np.nan, 3.0]])
    for kind in ("average", "vote"):
        m = Model([lone, split, split], feats, task="classification", classes=["a", "b", "c"],
                  combiner=Combiner(kind=kind))
        for dtype in ("float", "double"):
            for opset in (5, 3):
                out = run(to_onnx(m, dtype=dtype, opset=opset), X.astype(DT[dtype]))
                assert out["label"].tolist() == m.predict(X).tolist()
                assert np.abs(out["probabilities"] - m.predict_proba(X)).max() <= TOL[dtype]
    g = TreeBuilder()
    r = g.numeric(1, 0.0, missing=1)
    g.connect(r, g.leaf((1.5,)), 0)
    g.connect(r, g.leaf((-0.5,)), 1)
    boost = Model([g.graph, lone_value(0.25), g.graph], feats, task="classification",
                  classes=[10, 20, 30],
                  combiner=Combiner(kind="sum", link="softmax", base_score=(0.1, -0.2, 0.0),
                                    tree_output=(0, 1, 2)))
    for opset in (5, 3):
        out = run(to_onnx(boost, dtype="double", opset=opset), X)
        assert out["label"].tolist() == boost.predict(X).tolist()
        assert np.abs(out["probabilities"] - boost.predict_proba(X)).max() <= 1e-12


def _combiner_models():
    """One small model per combiner kind (2 and 3 classes, a regressor for sum); the two-class vote
    model ties 1-1 on some rows (the first class wins)."""
    def split(feature, t, left, right):
        b = TreeBuilder()
        r = b.numeric(feature, t, missing=feature)
        b.connect(r, b.leaf(left), 0)
        b.connect(r, b.leaf(right), 1)
        return b.graph

    three = [split(0, 1.0, (0.6, 0.3, 0.1), (0.1, 0.1, 0.8)), split(1, 0.0, (0.3, 0.4, 0.3), (0.5, 0.5, 0.0))]
    two = [split(0, 1.0, (0.75, 0.25), (0.2, 0.8)), split(1, 0.0, (0.4, 0.6), (0.9, 0.1))]
    feats = ["x", "y"]
    yield "single", Model(three[:1], feats, task="classification", classes=["a", "b", "c"])
    for kind in ("average", "vote"):
        yield kind, Model(three + three[1:], feats, task="classification", classes=["a", "b", "c"],
                          combiner=Combiner(kind=kind))
        yield kind, Model(two, feats, task="classification", classes=[0, 1], combiner=Combiner(kind=kind))
    reg = [split(0, 1.0, (1.5,), (-0.5,)), split(1, 0.0, (0.25,), (2.0,))]
    yield "sum", Model(reg, feats, task="regression", combiner=Combiner(kind="sum", base_score=(0.5,)))
    yield "sum", Model(reg, feats, task="classification", classes=["n", "y"],
                       combiner=Combiner(kind="sum", link="sigmoid", base_score=(0.1,)))


def test_every_combiner_kind_loads_and_matches_as_model_and_rule_base():
    """single/average/vote/sum, as a Model and as its rule base, float/double, v5/v3: every
    exported graph loads in onnxruntime (a double OneHot did not) and equals its source."""
    engine = _engine()
    from rulekit.rules.pipeline import to_rules

    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, -1.0], [np.nan, 3.0], [0.5, np.nan], [3.0, 0.5]])
    seen = set()
    for kind, model in _combiner_models():
        rb = to_rules(model)
        seen.add(kind)
        for dtype in ("float", "double"):
            Xin = X.astype(DT[dtype])
            ref = Xin.astype(np.float64)
            for opset in (5, 3):
                for obj, want, proba in ((model, model.predict, model.predict_proba),
                                         (rb, lambda M: engine.predict_matrix(rb, M),
                                          lambda M: engine.proba_matrix(rb, M))):
                    out = run(to_onnx(obj, dtype=dtype, opset=opset), Xin)
                    if model.task == "regression":
                        assert np.abs(out["prediction"] - want(ref)).max() <= TOL[dtype]
                        continue
                    assert out["label"].tolist() == list(want(ref)), (kind, dtype, opset, type(obj))
                    assert np.abs(out["probabilities"] - proba(ref)).max() <= TOL[dtype]
    assert seen == {"single", "average", "vote", "sum"}


def lone_value(v: float):
    b = TreeBuilder()
    b.leaf((v,))
    return b.graph


def test_decision_rule_on_raw_score_ties():
    """sklearn boosting decides on raw >= 0 / raw > 0: a row with raw exactly 0 tells them apart."""
    b = TreeBuilder()
    r = b.numeric(0, 0.0, missing=1)
    b.connect(r, b.leaf((0.0,)), 0)
    b.connect(r, b.leaf((1.0,)), 1)
    X = np.array([[-1.0], [1.0], [np.nan]])
    for decision, want in (("raw>=0", [1, 1, 1]), ("raw>0", [0, 1, 1]), (None, [0, 1, 1])):
        m = Model([b.graph], ["x"], task="classification", classes=[0, 1],
                  combiner=Combiner(kind="sum", link="sigmoid", base_score=(0.0,), decision=decision))
        assert m.predict(X).tolist() == want
        for dtype in ("float", "double"):
            out = run(to_onnx(m, dtype=dtype), X.astype(DT[dtype]))
            assert out["label"].tolist() == want


def test_deep_chain_runs():
    model = zoo.chain_model(5000)
    xs = np.arange(-1, 5002, 0.5).reshape(-1, 1)
    out = run(to_onnx(model), xs.astype(np.float32))
    assert out["label"].tolist() == model.predict(xs).tolist()


# --- validation ------------------------------------------------------------------------------------


def _set_ints(node, name, values):
    for a in node.attribute:
        if a.name == name:
            del a.ints[:]
            a.ints.extend(values)
            return
    raise KeyError(name)


def _ints(node, name):
    return list(next(a for a in node.attribute if a.name == name).ints)


def test_structure_check_catches_what_onnx_checker_accepts():
    from rulekit.exporters.onnx import check_tree_ensembles

    model, _ = zoo.get("sklearn_tree_binary")
    good = to_onnx(model, check=False)
    check_tree_ensembles(good)

    def broken(fn):
        p = onnx.ModelProto()
        p.CopyFrom(good)
        node = next(n for n in p.graph.node if n.op_type == "TreeEnsemble")
        fn(node)
        onnx.checker.check_model(p)  # the checker does not notice ...
        with pytest.raises(ExportError):  # ... rulekit's check does
            check_tree_ensembles(p)

    def cycle(node):
        ids, leafs = _ints(node, "nodes_falsenodeids"), _ints(node, "nodes_falseleafs")
        i = next(k for k in range(len(ids)) if not leafs[k])
        ids[i] = 0  # back to the root
        _set_ints(node, "nodes_falsenodeids", ids)

    def out_of_range(node):
        ids = _ints(node, "nodes_truenodeids")
        ids[3] = 10_000
        _set_ints(node, "nodes_truenodeids", ids)

    def shared_leaf(node):
        ids, leafs = _ints(node, "nodes_truenodeids"), _ints(node, "nodes_trueleafs")
        fids, fleafs = _ints(node, "nodes_falsenodeids"), _ints(node, "nodes_falseleafs")
        i = next(k for k in range(len(ids)) if leafs[k] and fleafs[k])
        fids[i] = ids[i]
        _set_ints(node, "nodes_falsenodeids", fids)

    for fn in (cycle, out_of_range, shared_leaf):
        broken(fn)


def test_structure_check_v3_cycle():
    from rulekit.exporters.onnx import check_tree_ensembles

    model, _ = zoo.get("handmade_nominal")
    good = to_onnx(model, opset=3, check=False)
    check_tree_ensembles(good)  # shared EQ chains are fine
    node = next(n for n in good.graph.node if n.op_type == "TreeEnsembleRegressor")
    modes = [s.decode() for s in next(a for a in node.attribute if a.name == "nodes_modes").strings]
    ids = _ints(node, "nodes_falsenodeids")
    i = max(k for k, m in enumerate(modes) if m != "LEAF")
    ids[i] = 0
    _set_ints(node, "nodes_falsenodeids", ids)
    with pytest.raises(ExportError):
        check_tree_ensembles(good)


def test_size_estimate_and_refusal():
    from rulekit.exporters.onnx.size import MAX_BYTES, estimate_model_bytes

    assert MAX_BYTES == 1_800_000_000
    for name in ("sklearn_forest_classifier", "handmade_nominal", "xgboost_multiclass"):
        if name not in zoo.ZOO:
            continue
        model, _ = zoo.get(name)
        for dtype in ("float", "double"):
            for opset in (5, 3):
                est = estimate_model_bytes(model, dtype=DT[dtype], opset=opset)
                real = to_onnx(model, dtype=dtype, opset=opset).ByteSize()
                assert 0.5 * real <= est <= 2.0 * real + 8192, (name, dtype, opset, est, real)
    model, _ = zoo.get("sklearn_forest_classifier")
    with pytest.raises(ExportError, match="GB limit"):
        to_onnx(model, max_bytes=10_000)


@pytest.mark.slow  # ~12 s
def test_five_thousand_trees_bounded_memory():
    rng = np.random.default_rng(0)
    trees = []
    for t in range(5000):
        b = TreeBuilder()
        frontier = [b.numeric(int(rng.integers(4)), float(rng.normal()), precision="float32", missing=t % 2)]
        for _depth in range(1):
            nxt = []
            for node in frontier:
                for branch in (0, 1):
                    child = b.numeric(int(rng.integers(4)), float(rng.normal()), precision="float32",
                                      missing=branch)
                    b.connect(node, child, branch)
                    nxt.append(child)
            frontier = nxt
        for node in frontier:
            for branch in (0, 1):
                b.connect(node, b.leaf((float(rng.normal()),)), branch)
        trees.append(b.graph)
    model = Model(trees, ["a", "b", "c", "d"], task="regression", combiner=Combiner(kind="average"),
                  validate=False)
    tracemalloc.start()
    proto = to_onnx(model, check=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    size = proto.ByteSize()
    assert peak < 40 * size + 50_000_000, (peak, size)
    X = rng.normal(size=(300, 4))
    X[::7, 1] = np.nan
    out = run(proto, X.astype(np.float32))
    want = model.predict(X.astype(np.float32).astype(np.float64))
    assert np.abs(out["prediction"] - want).max() <= 1e-6


# --- options and errors ----------------------------------------------------------------------------


def test_options_and_bad_input():
    from rulekit.exporters.onnx import resolve_opset

    model, _ = zoo.get("sklearn_tree_binary")
    assert resolve_opset("auto") == 5  # onnxruntime here is >= 1.21
    assert resolve_opset(3) == 3
    with pytest.raises(ExportError, match="dtype"):
        to_onnx(model, dtype="half")
    with pytest.raises(ExportError, match="opset"):
        to_onnx(model, opset=4)
    with pytest.raises(ExportError):
        to_onnx(object())
    with pytest.raises(RulekitError):
        to_onnx(model, colour="red")


def test_cli_export_writes_a_loadable_file(tmp_path, capsys):
    from rulekit.cli import main

    model, data = zoo.get("handmade_nominal")
    src = tmp_path / "m.json"
    model.save(src)
    for dtype in ("float", "double"):
        out = tmp_path / f"m_{dtype}.onnx"
        with pytest.raises(SystemExit) as ex:
            main(["export", str(src), "--to", "onnx", "--dtype", dtype, "-o", str(out)])
        assert ex.value.code == 0
        proto = onnx.load(str(out))
        X, ref = cast_frame(model, data, DT[dtype])
        assert_parity(model, run(proto, X), ref, TOL[dtype])
    capsys.readouterr()


# --- rule bases ------------------------------------------------------------------------------------

from rulekit.rules.base import (And, Compare, Conclusion, InSet, IsMissing, Linear,  # noqa: E402
                                Not, Or, Rule, RuleBase)

RB_FEATURES = (Feature(name="x"), Feature(name="y"),
               Feature(name="c", kind="nominal", domain=("a", "b", "it's")))


def _cmp(f, op, v):
    return Compare(feature=f, op=op, value=v)


def _rules():
    return (
        Rule(id="r1", condition=And(items=(_cmp("x", "<=", 1.5),
                                           Or(items=(_cmp("y", ">", 0.1), IsMissing(feature="y"))))),
             conclusion=Conclusion(label="yes", distribution=(0.7, 0.2, 0.1))),
        Rule(id="r2", condition=Not(item=InSet(feature="c", values=("a", "it's"))),
             conclusion=Conclusion(label="no")),
        Rule(id="r3", condition=Or(items=(_cmp("x", "=", 3.0),
                                          Linear(terms=((0.3, "x"), (1.2, "y")), op="<", value=4.0))),
             conclusion=Conclusion(label="maybe"), weight=2.0),
        Rule(id="r4", condition=And(items=(_cmp("c", "!=", "b"), _cmp("y", "!=", 0.1),
                                           Not(item=_cmp("x", ">=", -2.0)))),
             conclusion=Conclusion(label="no"), stats={"confidence": 0.7}),
    )


def _rule_base(semantics="first-hit", default=True, precision="float64", regression=False):
    rules = _rules()
    if regression:
        rules = tuple(r.model_copy(update={"conclusion": Conclusion(value=0.7 * (i + 1))})
                      for i, r in enumerate(rules))
        return RuleBase(task="regression", features=RB_FEATURES, semantics=semantics, precision=precision,
                        rules=rules, default=Conclusion(value=0.5) if default else None)
    return RuleBase(task="classification", classes=("yes", "no", "maybe"), features=RB_FEATURES,
                    semantics=semantics, precision=precision, rules=rules,
                    default=Conclusion(label="no") if default else None)


def _rule_rows() -> np.ndarray:
    """Random rows plus every literal's threshold and its float32/float64 neighbours, NaN cells,
    unseen (-1) and invalid (7, 0.5) category codes."""
    from rulekit.probe import threshold_values

    rng = np.random.default_rng(0)
    base = np.column_stack([np.round(rng.normal(1.5, 2, 400), 1), np.round(rng.normal(0.1, 1, 400), 1),
                            rng.integers(-1, 3, 400).astype(float)])
    rows = [base]
    for j, t in ((0, 1.5), (0, 3.0), (0, -2.0), (1, 0.1)):
        for v in threshold_values(t):
            r = base[:30].copy()
            r[:, j] = v
            rows.append(r)
    oblique = base[:36].copy()  # 0.3 * 0 + 1.2 * y < 4 at and around the boundary
    oblique[:, 0] = 0.0
    oblique[:, 1] = np.resize(threshold_values(4.0 / 1.2), 36)
    rows.append(oblique)
    M = np.vstack(rows)
    M[rng.random(M.shape) < 0.1] = np.nan
    M[::17, 2] = 7.0
    M[::19, 2] = 0.5
    return M


def _engine():
    from rulekit.rules import engine  # built: an ImportError is a broken install, never a skip

    return engine


def _undecided(labels, sentinel):
    return np.array([sentinel if v is None else v for v in labels], dtype=object)


def test_rule_base_kleene_semantics_by_hand():
    """Fixed rows with known answers (no engine needed): Kleene logic on missing values."""
    rb = _rule_base()
    X = np.array([
        [1.0, 0.5, 0.0],  # r1: x<=1.5 and y>0.1 -> yes
        [1.0, np.nan, 0.0],  # r1 via `y is missing` -> yes
        [np.nan, 0.5, 1.0],  # r1 unknown (x missing); r2: c='b' not in {a, it's} -> no
        [3.0, -5.0, 0.0],  # r3: x = 3 -> maybe
        [np.nan, np.nan, np.nan],  # nothing decidable -> default no
        [5.0, 5.0, 2.0],  # r2 false, r3 false (0.3*5+1.2*5 = 7.5), r4: x >= -2 -> not fires -> default
        [-3.0, 5.0, -1.0],  # r1 true (x<=1.5, y>0.1) -> yes
    ])
    want = ["yes", "yes", "no", "maybe", "no", "no", "yes"]
    for dtype in ("float", "double"):
        out = run(to_onnx(rb, dtype=dtype), X.astype(DT[dtype]))
        assert out["label"].tolist() == want
        assert np.allclose(out["probabilities"][0], [0.7, 0.2, 0.1])
        assert np.allclose(out["probabilities"][3], [0.0, 0.0, 1.0])
    nd = _rule_base(default=False)
    out = run(to_onnx(nd, dtype="double"), X)
    meta = {p.key: p.value for p in to_onnx(nd).metadata_props}
    assert json.loads(meta["rulekit.no_decision_label"]) == ""
    assert out["label"][4] == "" and np.isnan(out["probabilities"][4]).all()


@pytest.mark.parametrize("semantics", ["first-hit", "vote", "weighted-sum"])
@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_rule_base_matches_engine(semantics, precision):
    engine = _engine()
    M = _rule_rows()
    for regression in (False, True):
        for default in (True, False):
            rb = _rule_base(semantics, default, precision, regression)
            for dtype in ("float", "double"):
                X = M.astype(DT[dtype])
                out = run(to_onnx(rb, dtype=dtype), X)
                ref = X.astype(np.float64)
                if regression:
                    y = engine.predict_matrix(rb, ref)
                    assert np.array_equal(np.isnan(out["prediction"]), np.isnan(y))
                    assert np.nanmax(np.abs(out["prediction"] - y) / np.maximum(1, np.abs(y))) <= TOL[dtype]
                    continue
                want = _undecided(engine.predict_matrix(rb, ref), "")
                assert (out["label"].astype(object) == want).all()
                P = engine.proba_matrix(rb, ref)
                assert np.array_equal(np.isnan(out["probabilities"]), np.isnan(P))
                assert np.nanmax(np.abs(out["probabilities"] - P)) <= TOL[dtype]


@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_extracted_rule_bases_match_engine(name):
    engine = _engine()
    from rulekit.rules.pipeline import to_rules

    model, data = zoo.get(name)
    rb = to_rules(model)
    for dtype, opset in (("float", 5), ("double", 5), ("float", 3), ("double", 3)):
        with np.errstate(over="ignore"):  # beyond float32's range: +-inf, as the float input reads it
            X = engine.matrix(rb, data).astype(DT[dtype])
        out = run(to_onnx(rb, dtype=dtype, opset=opset), X)
        ref = X.astype(np.float64)
        if rb.task == "regression":
            y = engine.predict_matrix(rb, ref)
            assert np.max(np.abs(out["prediction"] - y) / np.maximum(1, np.abs(y))) <= TOL[dtype]
            continue
        assert (out["label"].astype(str) == _undecided(engine.predict_matrix(rb, ref), "").astype(str)).all()
        assert np.nanmax(np.abs(out["probabilities"] - engine.proba_matrix(rb, ref))) <= TOL[dtype]


def test_rule_base_errors():
    rb = _rule_base()
    bad = rb.model_copy(update={"rules": (Rule(condition=_cmp("nope", "<", 1.0),
                                               conclusion=Conclusion(label="yes")),)})
    with pytest.raises(ExportError, match="unknown feature 'nope'"):
        to_onnx(bad)
    bad = rb.model_copy(update={"rules": (Rule(condition=_cmp("c", "=", "zzz"),
                                               conclusion=Conclusion(label="yes")),)})
    with pytest.raises(ExportError, match="not a value"):
        to_onnx(bad)
    boolean = RuleBase(task="classification", classes=(False, True), features=RB_FEATURES,
                       rules=(Rule(condition=_cmp("x", "<", 1.0), conclusion=Conclusion(label=True)),))
    with pytest.raises(ExportError, match="default"):
        to_onnx(boolean)


def test_float_input_sums_unbounded_scores_in_double():
    """Boosting/regression scores can cancel: float32 sums lose them, ``accumulate='auto'`` (float64
    sums behind a float32 input) keeps them; thresholds stay the float32-rounded ones."""
    trees = []
    for t in range(200):
        b = TreeBuilder()
        r = b.numeric(0, 0.1 * (t % 7), precision="float32", missing=t % 2)
        big = 1e6 if t % 2 == 0 else -1e6
        b.connect(r, b.leaf((big + 0.1,)), 0)
        b.connect(r, b.leaf((big - 0.3,)), 1)
        trees.append(b.graph)
    model = Model(trees, ["x"], task="regression", combiner=Combiner(kind="sum", base_score=(0.5,)))
    X = np.concatenate([np.linspace(-1, 1, 201), [np.nan, 0.1, 0.2, 0.3]]).reshape(-1, 1)
    want = model.predict(X.astype(np.float32).astype(np.float64))
    for opset in (5, 3):
        auto = run(to_onnx(model, opset=opset), X.astype(np.float32))["prediction"]
        assert auto.dtype == np.float32
        assert np.max(np.abs(auto - want) / np.maximum(1, np.abs(want))) <= 1e-6
        f32 = run(to_onnx(model, opset=opset, accumulate="float"), X.astype(np.float32))["prediction"]
        assert np.max(np.abs(f32 - want) / np.maximum(1, np.abs(want))) > 1e-6


def test_boosting_source_parity():
    """XGBoost and LightGBM themselves, on threshold and NaN probe rows (labels identical)."""
    import rulekit
    from rulekit.probe import probe_rows

    rng = np.random.default_rng(9)
    X = np.round(rng.normal(size=(600, 5)) * 5, 2)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 2]) > 0).astype(int)
    checked = 0
    try:
        import lightgbm as lgb

        clf = lgb.LGBMClassifier(n_estimators=20, num_leaves=15, verbose=-1, random_state=0).fit(X, y)
        model = rulekit.from_lightgbm(clf)
        P = probe_rows(model, X, n_missing=100, max_rows=6000)
        out = run(to_onnx(model, dtype="double"), P)
        assert (out["label"] == clf.predict(P)).all()
        assert np.abs(out["probabilities"] - clf.predict_proba(P)).max() <= 1e-12
        checked += 1
    except ImportError:
        pass
    try:
        import xgboost as xgb

        clf = xgb.XGBClassifier(n_estimators=20, max_depth=4, n_jobs=1, random_state=0).fit(X, y)
        model = rulekit.from_xgboost(clf)
        P = probe_rows(model, X, n_missing=100, max_rows=6000).astype(np.float32)
        out = run(to_onnx(model), P)
        assert (out["label"] == clf.predict(P)).all()
        assert np.abs(out["probabilities"] - clf.predict_proba(P)).max() <= 1e-6
        checked += 1
    except ImportError:
        pass
    if not checked:
        pytest.skip("neither lightgbm nor xgboost is installed")


# --- input type follows the model (--dtype auto) ------------------------------------------------

AUTO_FLOAT = ["sklearn_tree_binary", "sklearn_forest_classifier", "sklearn_gb_binary", "chain_deep",
              "xgboost_binary_nan_hostile", "xgboost_multiclass"]
AUTO_DOUBLE = ["sklearn_hgb_regressor", "sklearn_hgb_categorical_nan", "lightgbm_categorical_nan",
               "lightgbm_multiclass_zero", "learned_c45_fractional", "learned_cart_subset_oblique",
               "handmade_nominal"]


@pytest.mark.parametrize("name", AUTO_FLOAT + AUTO_DOUBLE)
def test_auto_dtype_follows_the_model(name, recwarn):
    """float32 input where every test compares in float32, double where any compares in float64;
    the default export never warns and never records an input-rounding cost."""
    model, _ = zoo.get(name)
    proto = to_onnx(model)
    want = onnx.TensorProto.FLOAT if name in AUTO_FLOAT else onnx.TensorProto.DOUBLE
    assert proto.graph.input[0].type.tensor_type.elem_type == want
    meta = {p.key: p.value for p in proto.metadata_props}
    assert "rulekit.input_rounding" not in meta
    assert not [w for w in recwarn if "float32" in str(w.message)]


def test_float_input_on_a_float64_model_warns_and_says_so_in_metadata():
    from rulekit.exporters.onnx import Float32InputWarning

    model, _ = zoo.get("sklearn_hgb_regressor")
    with pytest.warns(Float32InputWarning, match=r"rounded to float32.*\(59 distinct threshold"):
        proto = to_onnx(model, dtype="float")
    meta = {p.key: p.value for p in proto.metadata_props}
    assert "59 distinct threshold" in meta["rulekit.input_rounding"]
    assert proto.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    oblique, _ = zoo.get("learned_regressor_oblique")
    with pytest.warns(Float32InputWarning, match="9 oblique test"):
        to_onnx(oblique, dtype="float")


def test_cli_export_default_dtype_and_float_warning(tmp_path, capsys):
    from rulekit.cli import main

    model, _ = zoo.get("sklearn_hgb_regressor")
    src = tmp_path / "m.json"
    model.save(src)
    out = tmp_path / "m.onnx"
    with pytest.raises(SystemExit) as ex:
        main(["export", str(src), "--to", "onnx", "-o", str(out)])
    assert ex.value.code == 0 and "warning" not in capsys.readouterr().err
    assert onnx.load(str(out)).graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    with pytest.raises(SystemExit) as ex:
        main(["export", str(src), "--to", "onnx", "--dtype", "float", "-o", str(out)])
    err = capsys.readouterr().err
    assert ex.value.code == 0
    warned = [ln for ln in err.splitlines() if ln.startswith("rulekit: warning:")]
    assert len(warned) == 1 and warned[0].startswith("rulekit: warning: float32 input") \
        and "59 distinct threshold" in warned[0], err
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert meta["rulekit.dtype"] == "float32" and "59 distinct" in meta["rulekit.input_rounding"]


def _source_parity(model, est_predict, est_proba, data, *, probe_name=""):
    """ONNX at its DEFAULT dtype, fed the user's rows (cast to float32 only when the graph takes
    float), against the source library itself."""
    proto = to_onnx(model)
    double = proto.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    X = model.matrix(data)
    with np.errstate(over="ignore"):
        out = run(proto, X if double else X.astype(np.float32))
    tol = 1e-12 if double else 1e-6
    assert np.isnan(X).any(axis=1).sum() >= 5  # the NaN rows are there
    if model.task == "classification":
        assert list(map(str, out["label"])) == list(map(str, est_predict(data))), probe_name
        assert np.abs(out["probabilities"] - est_proba(data)).max() <= tol, probe_name
    else:
        y = est_predict(data)
        assert (np.abs(out["prediction"] - y) / np.maximum(1.0, np.abs(y))).max() <= tol, probe_name
    return double


def test_default_export_matches_the_source_libraries():
    """HistGradientBoosting (categorical + NaN), a LightGBM regressor, a scikit-learn forest and an
    XGBoost classifier, on threshold, float32-neighbour and NaN rows (rulekit.probe), with ONNX at
    its default dtype, compared with the libraries' own predictions."""
    import lightgbm as lgb
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier

    import rulekit
    from rulekit.probe import probe_rows

    model, data = zoo.get("sklearn_hgb_categorical_nan")
    est = zoo.SKLEARN_ESTIMATORS["sklearn_hgb_categorical_nan"]
    assert _source_parity(model, est.predict, est.predict_proba, data, probe_name="hgb")

    X, X_nan, y = zoo._data(seed=12)
    reg = lgb.LGBMRegressor(n_jobs=1, n_estimators=20, num_leaves=8, verbose=-1).fit(X_nan, X[:, 0] * 3.3 + y)
    model = rulekit.from_lightgbm(reg)
    frame = pd.DataFrame(probe_rows(model, X_nan[:150], n_missing=60))
    assert _source_parity(model, lambda d: reg.predict(d.to_numpy()), None, frame, probe_name="lgb")

    X, X_nan, y = zoo._data(seed=13, classes=3)
    rf = RandomForestClassifier(n_estimators=10, max_depth=6, random_state=0).fit(X_nan, y)
    model = rulekit.from_sklearn(rf)
    frame = pd.DataFrame(probe_rows(model, X_nan[:150], n_missing=60))
    assert not _source_parity(model, lambda d: rf.predict(d.to_numpy()),
                              lambda d: rf.predict_proba(d.to_numpy()), frame, probe_name="rf")

    model, data = zoo.get("xgboost_binary_nan_hostile")
    xgbc = zoo.FOREIGN_ESTIMATORS["xgboost_binary_nan_hostile"]
    assert not _source_parity(model, xgbc.predict, xgbc.predict_proba, data, probe_name="xgb")


def test_auto_dtype_of_rule_bases_follows_their_precision():
    """float32 rule bases (from scikit-learn/XGBoost trees) take float input; float64 ones, and any
    with an oblique test (summed in float64), take double."""
    import rulekit

    tree, _ = zoo.get("sklearn_tree_binary")
    rb = rulekit.to_rules(tree)
    assert rb.precision == "float32"
    assert to_onnx(rb).graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    c45, _ = zoo.get("learned_c45_fractional")
    rb64 = rulekit.to_rules(c45)
    assert rb64.precision == "float64"
    assert to_onnx(rb64).graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    oblique = RuleBase(task="regression", features=RB_FEATURES, precision="float32", rules=(
        Rule(condition=Linear(terms=((0.5, "x"), (0.25, "y")), op="<=", value=1.0),
             conclusion=Conclusion(value=1.0)),), default=Conclusion(value=0.0))
    assert to_onnx(oblique).graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    plain = oblique.model_copy(update={"rules": (Rule(condition=_cmp("x", "<=", 1.0),
                                                      conclusion=Conclusion(value=1.0)),)})
    assert to_onnx(plain).graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
