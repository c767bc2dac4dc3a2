"""LightGBM importer: every tree's leaf value equals the one LightGBM reaches (``pred_leaf``), and
probabilities/values agree to 1e-12, on threshold, neighbour, zero, NaN and odd category rows."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

lgb = pytest.importorskip("lightgbm")

import rulekit  # noqa: E402
from rulekit.cli import main  # noqa: E402
from rulekit.errors import RulekitError  # noqa: E402
from rulekit.importers.lightgbm import ZERO, parse_model  # noqa: E402
from rulekit.ir.model import Model  # noqa: E402
from rulekit.probe import model_thresholds, probe_rows  # noqa: E402

KW = dict(n_jobs=1, verbose=-1)
ODD = [0.0, -0.0, ZERO, -ZERO, 1e-40, -1e-40, 5e-324, float(np.nextafter(ZERO, 1)),
       float(np.nextafter(-ZERO, -1)), np.inf, -np.inf, np.nan]


def _leaf_values(booster, P) -> np.ndarray:
    """The leaf value LightGBM reaches in each tree (from its own dump), shape (rows, trees)."""
    leaves = booster.predict(P, pred_leaf=True)
    dump = booster.dump_model()["tree_info"]
    table = []
    for info in dump:
        values, stack = {}, [info["tree_structure"]]
        while stack:
            node = stack.pop()
            if "leaf_index" in node or "split_index" not in node:
                values[node.get("leaf_index", 0)] = node["leaf_value"]
            else:
                stack += [node["left_child"], node["right_child"]]
        table.append(values)
    return np.array([[table[t][int(leaves[r, t])] for t in range(len(table))] for r in range(len(P))])


def assert_parity(est, model: Model, P, *, leaf_check: bool = True, scale: float = 1.0):
    """Same leaf in every tree (the IR's leaves hold LightGBM's times ``scale``, which folds in
    ``sigmoid:`` and rf averaging); probabilities/values within 1e-12; identical labels."""
    booster = est.booster_ if hasattr(est, "booster_") else est
    if leaf_check:
        ours = np.column_stack([v[:, 0] for v in model.tree_values(model.matrix(P))])
        theirs = _leaf_values(booster, P)
        theirs = theirs * scale if scale != 1.0 else theirs
        bad = ours != theirs
        assert not bad.any(), f"{bad.any(axis=1).sum()} rows reach another leaf"
    if model.task == "classification":
        if hasattr(est, "predict_proba"):
            np.testing.assert_allclose(model.predict_proba(P), est.predict_proba(P), rtol=0, atol=1e-12)
            assert np.array_equal(model.predict(P), est.predict(P))
        else:
            want = booster.predict(P)
            got = model.predict_proba(P)
            got = got[:, 1] if want.ndim == 1 else got
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    else:
        np.testing.assert_allclose(model.predict(P), est.predict(P), rtol=1e-12, atol=1e-12)


def _odd_rows(X: np.ndarray, seed: int = 0) -> np.ndarray:
    """Rows with zeros, signed zeros, +-1e-35f and neighbours, tiny and infinite values."""
    rng = np.random.default_rng(seed)
    rows = X[rng.integers(len(X), size=len(ODD) * X.shape[1])].copy()
    for k, (v, j) in enumerate((v, j) for v in ODD for j in range(X.shape[1])):
        rows[k, j] = v
    return rows


def _fit_check(est, X, y, n_base=200, scale=1.0, **fit):
    est.fit(X, y, **fit)
    model = rulekit.from_lightgbm(est)
    Xf = np.asarray(X, dtype=np.float64)
    P = np.vstack([probe_rows(model, Xf[:n_base], n_missing=200), _odd_rows(Xf)])
    assert_parity(est, model, P, scale=scale)
    return model, P


def _synthetic(n=800, seed=0, nan=0.1, zeros=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)) * [1, 10, 100, 1e-3, 1]
    X[:, 4] = np.round(X[:, 4], 1)
    X[rng.random(X.shape) < zeros] = 0.0
    y = (X[:, 0] + X[:, 1] / 10 + (X[:, 4] > 0) > 0.3).astype(int)
    X[rng.random(X.shape) < nan] = np.nan
    return X, y


def test_breast_cancer_binary():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    model, P = _fit_check(lgb.LGBMClassifier(n_estimators=20, num_leaves=15, **KW), X, y)
    assert model.combiner.link == "sigmoid" and model.classes == [0, 1]
    assert len(P) >= 200 + 3 * len(model_thresholds(model)) > 500
    node = next(a for _, a in model.trees[0].nodes(data=True) if a["kind"] == "numeric")
    assert node["precision"] == "float64"


def test_iris_and_wine_multiclass():
    from sklearn.datasets import load_iris, load_wine

    for loader in (load_iris, load_wine):
        X, y = loader(return_X_y=True)
        model, _ = _fit_check(lgb.LGBMClassifier(n_estimators=8, num_leaves=7, min_child_samples=5,
                                                 **KW), X, y)
        assert model.combiner.link == "softmax" and len(model.classes) == 3
        assert model.combiner.tree_output[:6] == (0, 1, 2, 0, 1, 2)


def test_diabetes_regression():
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    model, _ = _fit_check(lgb.LGBMRegressor(n_estimators=20, num_leaves=15, **KW), X, y)
    assert model.task == "regression" and model.combiner.base_score == (0.0,)


@pytest.mark.parametrize("params", [
    {},  # missing type NaN where NaN was seen, None elsewhere
    {"use_missing": False},  # missing type None everywhere: NaN is 0
    {"zero_as_missing": True},  # missing type Zero: zero islands, copied subtrees
    {"objective": "binary", "sigmoid": 0.7},
    {"boosting_type": "rf", "bagging_freq": 1, "bagging_fraction": 0.7},  # average_output
], ids=["nan", "none", "zero", "sigmoid", "rf"])
def test_synthetic_missing_types(params):
    X, y = _synthetic()
    est = lgb.LGBMClassifier(n_estimators=10, num_leaves=12, **params, **KW)
    scale = params.get("sigmoid", 1.0) / (10 if "boosting_type" in params else 1)
    model, P = _fit_check(est, X, y, scale=scale)
    text = est.booster_.model_to_string()
    if params.get("zero_as_missing"):
        assert "decision_type=" in text and any(
            (int(d) >> 2) & 3 == 1 for line in text.splitlines() if line.startswith("decision_type=")
            for d in line.split("=")[1].split())
    if "sigmoid" in params:
        assert "sigmoid:0.7" in text


def _one_split_text(th: float, decision_type: int) -> str:
    """A hand-written model: node 0 splits feature a at ``th``; its left is a leaf, its right a
    second split on feature b (so a zero island must copy a subtree)."""
    return f"""tree
