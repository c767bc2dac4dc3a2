"""CatBoost importer: raw values bit-identical to ``predict(prediction_type="RawFormulaVal")``,
probabilities within 1e-12 and identical labels, on rows at every border, its float64 and float32
neighbours, NaN rows and category rows (seen, unseen), for every supported kind: symmetric,
Depthwise and Lossguide trees; RMSE, Logloss, MultiClass; nan_mode Min, Max, Forbidden."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

catboost = pytest.importorskip("catboost")

import rulekit  # noqa: E402
from rulekit.cli import main  # noqa: E402
from rulekit.errors import RulekitError  # noqa: E402
from rulekit.foreign import identify  # noqa: E402
from rulekit.importers.catboost import from_catboost, load_file, model_from_json  # noqa: E402
from rulekit.ir.model import Model  # noqa: E402
from rulekit.probe import boundary_values, model_thresholds  # noqa: E402
from tests.marks import fast_cases  # noqa: E402

KW = {"verbose": 0, "allow_writing_files": False, "thread_count": 1, "random_seed": 1}
CATEGORIES = ["a", "b", "c", "o'brien \"x\""]
LABELS = ["lo", "mid", "hi"]


def frame(n: int = 400, seed: int = 0, nan: bool = True) -> pd.DataFrame:
    """Three numeric columns (one with NaN) and a categorical one between them."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    if nan:
        X[::7, 1] = np.nan
    cat = rng.choice(CATEGORIES, n)
    return pd.DataFrame({"x0": X[:, 0], "x 1": X[:, 1], "c": cat, "x2": X[:, 2]})


def target(df: pd.DataFrame, kind: str) -> np.ndarray:
    is_b = (df["c"] == "b").to_numpy() if "c" in df else np.zeros(len(df), dtype=bool)
    score = df["x0"].to_numpy() + is_b + np.nan_to_num(df["x 1"].to_numpy())
    if kind == "reg":
        return score
    if kind == "bin":
        return (score > 0.5).astype(int)
    return np.array(LABELS)[(df["x0"].to_numpy() > 0).astype(int) + is_b]


def fit(kind: str, df: pd.DataFrame, **params):
    est = catboost.CatBoostRegressor if kind == "reg" else catboost.CatBoostClassifier
    params = {"iterations": 20, "depth": 4, "one_hot_max_size": 8, "cat_features": ["c"], **KW, **params}
    if not any(isinstance(v, str) and v == "c" for v in params["cat_features"]):
        params.pop("cat_features")
    return est(**params).fit(df, target(df, kind))


def probe(model: Model, df: pd.DataFrame, seed: int = 0, cat: str = "c") -> pd.DataFrame:
    """``df``, then per border one row per value at it and at its float64/float32 neighbours,
    rows with NaN cells, and rows with an unseen category."""
    rng = np.random.default_rng(seed)
    feats, vals = boundary_values(model_thresholds(model))
    rows = df.iloc[rng.integers(len(df), size=len(vals))].copy().reset_index(drop=True)
    names = model.feature_names
    for i, (j, v) in enumerate(zip(feats, vals)):
        rows.loc[i, names[j]] = v
    nan_rows = df.iloc[rng.integers(len(df), size=60)].copy().reset_index(drop=True)
    numeric = [c for c in df.columns if c != cat]
    for i in range(len(nan_rows)):
        for c in rng.choice(numeric, size=rng.integers(1, len(numeric) + 1), replace=False):
            nan_rows.loc[i, c] = np.nan
    unseen = df.iloc[:10].copy()
    if cat in unseen:
        unseen[cat] = ["zzz", "", "A", "a ", "None", "nan", "0", "b", "a", CATEGORIES[3]]
    return pd.concat([df, rows, nan_rows, unseen], ignore_index=True)


def assert_parity(est, model: Model, P: pd.DataFrame) -> None:
    raw = est.predict(P, prediction_type="RawFormulaVal")
    ours = model.raw_output(P)
    ours = ours[:, 0] if np.ndim(raw) == 1 else ours
    bad = ours != raw
    assert not bad.any(), f"{bad.any(axis=-1).sum() if bad.ndim > 1 else bad.sum()} rows differ " \
                          f"from RawFormulaVal (max {np.max(np.abs(ours - raw))})"
    if model.task == "classification":
        np.testing.assert_allclose(model.predict_proba(P), est.predict(P, prediction_type="Probability"),
                                   rtol=0, atol=1e-12)
        want = est.predict(P, prediction_type="Class").ravel()
        got = model.predict(P)
        assert [str(v) for v in got] == [str(v) for v in want]
    else:
        assert np.array_equal(model.predict(P), est.predict(P))


