"""ONNX import, operator by operator: hand-built ai.onnx.ml ensembles (TreeEnsemble opset 5 and the
legacy Regressor/Classifier) with every node mode, NaN flags, aggregates and post transforms,
against onnxruntime running the same file, on threshold rows, their float neighbours, NaN and
non-integral/unseen category values. Double operators must agree bit for bit; float ones where
the IR sums in float32 too (labels always)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

ort = pytest.importorskip("onnxruntime")

from rulekit.importers.onnx import from_onnx
from rulekit.importers.onnx_trees import OnnxModelError

N_FEATURES = 5
CATEGORICAL = (0, 1)  # integer-valued features for EQ/NEQ/MEMBER
GRID = np.array([-2.5, -1.0, 0.1, 0.7, 3.25, 1e-3, 7.0])
ORDER_MODES = (0, 1, 2, 3)  # LEQ LT GTE GT
SET_MODES = (4, 5, 6)  # EQ NEQ MEMBER
LEGACY_MODES = ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ")


def random_forest_tables(seed: int, n_trees: int, depth: int, *, modes=ORDER_MODES + SET_MODES,
                         n_targets: int = 1, member: bool = True):
    """Complete random trees as flat tables: per split (feature, mode, value, members, missing),
    children by index; leaves with one (target, weight) per target."""
    rng = np.random.default_rng(seed)
    splits, leaves, roots = [], [], []
    for _ in range(n_trees):
        level = [("new",)]
        roots.append(len(splits))
        # breadth-first: each split's children are allocated when it is written
        queue = [(len(splits), 0)]
        splits.append(None)
        while queue:
            i, d = queue.pop(0)
            mode = int(rng.choice([m for m in modes if member or m != 6]))
            if mode in SET_MODES:
                f = int(rng.choice(CATEGORICAL))
                value = float(rng.integers(0, 4))
                members = tuple(sorted({float(v) for v in rng.integers(0, 5, size=rng.integers(1, 4))}))
            else:
                f = int(rng.integers(len(CATEGORICAL), N_FEATURES))
                value = float(np.float32(rng.choice(GRID)))
                members = None
            kids = []
            for _ in range(2):
                if d + 1 >= depth or rng.random() < 0.2:
                    kids.append(("leaf", len(leaves)))
                    leaves.append([(k, float(np.float32(rng.normal()))) for k in range(n_targets)])
                else:
                    kids.append(("node", len(splits)))
                    queue.append((len(splits), d + 1))
                    splits.append(None)
            splits[i] = dict(feature=f, mode=mode, value=value, members=members if mode == 6 else None,
                             missing=int(rng.random() < 0.5), true=kids[0], false=kids[1])
        del level
    return splits, leaves, roots


def v5_model(tables, *, dtype=np.float64, aggregate=1, post=0, n_targets=1):
    splits, leaves, roots = tables
    members = []
    for s in splits:
        if s["mode"] == 6:
            members.extend(s["members"] + (np.nan,))
    flat_leaves = [(k, w) for entries in leaves for k, w in entries[:1]]  # v5: one weight per leaf
    attrs = dict(
        n_targets=n_targets, aggregate_function=aggregate, post_transform=post, tree_roots=roots,
        nodes_featureids=[s["feature"] for s in splits],
        nodes_modes=numpy_helper.from_array(np.array([s["mode"] for s in splits], np.uint8), "m"),
        nodes_splits=numpy_helper.from_array(np.array([s["value"] for s in splits], dtype), "s"),
        nodes_truenodeids=[s["true"][1] for s in splits],
        nodes_trueleafs=[int(s["true"][0] == "leaf") for s in splits],
        nodes_falsenodeids=[s["false"][1] for s in splits],
        nodes_falseleafs=[int(s["false"][0] == "leaf") for s in splits],
        nodes_missing_value_tracks_true=[s["missing"] for s in splits],
        leaf_targetids=[k for k, _ in flat_leaves],
        leaf_weights=numpy_helper.from_array(np.array([w for _, w in flat_leaves], dtype), "w"),
    )
    if members:
        attrs["membership_values"] = numpy_helper.from_array(np.array(members, dtype), "mv")
    elem = TensorProto.DOUBLE if dtype == np.float64 else TensorProto.FLOAT
    node = helper.make_node("TreeEnsemble", ["X"], ["Y"], domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", elem, ["N", N_FEATURES])],
                              [helper.make_tensor_value_info("Y", elem, ["N", n_targets])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                    helper.make_opsetid("ai.onnx.ml", 5)])
    model.ir_version = 10
    return model


def legacy_model(tables, *, dtype=np.float32, op="TreeEnsembleRegressor", aggregate="SUM", post="NONE",
                 base=None, classes=None, thresholds_as_tensor=False):
    """The same trees as a legacy (ml opset 3) operator; leaves are nodes of their own tree, listed
    after all splits, so onnxruntime also sums each tree's first-listed leaf as a tree of its own
    (it starts a tree wherever the tree id changes): the importer must do the same."""
    splits, leaves, roots = tables
    tree_of = {}
    for t, r in enumerate(roots):
        end = roots[t + 1] if t + 1 < len(roots) else len(splits)
        for i in range(r, end):
            tree_of[i] = t
    cols = {k: [] for k in ("treeids", "nodeids", "featureids", "modes", "values", "true", "false", "missing")}
    targets = {k: [] for k in ("treeids", "nodeids", "ids", "weights")}
    leaf_id = {}
    for i, s in enumerate(splits):
        t = tree_of[i]
        for kid in (s["true"], s["false"]):
            if kid[0] == "leaf":
                leaf_id[kid[1]] = (t, len(splits) + kid[1])
    for i, s in enumerate(splits):
        for key, v in zip(cols, (tree_of[i], i, s["feature"], LEGACY_MODES[s["mode"]], s["value"],
                                  _legacy_id(s["true"], splits), _legacy_id(s["false"], splits), s["missing"])):
            cols[key].append(v)
    for j, entries in enumerate(leaves):
        t, nid = leaf_id[j]
        for key, v in zip(cols, (t, nid, 0, "LEAF", 0.0, 0, 0, 0)):
            cols[key].append(v)
        for k, w in entries:
            for key, v in zip(targets, (t, nid, k, w)):
                targets[key].append(v)
    prefix = "class" if op == "TreeEnsembleClassifier" else "target"
    attrs = dict(nodes_treeids=cols["treeids"], nodes_nodeids=cols["nodeids"], nodes_featureids=cols["featureids"],
                 nodes_modes=cols["modes"], nodes_truenodeids=cols["true"], nodes_falsenodeids=cols["false"],
                 nodes_missing_value_tracks_true=cols["missing"], post_transform=post,
                 **{f"{prefix}_{k}": v for k, v in targets.items()})
    if thresholds_as_tensor:
        attrs["nodes_values_as_tensor"] = numpy_helper.from_array(np.array(cols["values"], dtype), "v")
    else:
        attrs["nodes_values"] = cols["values"]
    if base is not None:
        attrs["base_values"] = list(base)
    if thresholds_as_tensor:  # every *_as_tensor twin, in the input's type
        for key in ("base_values", f"{prefix}_weights"):
            if key in attrs:
                attrs[key + "_as_tensor"] = numpy_helper.from_array(np.asarray(attrs.pop(key), dtype), key)
    elem = TensorProto.DOUBLE if dtype == np.float64 else TensorProto.FLOAT
    x = helper.make_tensor_value_info("X", elem, ["N", N_FEATURES])
    if op == "TreeEnsembleClassifier":
        attrs["classlabels_int64s"] = list(classes)
        outs = ["label", "probabilities"]
        infos = [helper.make_tensor_value_info("label", TensorProto.INT64, ["N"]),
                 helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["N", len(classes)])]
    else:
        attrs["n_targets"] = 1
        attrs["aggregate_function"] = aggregate
        outs = ["Y"]
        infos = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 1])]
    node = helper.make_node(op, ["X"], outs, domain="ai.onnx.ml", **attrs)
    model = helper.make_model(helper.make_graph([node], "g", [x], infos),
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)])
    model.ir_version = 8
    return model


def _legacy_id(kid, splits):
    return kid[1] if kid[0] == "node" else len(splits) + kid[1]


def probe(tables, dtype, n_random: int = 200, seed: int = 1) -> np.ndarray:
    """Random rows, each threshold and its float neighbours, NaN, and odd category values."""
    splits, _, _ = tables
    rng = np.random.default_rng(seed)
    X = rng.choice(np.concatenate([GRID, rng.normal(size=20) * 3]), size=(n_random, N_FEATURES))
    X[:, list(CATEGORICAL)] = rng.choice([0, 1, 2, 3, 4, 5, 1.5, -1, np.nan], size=(n_random, len(CATEGORICAL)))
    rows = [X]
    for s in splits:
        t = s["value"]
        ft = np.float32(t)
        for v in (t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf), float(np.nextafter(ft, np.float32(-np.inf))),
                  float(np.nextafter(ft, np.float32(np.inf))), np.nan):
            r = X[rng.integers(n_random)].copy()
            r[s["feature"]] = v
            rows.append(r[None])
    P = np.vstack(rows)
    P[rng.random(P.shape) < 0.1] = np.nan
    return P.astype(dtype)


def run_ort(model, P):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1  # onnxruntime sums trees in order on one thread
    s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, {"X": P})


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("aggregate", [1, 0], ids=["SUM", "AVERAGE"])
def test_v5_double_every_mode_bit_identical(seed, aggregate):
    tables = random_forest_tables(seed, n_trees=6, depth=5)
    model = v5_model(tables, aggregate=aggregate)
    P = probe(tables, np.float64)
    (ref,) = run_ort(model, P)
    ours = from_onnx(model).predict(P)
    assert np.array_equal(ours, ref[:, 0].astype(np.float64)), np.max(np.abs(ours - ref[:, 0]))


@pytest.mark.parametrize("seed", [3, 4])
def test_v5_float_every_mode_float32_sums(seed):
    tables = random_forest_tables(seed, n_trees=6, depth=5)
    model = v5_model(tables, dtype=np.float32)
    P = probe(tables, np.float32)
    (ref,) = run_ort(model, P)
    imported = from_onnx(model)
    assert imported.combiner.arithmetic == "float32"
    ours = imported.predict(P.astype(np.float64))
    assert np.array_equal(ours, ref[:, 0].astype(np.float64))


@pytest.mark.parametrize("seed", [5, 6])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float", "double"])
@pytest.mark.parametrize("as_tensor", [False, True], ids=["values", "values_as_tensor"])
def test_legacy_regressor_every_mode(seed, dtype, as_tensor):
    """ml opset 3: float input compares in float; double input in double (thresholds widened),
    sums in double, and the output is float: equal to the IR's value rounded to float."""
    tables = random_forest_tables(seed, n_trees=5, depth=4, member=False)
    model = legacy_model(tables, dtype=dtype, base=[0.375], thresholds_as_tensor=as_tensor)
    P = probe(tables, dtype)
    (ref,) = run_ort(model, P)
    ours = from_onnx(model).predict(P.astype(np.float64))
    assert np.array_equal(ours.astype(np.float32), ref[:, 0])


