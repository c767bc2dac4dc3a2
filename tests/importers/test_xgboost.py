"""XGBoost importer: the IR routes every row to XGBoost's own leaf (checked with ``pred_leaf``) and
agrees with XGBoost's float32 outputs to 1e-6, on threshold, neighbour and NaN rows."""

from __future__ import annotations

import json
import struct
import sys

import numpy as np
import pandas as pd
import pytest

xgb = pytest.importorskip("xgboost")

import rulekit  # noqa: E402
from rulekit.cli import main  # noqa: E402
from rulekit.errors import RulekitError  # noqa: E402
from rulekit.importers.xgboost import (  # noqa: E402
    _floats,
    _logit_f32,
    model_from_json,
    ubjson_loads,
)
from rulekit.ir.model import Model  # noqa: E402
from rulekit.probe import model_thresholds, probe_rows  # noqa: E402


def _synthetic(n=600, seed=0, nan=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6)) * [1, 10, 100, 1e-3, 1e4, 1]
    X[:, 5] = np.round(X[:, 5], 1)  # many ties
    y = (X[:, 0] + X[:, 1] / 10 + (X[:, 5] > 0) > 0.3).astype(int)
    X[rng.random(X.shape) < nan] = np.nan
    return X, y


def _leaf_ids(model: Model, booster, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ours = model.apply(P)
    theirs = booster.predict(xgb.DMatrix(P, missing=np.nan), pred_leaf=True)
    return ours, np.asarray(theirs, dtype=np.int64).reshape(len(P), -1)[:, :ours.shape[1]]


def assert_parity(est, model: Model, P: np.ndarray):
    """Identical leaves in every tree, labels identical, outputs within float32 rounding."""
    ours, theirs = _leaf_ids(model, est.get_booster(), P)
    assert np.array_equal(ours, theirs), f"{(ours != theirs).any(axis=1).sum()} rows routed differently"
    if model.task == "classification":
        np.testing.assert_allclose(model.predict_proba(P), est.predict_proba(P), rtol=0, atol=1e-6)
        assert np.array_equal(model.predict(P), est.predict(P))
    else:
        want = est.predict(P).astype(np.float64)
        np.testing.assert_allclose(model.predict(P), want, rtol=1e-6, atol=1e-6)


def _fit_check(est, X, y, n_base=200):
    est.fit(X, y)
    model = rulekit.from_xgboost(est)
    P = probe_rows(model, np.asarray(X, dtype=np.float64)[:n_base], n_missing=200)
    assert_parity(est, model, P)
    return model, P


def test_breast_cancer_binary():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    model, P = _fit_check(xgb.XGBClassifier(n_jobs=1, n_estimators=30, max_depth=4), X, y)
    assert model.combiner.link == "sigmoid" and model.classes == [0, 1]
    assert len(P) >= 200 + 4 * len(model_thresholds(model)) > 500  # threshold rows were generated
    node = next(a for _, a in model.trees[0].nodes(data=True) if a["kind"] == "numeric")
    assert (node["op"], node["precision"]) == ("<", "float32")


@pytest.mark.parametrize("objective", ["multi:softprob", "multi:softmax"])
def test_iris_multiclass(objective):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    model, _ = _fit_check(xgb.XGBClassifier(n_jobs=1, n_estimators=10, max_depth=3, objective=objective), X, y)
    assert model.combiner.link == "softmax"
    assert model.combiner.tree_output[:6] == (0, 1, 2, 0, 1, 2)


def test_wine_multiclass_with_nan():
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    _fit_check(xgb.XGBClassifier(n_jobs=1, n_estimators=8, max_depth=4), X, y)


@pytest.mark.parametrize("objective", ["reg:squarederror", "reg:absoluteerror"])
def test_diabetes_regression(objective):
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    model, _ = _fit_check(xgb.XGBRegressor(n_jobs=1, n_estimators=30, max_depth=4, objective=objective), X, y)
    assert model.task == "regression" and model.combiner.link == "identity"


def test_synthetic_nan_default_directions_and_scales():
    X, y = _synthetic()
    model, P = _fit_check(xgb.XGBClassifier(n_jobs=1, n_estimators=40, max_depth=6), X, y)
    missing = {a["missing"] for t in model.trees for _, a in t.nodes(data=True) if a["kind"] != "leaf"}
    assert missing == {0, 1}  # both default directions occur, and both were checked on NaN rows
    assert np.isnan(P).any(axis=1).sum() >= 200


def test_dart_and_random_forest():
    X, y = _synthetic(seed=2)
    _fit_check(xgb.XGBClassifier(n_jobs=1, n_estimators=8, max_depth=4, booster="dart", rate_drop=0.3,
                                 random_state=0), X, y)
    _fit_check(xgb.XGBRFClassifier(n_jobs=1, n_estimators=8, max_depth=4, random_state=0), X, y)


def test_rows_exactly_at_float32_thresholds_and_neighbours():
    """Hand-checked: x at t goes right (``<``), the float32 just below goes left, and float64
    values that round to t in float32 go right too."""
    X, y = _synthetic(nan=0.0)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=1, max_depth=1).fit(X, y)
    model = rulekit.from_xgboost(est)
    root = model.trees[0].nodes[0]
    f, t = root["feature"], root["threshold"]
    t32 = np.float32(t)
    below32 = float(np.nextafter(t32, np.float32(-np.inf)))
    just_below64 = float(np.nextafter(t, -np.inf))  # rounds to t in float32: right
    rows = np.zeros((4, X.shape[1]))
    rows[:, f] = [t, below32, just_below64, np.nan]
    leaves = model.apply(rows)[:, 0]
    kids = {d["branch"]: c for c, d in model.trees[0].succ[0].items()}
    assert leaves[0] == kids[1] and leaves[1] == kids[0] and leaves[2] == kids[1]
    assert leaves[3] == kids[root["missing"]]
    assert_parity(est, model, rows)