KINDS = [(policy, kind, nan_mode) for policy in ("SymmetricTree", "Depthwise", "Lossguide")
         for kind in ("reg", "bin", "multi") for nan_mode in ("Min", "Max")]


# the fast lane: each grow policy, each kind and both NaN modes once
@pytest.mark.parametrize("case", fast_cases(KINDS, [("SymmetricTree", "reg", "Min"), ("Depthwise", "bin", "Max"),
                                                    ("Lossguide", "multi", "Min")]), ids=lambda c: "-".join(c))
def test_every_kind_equals_catboost_on_border_nan_and_category_rows(case):
    policy, kind, nan_mode = case
    df = frame()
    est = fit(kind, df, grow_policy=policy, nan_mode=nan_mode)
    model = from_catboost(est, pool=df)
    assert model.source["library"] == "catboost"
    assert model.source["symmetric"] == (policy == "SymmetricTree")
    P = probe(model, df)
    assert len(P) > len(df) + 100
    assert_parity(est, model, P)


def test_nan_mode_forbidden_sends_nan_where_catboost_does():
    df = frame(nan=False)
    est = fit("reg", df, nan_mode="Forbidden")
    model = from_catboost(est, pool=df)
    P = probe(model, df)
    assert P["x0"].isna().any()
    assert_parity(est, model, P)


def test_numeric_only_model_saved_as_json_and_cbm(tmp_path):
    df = frame().drop(columns="c")
    est = fit("bin", df, cat_features=[], depth=3)
    est.save_model(str(tmp_path / "m.json"), format="json")
    est.save_model(str(tmp_path / "m.cbm"))
    for name in ("m.json", "m.cbm"):
        model = load_file(tmp_path / name)
        assert model.source["file"] == name
        assert_parity(est, model, probe(model, df))
    assert rulekit.from_catboost(str(tmp_path / "m.json")).n_features == 3


def test_unnamed_features_are_named_by_position_like_catboost():
    df = frame().drop(columns="c")
    X = df.to_numpy()
    est = catboost.CatBoostRegressor(iterations=5, depth=2, **KW).fit(X, target(df, "reg"))
    model = from_catboost(est)
    assert model.feature_names == [str(n) for n in est.feature_names_] == ["0", "1", "2"]
    assert np.array_equal(model.predict(X), est.predict(X))


def test_exact_at_float32_borders_of_a_written_model(tmp_path):
    """A hand-written JSON model (borders chosen where float32 rounding matters), loaded by CatBoost
    itself: every double near the borders goes where CatBoost sends it."""
    borders = [0.1, -2.5, 1e-30, 3.4028234663852886e38, 16777217.0, -0.0]
    borders = [float(np.float32(b)) for b in borders]
    doc = {"features_info": {"float_features": [
        {"feature_index": 0, "flat_feature_index": 0, "feature_id": "x", "has_nans": True,
         "nan_value_treatment": "AsTrue", "borders": sorted(set(borders))}]},
        "oblivious_trees": [{"splits": [{"split_type": "FloatFeature", "float_feature_index": 0,
                                         "border": b, "split_index": sorted(set(borders)).index(b)}],
                             "leaf_values": [float(i), float(i) + 0.5]} for i, b in enumerate(borders)],
        "scale_and_bias": [1.0, [0.25]]}
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(doc))
    est = catboost.CatBoostRegressor()
    est.load_model(str(path), format="json")
    model = load_file(path)
    with np.errstate(over="ignore"):
        vals = [v for b in borders for v in (b, np.nextafter(b, np.inf), np.nextafter(b, -np.inf),
                float(np.nextafter(np.float32(b), np.float32(np.inf))),
                float(np.nextafter(np.float32(b), np.float32(-np.inf))), b * (1 + 2**-25), b * (1 - 2**-25))]
    vals += [np.nan, np.inf, -np.inf, 1e39, -1e39, 0.0, -0.0, 5e-324]
    with np.errstate(over="ignore"):
        X = np.asarray(vals, dtype=np.float64).reshape(-1, 1)
    want = est.predict(X, prediction_type="RawFormulaVal")
    assert np.array_equal(model.predict(X), want)