version=v4
num_class=1
num_tree_per_iteration=1
label_index=0
max_feature_idx=1
objective=regression
feature_names=a b
feature_infos=[-1:1] [-1:1]

Tree=0
num_leaves=3
num_cat=0
split_feature=0 1
split_gain=1 1
threshold={float(th)!r} 5
decision_type={decision_type} 2
left_child=-1 -2
right_child=1 -3
leaf_value=1 2 3
leaf_weight=1 1 1
leaf_count=1 1 1
internal_value=0 0
internal_weight=1 1
internal_count=3 2
is_linear=0
shrinkage=1


end of trees
"""


def test_every_missing_type_direction_and_threshold_near_zero():
    """All 3 missing types x 2 default sides x thresholds around +-1e-35f, on every odd value:
    the IR equals LightGBM's own prediction exactly."""
    near = [-1.0, -ZERO, -1e-36, -0.0, 0.0, 1e-36, ZERO, 1.0, float(np.nextafter(ZERO, 1)),
            float(np.nextafter(-ZERO, -1)), 7.25]
    checked = copies = 0
    for th in near:
        values = ODD + [1.0, -1.0, 6.0, th, float(np.nextafter(th, np.inf)), float(np.nextafter(th, -np.inf))]
        X = np.array([[v, b] for v in values for b in (0.0, 6.0, np.nan)])
        for missing_type in (0, 1, 2):
            for default_left in (0, 1):
                text = _one_split_text(th, (missing_type << 2) | (default_left << 1))
                want = lgb.Booster(model_str=text).predict(X)
                model = parse_model(text)
                assert np.array_equal(model.predict(X), want), (th, missing_type, default_left)
                checked += 1
                copies += model.trees[0].number_of_nodes() > 5
    assert checked == 66 and copies >= 4  # some zero islands needed copied subtrees