def test_base_score_margin_matches_xgboost():
    """binary:logistic stores the base score as a probability; the margin is computed in float32
    exactly as XGBoost does (learning rate 0 leaves only the base margin)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    d = xgb.DMatrix(X, label=(X[:, 0] > 0).astype(int))
    for p in list(rng.uniform(0.001, 0.999, 12)) + [0.5, 0.3, 0.77]:
        bst = xgb.train({"objective": "binary:logistic", "base_score": float(p), "eta": 0.0,
                         "max_depth": 1, "nthread": 1}, d, 1)
        model = rulekit.from_xgboost(bst)
        margin = bst.predict(d, output_margin=True)[0]
        assert model.combiner.base_score[0] == float(margin), p
        assert model.raw_output(X[:1])[0, 0] == float(margin)


def test_base_score_vector_and_scalar_forms():
    assert _floats("[5E-1]", "b") == [0.5]
    assert _floats("5E-1", "b") == [0.5]
    assert _floats("[0E0,1E0,-2.5E0]", "b") == [0.0, 1.0, -2.5]
    assert _logit_f32(0.5) == 0.0
    with pytest.raises(RulekitError, match="base_score"):
        _logit_f32(1.0)
    X, y = _synthetic(seed=4)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=3, max_depth=3, base_score=0.3).fit(X, y)
    doc = json.loads(est.get_booster().save_raw("json"))
    vec = model_from_json(doc)
    param = doc["learner"]["learner_model_param"]
    assert param["base_score"].startswith("[")  # XGBoost 3.x writes a vector
    param["base_score"] = param["base_score"].strip("[]")  # the 1.x/2.x scalar form
    scalar = model_from_json(doc)
    assert vec.combiner.base_score == scalar.combiner.base_score
    P = probe_rows(vec, X[:100])
    assert_parity(est, vec, P)


def test_multiclass_base_score_is_a_margin():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=3, max_depth=2, base_score=0.3).fit(X, y)
    model = rulekit.from_xgboost(est)
    assert model.combiner.base_score == (float(np.float32(0.3)),) * 3
    assert_parity(est, model, probe_rows(model, X))


def test_best_iteration_estimator_vs_booster():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=200, max_depth=3, learning_rate=0.5, early_stopping_rounds=3)
    est.fit(X[:400], y[:400], eval_set=[(X[400:], y[400:])], verbose=False)
    booster = est.get_booster()
    assert est.best_iteration + 1 < booster.num_boosted_rounds()
    model = rulekit.from_xgboost(est)
    assert len(model.trees) == est.best_iteration + 1
    assert_parity(est, model, probe_rows(model, X[:100]))
    full = rulekit.from_xgboost(booster)
    assert len(full.trees) == booster.num_boosted_rounds()
    assert full.source["best_iteration"] == est.best_iteration
    np.testing.assert_allclose(full.predict_proba(X)[:, 1], booster.predict(xgb.DMatrix(X)), atol=1e-6)


def test_feature_names_from_dataframe_and_default_names():
    X, y = _synthetic(n=300, seed=5)
    names = ["it's", 'say "hi"', "naïve ü 列", "Age", "age", "order date"]
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=3, max_depth=3).fit(pd.DataFrame(X, columns=names), y)
    model = rulekit.from_xgboost(est)
    assert model.feature_names == names
    frame = pd.DataFrame(X[:, ::-1], columns=names[::-1])  # by name, not position
    np.testing.assert_allclose(model.predict_proba(frame), est.predict_proba(pd.DataFrame(X, columns=names)),
                               atol=1e-6)
    plain = rulekit.from_xgboost(xgb.XGBRegressor(n_jobs=1, n_estimators=2).fit(X, y).get_booster())
    assert plain.feature_names == [f"f{i}" for i in range(6)]


def test_class_labels_from_classifier():
    X, y = _synthetic(n=300, seed=6)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=2, max_depth=2).fit(X, y)
    assert rulekit.from_xgboost(est).classes == [0, 1]
    from sklearn.datasets import load_iris

    Xi, yi = load_iris(return_X_y=True)
    m = rulekit.from_xgboost(xgb.XGBClassifier(n_jobs=1, n_estimators=2, max_depth=2).fit(Xi, yi))
    assert m.classes == [0, 1, 2] and all(type(c) is int for c in m.classes)


def test_save_load_round_trip(tmp_path):
    X, y = _synthetic(seed=7)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=10, max_depth=5).fit(X, y)
    model = rulekit.from_xgboost(est)
    model.save(tmp_path / "m.json")
    back = rulekit.load(tmp_path / "m.json")
    P = probe_rows(model, X[:100])
    assert np.array_equal(back.predict_proba(P), model.predict_proba(P))
    assert_parity(est, back, P)


@pytest.mark.parametrize("suffix", [".json", ".ubj"])
def test_saved_files_and_cli_import(tmp_path, suffix, capsys):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=5, max_depth=3).fit(X, y)
    src = tmp_path / f"model{suffix}"
    est.save_model(src)
    direct = rulekit.from_xgboost(src)
    P = probe_rows(direct, X)
    assert_parity(est, direct, P)
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit) as exc:
        main(["import", str(src), "-o", str(out)])
    assert exc.value.code == 0, capsys.readouterr().err
    imported = rulekit.load(out)
    assert np.array_equal(imported.predict_proba(P), direct.predict_proba(P))
    assert np.array_equal(imported.predict(P), est.predict(P))


def _cli_error(args, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        main(args)
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_damaged_files_exit_2_with_one_line(tmp_path, capsys):
    X, y = _synthetic(n=200, seed=8)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=2, max_depth=2).fit(X, y)
    est.save_model(tmp_path / "good.ubj")
    est.save_model(tmp_path / "good.json")
    data = (tmp_path / "good.ubj").read_bytes()
    text = (tmp_path / "good.json").read_text()
    doc = json.loads(text)
    out = str(tmp_path / "out.json")
    cases = {
        "trunc.ubj": data[: len(data) // 2],
        "bad.json": text[:-40].encode(),
        "other.json": b'{"learner": {"hello": 1}}',
        "garbage.ubj": b"{L\x00\x00\x00\x00\x00\x00\x00\x05learnq\xff",
        "empty.json": b"",
    }
    doc["learner"]["gradient_booster"]["model"]["trees"][0]["left_children"][0] = 99
    cases["badchild.json"] = json.dumps(doc).encode()
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        line = _cli_error(["import", str(tmp_path / name), "--format", "xgboost", "-o", out], capsys)
        assert name in line, line
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("params,match", [
    ({"objective": "binary:logitraw"}, "binary:logitraw"),
    ({"objective": "reg:logistic"}, "reg:logistic"),
    ({"booster": "gblinear"}, "gblinear"),
])
def test_unsupported_models_are_refused(params, match):
    X, y = _synthetic(n=200, seed=9)
    est = xgb.XGBRegressor(n_jobs=1, n_estimators=2, **params).fit(X, y)
    with pytest.raises(RulekitError, match=match):
        rulekit.from_xgboost(est)


def test_categorical_and_custom_missing_are_refused():
    rng = np.random.default_rng(10)
    frame = pd.DataFrame({"c": pd.Categorical(rng.choice(["a", "b", "c"], 200)), "x": rng.normal(size=200)})
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=2, enable_categorical=True, tree_method="hist")
    est.fit(frame, (frame["x"] > 0).astype(int))
    with pytest.raises(RulekitError, match="categorical"):
        rulekit.from_xgboost(est)
    X, y = _synthetic(n=200, seed=11)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=2, missing=0.0).fit(np.nan_to_num(X), y)
    with pytest.raises(RulekitError, match="missing=0.0"):
        rulekit.from_xgboost(est)
    with pytest.raises(RulekitError, match="not fitted"):
        rulekit.from_xgboost(xgb.XGBClassifier())
    with pytest.raises(RulekitError, match="cannot import"):
        rulekit.from_xgboost(object())


def _chain_doc(depth: int) -> dict:
    """A hand-written XGBoost document: one chain tree ``depth`` splits deep on f0."""
    n = 2 * depth + 1
    left, right, cond, idx, dleft = [-1] * n, [-1] * n, [0.0] * n, [0] * n, [0] * n
    for i in range(depth):
        node, leaf, nxt = 2 * i, 2 * i + 1, 2 * i + 2
        left[node], right[node], cond[node], dleft[node] = leaf, nxt, i + 0.5, i % 2
        cond[leaf] = float(i % 7) / 8
    cond[n - 1] = 1.0
    parents = [2147483647] + [2 * ((i - 1) // 2) for i in range(1, n)]
    tree = {"left_children": left, "right_children": right, "split_conditions": cond,
            "split_indices": idx, "default_left": dleft, "split_type": [0] * n, "id": 0,
            "parents": parents, "base_weights": cond, "loss_changes": [0.0] * n,
            "sum_hessian": [1.0] * n, "categories": [], "categories_nodes": [],
            "categories_segments": [], "categories_sizes": [],
            "tree_param": {"num_deleted": "0", "num_feature": "1", "num_nodes": str(n),
                           "size_leaf_vector": "1"}}
    return {"version": [3, 2, 0], "learner": {
        "attributes": {}, "feature_names": [], "feature_types": [],
        "learner_model_param": {"base_score": "[0E0]", "boost_from_average": "1", "num_class": "0",
                                "num_feature": "1", "num_target": "1"},
        "objective": {"name": "reg:squarederror", "reg_loss_param": {"scale_pos_weight": "1"}},
        "gradient_booster": {"name": "gbtree", "model": {
            "gbtree_model_param": {"num_parallel_tree": "1", "num_trees": "1"},
            "trees": [tree], "tree_info": [0], "iteration_indptr": [0, 1],
            "cats": {"enc": [], "feature_segments": [], "sorted_idx": []}}}}}


def test_deep_chain_no_recursion(tmp_path):
    depth = 6000
    doc = _chain_doc(depth)
    limit = sys.getrecursionlimit()
    model = model_from_json(doc)
    assert sys.getrecursionlimit() == limit
    xs = np.array([[-1.0], [0.5], [0.49], [depth - 0.5], [depth + 1.0], [np.nan]])
    got = model.predict(xs)
    assert got[0] == 0.0 and got[1] == 1 / 8 and got[3] == 1.0 and got[4] == 1.0
    assert got[5] == 1 / 8  # NaN: node 0 default right, node 2 default left -> leaf 3
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(doc))
    booster = xgb.Booster(model_file=str(path))
    want = booster.predict(xgb.DMatrix(xs, missing=np.nan))
    np.testing.assert_allclose(got, want, atol=1e-6)


def _ubj_str(s: str) -> bytes:
    raw = s.encode()
    return b"L" + struct.pack(">q", len(raw)) + raw


@pytest.mark.slow
def test_ubjson_decoder():
    data = (b"{" + _ubj_str("a") + b"[$d#i\x02" + struct.pack(">ff", 0.5, -1.25)
            + _ubj_str("b") + b"[#U\x03i\xffI\x01\x00T"
            + _ubj_str("c") + b"{#i\x01" + b"i\x01x" + b"SU\x02hi"
            + _ubj_str("d") + b"[ZFNl\x00\x00\x00\x07D" + struct.pack(">d", 0.1) + b"]"
            + _ubj_str("e") + b"[$U#i\x02\x01\x00"
            + b"}")
    assert ubjson_loads(data) == {"a": [0.5, -1.25], "b": [-1, 256, True], "c": {"x": "hi"},
                                  "d": [None, False, 7, 0.1], "e": [1, 0]}
    deep = b"[" * 200_000 + b"]" * 200_000  # nesting far beyond the recursion limit
    value = ubjson_loads(deep)
    for _ in range(5):
        value = value[0]
    assert isinstance(value, list)
    for bad in (b"[$d#i\x05\x00", b"{i\x01a", b"[i", b"{" + _ubj_str("a") + b"Q}", b"[]]"):
        with pytest.raises(RulekitError):
            ubjson_loads(bad)


@pytest.mark.parametrize("suffix", [".json", ".ubj"])
def test_corrupted_files_raise_rulekit_errors_only(tmp_path, suffix):
    """Random byte flips, cuts and insertions: a RulekitError or a valid model, never a crash."""
    X, y = _synthetic(n=200, seed=12)
    xgb.XGBClassifier(n_jobs=1, n_estimators=2, max_depth=2).fit(X, y).save_model(tmp_path / f"m{suffix}")
    good = (tmp_path / f"m{suffix}").read_bytes()
    rng = np.random.default_rng(0)
    path = tmp_path / f"bad{suffix}"
    for _ in range(150):
        b = bytearray(good)
        i = int(rng.integers(len(b)))
        kind = i % 3
        if kind == 0:
            b[i] = int(rng.integers(256))
        elif kind == 1:
            del b[i:]
        else:
            del b[i:i + int(rng.integers(1, 30))]
        path.write_bytes(bytes(b))
        try:
            rulekit.from_xgboost(path)
        except RulekitError as err:
            assert "\n" not in str(err)