def test_legacy_regressor_average():
    tables = random_forest_tables(7, n_trees=4, depth=4, member=False)
    model = legacy_model(tables, aggregate="AVERAGE", dtype=np.float64)
    P = probe(tables, np.float64)
    (ref,) = run_ort(model, P)
    ours = from_onnx(model).predict(P)
    assert np.array_equal(ours.astype(np.float32), ref[:, 0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float", "double"])
@pytest.mark.parametrize("case", ["binary-logistic", "softmax-3", "probabilities-3", "probabilities-binary"])
def test_legacy_classifier_post_transforms(case, dtype):
    n_targets = {"binary-logistic": 1, "softmax-3": 3, "probabilities-3": 3, "probabilities-binary": 1}[case]
    tables = random_forest_tables(8, n_trees=4 if "probabilities" not in case else 1, depth=4, member=False,
                                  n_targets=n_targets)
    splits, leaves, roots = tables
    if "probabilities" in case:  # weights in [0, 1] that sum to 1 per leaf
        rng = np.random.default_rng(0)
        for j in range(len(leaves)):
            p = rng.dirichlet(np.ones(max(n_targets, 2))).astype(np.float32)
            leaves[j] = [(k, float(p[k + (n_targets == 1)])) for k in range(n_targets)]
    post = {"binary-logistic": "LOGISTIC", "softmax-3": "SOFTMAX"}.get(case, "NONE")
    base = {"binary-logistic": [0.25], "softmax-3": [0.1, -0.2, 0.05]}.get(case)
    classes = [10, 20] if n_targets == 1 else [10, 20, 30]
    model = legacy_model(tables, dtype=dtype, op="TreeEnsembleClassifier", post=post, base=base, classes=classes)
    P = probe(tables, dtype)
    label, proba = run_ort(model, P)
    imported = from_onnx(model)
    X = P.astype(np.float64)
    assert np.array_equal(imported.predict(X), label)
    np.testing.assert_allclose(imported.predict_proba(X), proba, rtol=0, atol=1e-6)


@pytest.mark.parametrize("case, message", [
    (dict(aggregate="MIN"), r"aggregate_function MIN over \d+ trees"),
    (dict(aggregate="MAX"), r"aggregate_function MAX over \d+ trees"),
    (dict(aggregate="AVERAGE", base=[1.0]), "AVERAGE with base_values"),
    (dict(post="PROBIT"), "post_transform PROBIT"),
])
def test_what_the_ir_cannot_express_is_refused_by_name(case, message):
    tables = random_forest_tables(9, n_trees=3, depth=3, member=False)
    with pytest.raises(OnnxModelError, match=message):
        from_onnx(legacy_model(tables, **case))


def test_min_max_of_one_tree_is_that_tree():
    tables = random_forest_tables(10, n_trees=1, depth=4, member=False)
    model = legacy_model(tables, aggregate="MAX", dtype=np.float64)
    P = probe(tables, np.float64)
    (ref,) = run_ort(model, P)
    assert np.array_equal(from_onnx(model).predict(P).astype(np.float32), ref[:, 0])


def test_equality_and_order_tests_on_one_feature_are_refused():
    splits, leaves, roots = random_forest_tables(11, n_trees=1, depth=3, modes=(4,), member=False)
    splits[0]["mode"] = 0  # the root now orders a feature the others compare for equality
    splits[0]["feature"] = splits[1]["feature"] if len(splits) > 1 else 0
    if len(splits) > 1:
        with pytest.raises(OnnxModelError, match="both for equality and by order"):
            from_onnx(v5_model((splits, leaves, roots)))