def test_pandas_categorical_with_text_categories_nan_and_unseen():
    rng = np.random.default_rng(1)
    n = 800
    cats = ["red", "green", "blue", "it's", "naïve", "x y", "z"]
    c = rng.choice(cats, n)
    a = rng.normal(size=n)
    y = (np.isin(c, ["red", "blue", "naïve"]) + a > 0.7).astype(int)
    X = pd.DataFrame({"c": pd.Categorical(c, categories=cats), "a": a})
    X.loc[rng.random(n) < 0.1, "c"] = np.nan
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    est = lgb.LGBMClassifier(n_estimators=10, num_leaves=8, min_child_samples=5, min_data_per_group=5,
                             cat_smooth=1, max_cat_to_onehot=2, **KW).fit(X, y)
    model = rulekit.from_lightgbm(est)
    feat = model.features[0]
    assert feat.kind == "nominal" and feat.domain == tuple(cats)
    assert any(a["kind"] == "nominal" for t in model.trees for _, a in t.nodes(data=True))
    assert_parity(est, model, X)
    # LightGBM maps categories by value: a frame with other category order and unseen values
    T = pd.DataFrame({"c": pd.Categorical(list(reversed(cats)) + ["purple", None] * 3,
                                          categories=list(reversed(cats)) + ["purple"]),
                      "a": np.linspace(-2, 2, len(cats) + 6)})
    np.testing.assert_allclose(model.predict_proba(T), est.predict_proba(T), rtol=0, atol=1e-12)


def test_pandas_categorical_with_integer_categories_is_exact_match():
    rng = np.random.default_rng(2)
    n = 600
    v = rng.choice([10, 20, 30, 40], n)
    a = rng.normal(size=n)
    X = pd.DataFrame({"c": pd.Categorical(v), "a": a})
    y = (np.isin(v, [10, 30]) ^ (a > 1)).astype(int)
    est = lgb.LGBMClassifier(n_estimators=5, num_leaves=4, min_child_samples=5, min_data_per_group=5,
                             cat_smooth=1, max_cat_to_onehot=1, **KW).fit(X, y)
    model = rulekit.from_lightgbm(est)
    assert model.features[0].domain == (10, 20, 30, 40) and model.features[0].match == "exact"
    T = pd.DataFrame({"c": pd.Categorical([10, 20, 30, 40, None, 10.5, 30.2, 50, 1]),
                      "a": [0, 0, 0, 0, 0, 0, 0, 2, 2.0]})
    np.testing.assert_allclose(model.predict_proba(T), est.predict_proba(T), rtol=0, atol=1e-12)
    assert_parity(est, model, X)


def test_integer_coded_categoricals_truncate_like_a_c_cast():
    rng = np.random.default_rng(3)
    n = 1000
    k = rng.integers(0, 40, n).astype(float)
    c = rng.integers(0, 6, n).astype(float)
    a = rng.normal(size=n)
    y = ((k % 3 == 0) + np.isin(c, [1, 4]) + a > 0.8).astype(int)
    X = np.column_stack([c, a, k])
    X[rng.random(n) < 0.1, 0] = np.nan
    est = lgb.LGBMClassifier(n_estimators=10, num_leaves=8, min_child_samples=5, min_data_per_group=5,
                             cat_smooth=1, max_cat_to_onehot=2, **KW).fit(X, y, categorical_feature=[0, 2])
    model = rulekit.from_lightgbm(est)
    assert [f.kind for f in model.features] == ["nominal", "numeric", "nominal"]
    assert model.features[2].match == "truncate"
    weird = [-1, -0.5, -0.0, 0.5, 2.9, 3.99999, 39.99, 40, 41, 1e10, 2.0**31, -2.0**31 - 5, np.nan,
             np.inf, -np.inf, 1e-40, -1e-300, 3, 6, 12.5]
    T = np.array([[w1, x, w2] for w1 in weird for w2 in weird for x in (-1.0, 1.0)])
    assert_parity(est, model, T)
    assert_parity(est, model, X)


def test_mixed_pandas_and_integer_categoricals_are_matched():
    """A pandas category column plus a numeric column declared categorical: the single pandas
    category list must go to the right feature."""
    rng = np.random.default_rng(4)
    n = 800
    cats = ["w", "x", "y", "z"]
    c = rng.choice(cats, n)
    k = rng.integers(0, 30, n).astype(float)
    X = pd.DataFrame({"k": k, "c": pd.Categorical(c, categories=cats), "a": rng.normal(size=n)})
    y = ((c == "y") + (k % 4 == 1) + X["a"] > 0.6).astype(int)
    est = lgb.LGBMClassifier(n_estimators=8, num_leaves=8, min_child_samples=5, min_data_per_group=5,
                             cat_smooth=1, max_cat_to_onehot=2, **KW).fit(X, y, categorical_feature=["k", "c"])
    model = rulekit.from_lightgbm(est)
    assert model.features[1].domain == tuple(cats) and model.features[0].domain == tuple(range(30))
    assert_parity(est, model, X)