def test_scale_and_bias():
    df = frame()
    est = fit("reg", df)
    _, bias = est.get_scale_and_bias()
    est.set_scale_and_bias(0.5, bias + 3.0)  # a power of two: every leaf value scales exactly
    model = from_catboost(est, pool=df)
    P = probe(model, df)
    assert_parity(est, model, P)
    est.set_scale_and_bias(1.1, bias)  # not exact as products of leaves: within a few ulps
    model = from_catboost(est, pool=df)
    assert model.source["scale"] == 1.1
    np.testing.assert_allclose(model.predict(P), est.predict(P), rtol=0, atol=1e-12)


def test_oblivious_expansion_leaves_out_splits_the_path_decides():
    doc = {"features_info": {"float_features": [
        {"feature_index": 0, "flat_feature_index": 0, "feature_id": "x", "has_nans": False,
         "nan_value_treatment": "AsIs", "borders": [1.0, 2.0]}]},
        "oblivious_trees": [{"splits": [
            {"split_type": "FloatFeature", "float_feature_index": 0, "border": 1.0, "split_index": 0},
            {"split_type": "FloatFeature", "float_feature_index": 0, "border": 2.0, "split_index": 1}],
            "leaf_values": [1.0, 2.0, 30.0, 4.0]}]}
    model = model_from_json(doc)
    tree = model.trees[0]
    assert sum(1 for _, k in tree.nodes(data="kind") if k == "leaf") == 3  # leaf 2 is unreachable
    X = np.array([[0.5], [1.0], [1.5], [2.0], [2.5], [np.nan]])
    assert model.predict(X).tolist() == [1.0, 1.0, 2.0, 2.0, 4.0, 1.0]


def test_categories_from_the_pool_and_unseen_or_missing_categories():
    df = frame()
    est = fit("bin", df)
    model = from_catboost(est, pool=catboost.Pool(df, cat_features=["c"]))
    c = model.features[2]
    assert c.kind == "nominal" and set(c.domain) <= set(CATEGORIES)
    P = df.iloc[:4].copy()
    P["c"] = [None, np.nan, "zzz", "b"]
    got = model.raw_output(P)[:, 0]
    Q = P.copy()
    Q["c"] = ["unseen-1", "unseen-2", "zzz", "b"]  # CatBoost refuses missing categories
    assert np.array_equal(got, est.predict(Q, prediction_type="RawFormulaVal"))


def _error(fn, *args, **kwargs) -> str:
    with pytest.raises(RulekitError) as exc:
        fn(*args, **kwargs)
    msg = str(exc.value)
    assert "\n" not in msg
    return msg


def test_ctr_features_are_refused_naming_the_feature(tmp_path, capsys):
    df = frame(n=1500)
    df["city"] = np.random.default_rng(3).choice([f"city{i}" for i in range(300)], len(df))
    y = target(df, "bin") ^ (df["city"].str.len() % 2 == 0).to_numpy()
    est = catboost.CatBoostClassifier(iterations=30, depth=3, one_hot_max_size=4,
                                      cat_features=["c", "city"], **KW).fit(df, y)
    msg = _error(from_catboost, est, pool=df)
    assert "'city'" in msg and "CTR" in msg and "one_hot_max_size" in msg
    # its JSON opens with the CTR tables (keys sorted), longer than the bytes import sniffs
    est.save_model(str(tmp_path / "ctr.json"), format="json", pool=catboost.Pool(df, cat_features=["c", "city"]))
    assert (tmp_path / "ctr.json").read_bytes().find(b'"features_info"') > 4096
    code, err = _cli(["import", str(tmp_path / "ctr.json"), "-o", str(tmp_path / "o.json")], capsys)
    assert code == 2 and "'city'" in err and "CTR" in err and len(err.strip().splitlines()) == 1, err


def test_one_hot_model_without_category_names_is_refused(tmp_path):
    df = frame()
    est = fit("bin", df)
    est.save_model(str(tmp_path / "m.json"), format="json")
    msg = _error(load_file, tmp_path / "m.json")
    assert "'c'" in msg and "pool" in msg and "m.json" in msg