def test_booster_and_class_labels():
    X, y = _synthetic(seed=5)
    labels = np.array(["no", "it's yes"], dtype=object)[y]
    est = lgb.LGBMClassifier(n_estimators=5, num_leaves=6, **KW).fit(X, labels)
    model = rulekit.from_lightgbm(est)
    assert model.classes == ["it's yes", "no"]
    assert_parity(est, model, X)
    from_booster = rulekit.from_lightgbm(est.booster_)
    assert from_booster.classes == [0, 1] and from_booster.source["estimator"] == "Booster"
    assert_parity(est.booster_, from_booster, X)


def test_feature_names_from_dataframe():
    X, y = _synthetic(n=400, seed=6)
    names = ["alpha", "Beta", "gamma_1", "delta", "Age"]
    est = lgb.LGBMRegressor(n_estimators=4, num_leaves=5, **KW).fit(pd.DataFrame(X, columns=names), y)
    model = rulekit.from_lightgbm(est)
    assert model.feature_names == names
    shuffled = pd.DataFrame(X[:, ::-1], columns=names[::-1])
    np.testing.assert_allclose(model.predict(shuffled), est.predict(pd.DataFrame(X, columns=names)),
                               rtol=0, atol=1e-12)


def test_save_load_round_trip(tmp_path):
    X, y = _synthetic(seed=7)
    est = lgb.LGBMClassifier(n_estimators=6, num_leaves=8, zero_as_missing=True, **KW).fit(X, y)
    model = rulekit.from_lightgbm(est)
    model.save(tmp_path / "m.json")
    back = rulekit.load(tmp_path / "m.json")
    P = np.vstack([probe_rows(model, X[:100]), _odd_rows(X)])
    assert np.array_equal(back.predict_proba(P), model.predict_proba(P))
    assert_parity(est, back, P)


def test_saved_text_file_and_cli_import(tmp_path, capsys):
    rng = np.random.default_rng(8)
    n = 600
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)), "x": rng.normal(size=n)})
    y = rng.integers(0, 3, n)
    y[(X["c"] == "b").to_numpy()] = 1
    est = lgb.LGBMClassifier(n_estimators=4, num_leaves=5, min_child_samples=5, min_data_per_group=5,
                             **KW).fit(X, y)
    src = tmp_path / "model.txt"
    est.booster_.save_model(src)
    direct = rulekit.from_lightgbm(src)
    assert direct.features[0].domain == ("a", "b", "c", "d")
    np.testing.assert_allclose(direct.predict_proba(X), est.predict_proba(X), rtol=0, atol=1e-12)
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit) as exc:
        main(["import", str(src), "-o", str(out)])
    assert exc.value.code == 0, capsys.readouterr().err
    imported = rulekit.load(out)
    np.testing.assert_allclose(imported.predict_proba(X), est.predict_proba(X), rtol=0, atol=1e-12)
    assert np.array_equal(imported.predict(X), est.predict(X))