def test_cbm_without_catboost_says_how(tmp_path, monkeypatch):
    df = frame().drop(columns="c")
    est = fit("reg", df, cat_features=[], iterations=2)
    est.save_model(str(tmp_path / "m.cbm"))
    monkeypatch.setitem(__import__("sys").modules, "catboost", None)
    msg = _error(load_file, tmp_path / "m.cbm")
    assert "pip install" in msg and "format='json'" in msg


def test_unsupported_documents_are_refused_in_one_line(tmp_path):
    df = frame().drop(columns="c")
    est = fit("reg", df, cat_features=[], iterations=2, depth=2)
    est.save_model(str(tmp_path / "m.json"), format="json")
    good = json.loads((tmp_path / "m.json").read_text())
    cases = {
        "poisson": ({**good, "model_info": {"params": {"loss_function": {"type": "Poisson"}}}}, "Poisson"),
        "no trees": ({k: v for k, v in good.items() if k != "oblivious_trees"}, "trees"),
        "leaves": ({**good, "oblivious_trees": [{**good["oblivious_trees"][0], "leaf_values": [1.0]}]},
                   "leaf values"),
        "border": ({**good, "oblivious_trees": [{**good["oblivious_trees"][0], "splits": [
            {"split_type": "FloatFeature", "float_feature_index": 0, "border": 0.1}]}]}, "float32"),
        "feature": ({**good, "oblivious_trees": [{**good["oblivious_trees"][0], "splits": [
            {"split_type": "FloatFeature", "float_feature_index": 9, "border": 0.5}]}]}, "does not exist"),
        "text": ({**good, "features_info": {**good["features_info"], "text_features": [{}]}}, "text"),
        "array": ([1, 2], "not a JSON object"),
        "split_index": ({**good, "oblivious_trees": [{**good["oblivious_trees"][0], "splits": [
            {**good["oblivious_trees"][0]["splits"][0], "split_index": 999}]}]}, "split_index"),
        "split type": ({**good, "oblivious_trees": [{**good["oblivious_trees"][0], "splits": [
            {"split_type": "EstimatedFeature"}]}]}, "EstimatedFeature"),
    }
    for name, (doc, words) in cases.items():
        msg = _error(model_from_json, doc)
        assert words in msg, (name, msg)


# --- command line --------------------------------------------------------------------------------


def _cli(args, capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
    return exc.value.code, capsys.readouterr().err


def test_cli_import_sniffs_json_and_cbm(tmp_path, capsys):
    df = frame()
    est = fit("multi", df, iterations=5)
    est.save_model(str(tmp_path / "m.json"), format="json", pool=catboost.Pool(df, cat_features=["c"]))
    est.save_model(str(tmp_path / "m.cbm"))
    out = tmp_path / "out.json"
    code, err = _cli(["import", str(tmp_path / "m.json"), "-o", str(out)], capsys)
    assert code == 0, err
    model = rulekit.load(out)
    assert_parity(est, model, probe(model, df))
    head = (tmp_path / "m.json").read_bytes()[:65536]
    assert identify(head, "m.json") == ("a CatBoost JSON model", "catboost")
    assert identify((tmp_path / "m.cbm").read_bytes()[:100], "m.cbm")[1] == "catboost"
    # the .cbm has no category names: one clear line, exit 2, no output file
    out.unlink()
    code, err = _cli(["import", str(tmp_path / "m.cbm"), "-o", str(out)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "pool" in err, err
    assert not out.exists()
    code, err = _cli(["predict", str(tmp_path / "m.json"), str(tmp_path / "m.json")], capsys)
    assert code == 2 and "rulekit import" in err and "CatBoost" in err, err


def test_cli_damaged_files_exit_2_with_one_line(tmp_path, capsys):
    cases = {"cut.json": b'{"features_info": {"float_features": [', "bin.cbm": b"CBM1\x00garbage",
             "empty.json": b"{}", "latin.json": b'{"features_info": "\xff"}'}
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        code, err = _cli(["import", str(tmp_path / name), "--format", "catboost", "-o",
                          str(tmp_path / "o.json")], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert name in err, err
    assert not (tmp_path / "o.json").exists()


def test_fitted_object_errors():
    msg = _error(from_catboost, object())
    assert "CatBoost" in msg
    msg = _error(from_catboost, catboost.CatBoostRegressor())
    assert "not fitted" in msg


@pytest.mark.parametrize("labels", [[True, False], [3, 7], ["no", "yes"], [5, 2, 9]], ids=str)
def test_class_labels_keep_their_type_and_order(labels):
    df = frame()
    y = np.array(labels)[target(df, "bin") if len(labels) == 2 else
                         (df["x0"].to_numpy() > 0).astype(int) + (df["c"] == "b").to_numpy()]
    est = catboost.CatBoostClassifier(iterations=10, depth=3, cat_features=["c"], one_hot_max_size=8,
                                      **KW).fit(df, y)
    model = from_catboost(est, pool=df)
    assert model.classes == sorted(labels) == [v.item() if hasattr(v, "item") else v for v in est.classes_]
    assert_parity(est, model, probe(model, df))


def test_cross_entropy_with_probability_targets():
    df = frame()
    est = catboost.CatBoostClassifier(loss_function="CrossEntropy", iterations=10, depth=3,
                                      cat_features=["c"], one_hot_max_size=8, **KW)
    est.fit(df, 1 / (1 + np.exp(-df["x0"].to_numpy())))
    model = from_catboost(est, pool=df)
    assert model.classes == [0, 1] and model.source["loss"] == "CrossEntropy"
    assert_parity(est, model, probe(model, df))


def test_integer_categories_and_a_categorical_feature_no_tree_tests():
    df = frame()
    rng = np.random.default_rng(5)
    df["k"] = rng.integers(0, 4, len(df))
    df["u"] = rng.choice(["p", "q"], len(df))
    y = target(df, "bin") ^ (df["k"] == 2).to_numpy()
    est = catboost.CatBoostClassifier(iterations=15, depth=3, cat_features=["c", "k", "u"],
                                      one_hot_max_size=8, **KW).fit(df, y)
    model = from_catboost(est, pool=df)
    k = model.features[4]
    assert k.kind == "nominal" and set(k.domain) <= {"0", "1", "2", "3"}  # CatBoost hashes the text
    P = probe(model, df.drop(columns=["k", "u"])).assign(
        k=lambda t: np.resize(df["k"].to_numpy(), len(t)), u=lambda t: np.resize(df["u"].to_numpy(), len(t)))
    P.loc[::13, "k"] = 7  # unseen
    assert_parity(est, model, P)


def test_rules_and_dsl_round_trip_equal_catboost():
    df = frame()
    est = fit("multi", df, iterations=8, depth=3)
    model = from_catboost(est, pool=df)
    P = probe(model, df)
    rb = rulekit.to_rules(model)
    back = rulekit.dsl.loads(rulekit.dsl.dumps(rb, exact=True))
    want = est.predict(P, prediction_type="Class").ravel().tolist()
    for rules in (rb, back):
        assert rules.predict(P).tolist() == want
        np.testing.assert_allclose(rules.predict_proba(P), est.predict_proba(P), rtol=0, atol=1e-12)


def test_cli_predict_on_csv_equals_catboost(tmp_path, capsys):
    df = frame()
    est = fit("bin", df, iterations=8, depth=3)
    est.save_model(str(tmp_path / "m.json"), format="json", pool=catboost.Pool(df, cat_features=["c"]))
    model = load_file(tmp_path / "m.json")
    P = probe(model, df)
    P = P[P["c"] != ""]  # an empty CSV cell is missing, which CatBoost refuses for a category
    P.to_csv(tmp_path / "p.csv", index=False)
    code, err = _cli(["import", str(tmp_path / "m.json"), "-o", str(tmp_path / "model.json")], capsys)
    assert code == 0, err
    code, err = _cli(["predict", str(tmp_path / "model.json"), str(tmp_path / "p.csv"), "--proba",
                      "-o", str(tmp_path / "pred.csv")], capsys)
    assert code == 0, err
    pred = pd.read_csv(tmp_path / "pred.csv")
    Q = pd.read_csv(tmp_path / "p.csv", keep_default_na=False, na_values={c: [""] for c in P.columns if c != "c"})
    assert pred["prediction"].tolist() == est.predict(Q).ravel().tolist()
    np.testing.assert_allclose(pred[["proba:0", "proba:1"]].to_numpy(), est.predict_proba(Q), rtol=0, atol=1e-12)


def _written(tmp_path, doc: dict):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc))
    est = catboost.CatBoostClassifier()
    est.load_model(str(path), format="json")
    return est, load_file(path)


def _selector(n_leaves: int) -> dict:
    return {"float_features": [{"feature_index": 0, "flat_feature_index": 0, "feature_id": "x",
                                "has_nans": False, "nan_value_treatment": "AsIs",
                                "borders": [i + 0.5 for i in range(n_leaves - 1)]}]}


def test_labels_at_ties_follow_catboost(tmp_path):
    """Logloss: class 1 iff raw > 0 (a raw score of 1e-20 has probability 0.5 and class 1);
    MultiClass: the first class of the largest raw score. Non-symmetric 'left' is bit 0."""
    vals = [0.0, 1e-20, -1e-20, 5e-324, -0.0, 1e-300, 1e-16, -5e-17]

    def split(i):
        return {"split_type": "FloatFeature", "float_feature_index": 0, "border": i + 0.5, "split_index": i}

    def node(lo, hi):  # leaves lo..hi-1 of a balanced tree over x = 0..7
        if hi - lo == 1:
            return {"value": vals[lo]}
        mid = (lo + hi) // 2
        return {"split": split(mid - 1), "left": node(lo, mid), "right": node(mid, hi)}

    doc = {"features_info": _selector(8), "trees": [node(0, 8)], "scale_and_bias": [1.0, [0.0]],
           "model_info": {"params": {"loss_function": {"type": "Logloss"}},
                          "class_params": {"class_label_type": "Integer", "class_names": [0, 1],
                                           "class_to_label": [0, 1]}}}
    est, model = _written(tmp_path, doc)
    X = np.arange(8, dtype=np.float64).reshape(-1, 1)
    assert model.predict(X).tolist() == est.predict(X, prediction_type="Class").tolist() == [0, 1, 0, 1, 0, 1, 1, 0]
    assert np.array_equal(model.raw_output(X)[:, 0], est.predict(X, prediction_type="RawFormulaVal"))
    doc = {"features_info": _selector(2), "scale_and_bias": [1.0, [0.0, 0.0, 0.0]],
           "oblivious_trees": [{"splits": [split(0)], "leaf_values": [1.0, 1.0, 0.0, 0.0, 2.0, 2.0]}],
           "model_info": {"params": {"loss_function": {"type": "MultiClass"}},
                          "class_params": {"class_label_type": "String", "class_names": ["a", "b", "c"],
                                           "class_to_label": [0, 1, 2]}}}
    est, model = _written(tmp_path, doc)
    X = np.array([[0.0], [1.0]])
    assert model.predict(X).tolist() == est.predict(X, prediction_type="Class").ravel().tolist() == ["a", "b"]


def test_a_pool_catboost_cannot_read_is_one_line():
    df = frame()
    est = fit("bin", df, iterations=3, depth=2)
    msg = _error(from_catboost, est, pool=df.assign(c=np.nan))
    assert msg.startswith("pool: catboost cannot read")


@pytest.mark.parametrize("saved", ["json", "cbm"])
def test_verify_against_catboost_itself(tmp_path, capsys, saved):
    """``rulekit verify --source-model`` runs CatBoost on the same rows (rows with a missing
    category, which CatBoost refuses, are left out and said so)."""
    df = frame() if saved == "json" else frame().drop(columns="c")
    est = fit("multi", df, iterations=6, depth=3, **({} if saved == "json" else {"cat_features": []}))
    src = tmp_path / f"m.{saved}"
    est.save_model(str(src), format=saved, **({"pool": catboost.Pool(df, cat_features=["c"])}
                                               if saved == "json" else {}))
    model = tmp_path / "model.json"
    code, err = _cli(["import", str(src), "-o", str(model)], capsys)
    assert code == 0, err
    df.iloc[:200].to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(SystemExit) as exc:
        main(["verify", str(model), str(tmp_path / "d.csv"), "--backends", "python", "--source-model", str(src)])
    out = capsys.readouterr()
    assert exc.value.code == 0, out.out + out.err
    assert f"against catboost {catboost.__version__} itself" in out.out
    assert ("refuses them" in out.out) == (saved == "json")