def _cli_error(args, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        main(args)
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_damaged_and_unsupported_files_exit_2_with_one_line(tmp_path, capsys):
    X, y = _synthetic(n=300, seed=9)
    est = lgb.LGBMClassifier(n_estimators=2, num_leaves=4, **KW).fit(X, y)
    good = est.booster_.model_to_string()
    out = str(tmp_path / "out.json")
    cases = {
        "truncated.txt": (good[: good.index("Tree=1")], "end of trees"),
        "cut.txt": (good[: len(good) // 3], "expected key=value"),
        "garbage.txt": ("tree\nversion=v4\nnum_class=abc\n\nend of trees\n", "num_class"),
        "badchild.txt": (good.replace("left_child=", "left_child=7 ", 1), "left_child"),
        "ova.txt": (good.replace("objective=binary sigmoid:1", "objective=multiclassova num_class:2"),
                    "multiclassova"),
        "poisson.txt": (good.replace("objective=binary sigmoid:1", "objective=poisson"), "poisson"),
        "linear.txt": (good.replace("is_linear=0", "is_linear=1", 1), "linear"),
        "binary.txt": ("\x00\xff garbage", "UTF-8"),
    }
    for name, (content, words) in cases.items():
        (tmp_path / name).write_bytes(content.encode("latin-1") if name == "binary.txt"
                                      else content.encode())
        line = _cli_error(["import", str(tmp_path / name), "--format", "lightgbm", "-o", out], capsys)
        assert name in line and words in line, line
    assert not (tmp_path / "out.json").exists()


def test_linear_trees_are_refused():
    X, y = _synthetic(n=400, seed=10, nan=0.0)
    est = lgb.LGBMRegressor(n_estimators=2, num_leaves=4, linear_tree=True, **KW).fit(X, y)
    with pytest.raises(RulekitError, match="linear trees"):
        rulekit.from_lightgbm(est)
    with pytest.raises(RulekitError, match="not fitted"):
        rulekit.from_lightgbm(lgb.LGBMClassifier())


def _chain_text(depth: int) -> str:
    """One tree: node i splits x at i + 0.5; its left is leaf i, its right node i + 1."""
    n = depth
    left = [str(~i) for i in range(n)]
    right = [str(i + 1) for i in range(n - 1)] + [str(~n)]
    missing = [str(8 | (2 * (i % 2))) for i in range(n)]  # NaN type, default alternating
    return "\n".join([
        "tree", "version=v4", "num_class=1", "num_tree_per_iteration=1", "label_index=0",
        "max_feature_idx=0", "objective=regression", "feature_names=x", f"feature_infos=[0:{n}]", "",
        "Tree=0", f"num_leaves={n + 1}", "num_cat=0", "split_feature=" + " ".join(["0"] * n),
        "threshold=" + " ".join(repr(i + 0.5) for i in range(n)),
        "decision_type=" + " ".join(missing), "left_child=" + " ".join(left),
        "right_child=" + " ".join(right),
        "leaf_value=" + " ".join(repr((i % 7) / 8) for i in range(n + 1)),
        "is_linear=0", "shrinkage=1", "", "", "end of trees", ""])


def test_deep_chain_no_recursion():
    depth = 6000
    text = _chain_text(depth)
    limit = sys.getrecursionlimit()
    model = parse_model(text)
    assert sys.getrecursionlimit() == limit
    xs = np.array([[-1.0], [0.5], [0.50000001], [depth - 0.5], [depth + 1.0], [np.nan], [3.0]])
    want = lgb.Booster(model_str=text).predict(xs)
    assert np.array_equal(model.predict(xs), want)


def test_zero_island_copies_drop_tests_the_path_decides():
    """Two zero-as-missing splits on one feature, both defaulting right: the copy of the inner
    split under the zero island needs no test at all, the other copy only ``x <= 2``."""
    text = _one_split_text(1.0, (1 << 2)).replace("split_feature=0 1", "split_feature=0 0") \
        .replace("threshold=1.0 5", "threshold=1.0 2.0").replace("decision_type=4 2",
                                                                   "decision_type=4 4")
    model = parse_model(text)
    assert model.trees[0].number_of_nodes() == 9  # 19 without dropping decided tests
    values = ODD + [1.0, 2.0, -1.0, 1.5, 3.0, float(np.nextafter(2.0, 3)), float(np.nextafter(1.0, 0))]
    X = np.array([[v, 0.0] for v in values])
    assert np.array_equal(model.predict(X), lgb.Booster(model_str=text).predict(X))


def test_corrupted_files_raise_rulekit_errors_only(tmp_path):
    """Random byte flips, cuts and insertions: a RulekitError or a valid model, never a crash."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abcd"), 300)), "x": rng.normal(size=300)})
    est = lgb.LGBMClassifier(n_estimators=2, num_leaves=4, min_data_per_group=5, cat_smooth=1, **KW)
    good = est.fit(X, rng.integers(0, 3, 300)).booster_.model_to_string().encode()
    path = tmp_path / "bad.txt"
    for _ in range(200):
        b = bytearray(good)
        i = int(rng.integers(len(b)))
        kind = i % 3
        if kind == 0:
            b[i] = int(rng.choice(list(b"0123456789-.e =:\n[]x")))
        elif kind == 1:
            del b[i:]
        else:
            del b[i:i + int(rng.integers(1, 30))]
        path.write_bytes(bytes(b))
        try:
            rulekit.from_lightgbm(path)
        except RulekitError as err:
            assert "\n" not in str(err)
