"""The scikit-learn importer equals scikit-learn, kind by kind, on bundled and synthetic data.

Every case is checked on the data plus ``rulekit.probe`` rows (each threshold, its float32/float64
neighbours) and NaN rows: labels identical, regression values and boosting raw scores bit for bit,
probabilities bit for bit except the binary sigmoid (scipy's ``expit`` uses libm ``exp``, numpy its
own; they differ by at most 1 ulp, well inside 1e-12). Canary tests show the probe and NaN rows do
catch the wrong semantics, so the parity tests can fail.
"""

from __future__ import annotations

import functools

import joblib
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from sklearn import datasets
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)

import rulekit
from rulekit.cli import main
from rulekit.errors import RulekitError
from rulekit.importers.sklearn import tree_graph
from rulekit.ir.model import Feature, Model
from rulekit.probe import probe_rows
from tests import zoo
from tests.marks import slow_cases

TOL = 1e-12
pytestmark = pytest.mark.filterwarnings("ignore:X (has|does not have valid) feature names")


# --- data ------------------------------------------------------------------------------------------

@functools.cache
def dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) by name: scikit-learn's bundled sets, and synthetic ones with or without NaN."""
    loaders = {"iris": datasets.load_iris, "breast_cancer": datasets.load_breast_cancer,
               "wine": datasets.load_wine, "diabetes": datasets.load_diabetes}
    if name in loaders:
        return loaders[name](return_X_y=True)
    kind, classes, nan = name.split("_")  # e.g. "synth_3_nan", "synth_reg_clean"
    X, X_nan, y = zoo._data(n_rows=400, n_features=6, seed=7, classes=2 if classes == "reg" else
                            int(classes))
    if classes == "reg":
        y = X[:, 0] * 3.3 + np.sin(X[:, 1]) + y
    return (X_nan if nan == "nan" else X), y


CASES = {
    # name: (estimator factory, data set)
    "tree_clf_iris": (lambda: DecisionTreeClassifier(random_state=0), "iris"),
    "tree_clf_nan": (lambda: DecisionTreeClassifier(max_depth=8, random_state=0), "synth_3_nan"),
    "tree_reg_diabetes": (lambda: DecisionTreeRegressor(max_depth=8, random_state=0), "diabetes"),
    "extratree_clf_wine": (lambda: ExtraTreeClassifier(random_state=0), "wine"),
    "extratree_reg_nan": (lambda: ExtraTreeRegressor(max_depth=8, random_state=0), "synth_reg_nan"),
    "forest_clf_breast_cancer": (lambda: RandomForestClassifier(n_estimators=15, max_depth=8,
                                                                random_state=0), "breast_cancer"),
    "forest_clf_nan": (lambda: RandomForestClassifier(n_estimators=10, random_state=0), "synth_2_nan"),
    "forest_reg_diabetes": (lambda: RandomForestRegressor(n_estimators=10, max_depth=8,
                                                          random_state=0), "diabetes"),
    "extratrees_clf_iris": (lambda: ExtraTreesClassifier(n_estimators=10, random_state=0), "iris"),
    "extratrees_reg_nan": (lambda: ExtraTreesRegressor(n_estimators=10, max_depth=8,
                                                       random_state=0), "synth_reg_nan"),
    "gb_binary_breast_cancer": (lambda: GradientBoostingClassifier(n_estimators=25, random_state=0),
                                "breast_cancer"),
    "gb_binary_exponential": (lambda: GradientBoostingClassifier(loss="exponential", n_estimators=20,
                                                                 subsample=0.8, random_state=0),
                              "synth_2_clean"),
    "gb_binary_zero_init": (lambda: GradientBoostingClassifier(init="zero", n_estimators=15,
                                                               learning_rate=0.37, random_state=0),
                            "synth_2_clean"),
    "gb_multi_iris": (lambda: GradientBoostingClassifier(n_estimators=20, random_state=0), "iris"),
    "gb_multi_wine": (lambda: GradientBoostingClassifier(n_estimators=15, max_depth=2,
                                                         random_state=0), "wine"),
    "gb_reg_diabetes": (lambda: GradientBoostingRegressor(n_estimators=25, random_state=0),
                        "diabetes"),
    "gb_reg_huber": (lambda: GradientBoostingRegressor(loss="huber", n_estimators=15,
                                                       random_state=0), "synth_reg_clean"),
    "gb_reg_quantile": (lambda: GradientBoostingRegressor(loss="quantile", alpha=0.3,
                                                          n_estimators=15, random_state=0),
                        "diabetes"),
    "hgb_binary_breast_cancer": (lambda: HistGradientBoostingClassifier(max_iter=15, random_state=0),
                                 "breast_cancer"),
    "hgb_binary_nan": (lambda: HistGradientBoostingClassifier(max_iter=20, random_state=0),
                       "synth_2_nan"),
    "hgb_multi_wine": (lambda: HistGradientBoostingClassifier(max_iter=15, random_state=0), "wine"),
    "hgb_multi_nan": (lambda: HistGradientBoostingClassifier(max_iter=10, random_state=0),
                      "synth_3_nan"),
    "hgb_reg_diabetes": (lambda: HistGradientBoostingRegressor(max_iter=25, random_state=0),
                         "diabetes"),
    "hgb_reg_nan": (lambda: HistGradientBoostingRegressor(loss="absolute_error", max_iter=15,
                                                          random_state=0), "synth_reg_nan"),
}


@functools.cache
def fitted(case: str):
    """(estimator, model, probe matrix) for a case, fitted once per test session."""
    factory, data = CASES[case]
    X, y = dataset(data)
    est = factory().fit(X, y)
    model = rulekit.from_sklearn(est)
    return est, model, probe_rows(model, X, n_missing=300)


def is_gb(est) -> bool:
    return type(est).__name__.startswith("GradientBoosting")


def reference(est, M: np.ndarray):
    """scikit-learn's (labels, probabilities or values, raw scores or None) for the rows of ``M``.

    GradientBoosting refuses NaN in its public API; its own arithmetic (``_raw_predict``, the
    float32 input it validates to) is the reference there, and labels are checked on finite rows.
    """
    classifier = hasattr(est, "classes_")
    if is_gb(est):
        raw = est._raw_predict(np.ascontiguousarray(M, dtype=np.float32))
        finite = ~np.isnan(M).any(axis=1)
        labels = est.predict(M[finite]) if classifier else None
        out = est._loss.predict_proba(raw) if classifier else raw[:, 0]
        return labels, out, raw, finite
    raw = est._raw_predict(M) if hasattr(est, "_predictors") else None
    labels = est.predict(M) if classifier else None
    out = est.predict_proba(M) if classifier else est.predict(M)
    return labels, out, raw, np.ones(len(M), bool)


def assert_parity(est, model: Model, M, *, data=None) -> float:
    """Assert the model equals ``est`` on ``M`` (``data``: the same rows as the model reads them,
    default ``M``); return the largest probability difference."""
    data = M if data is None else data
    labels, out, raw, finite = reference(est, M)
    if raw is not None:
        ours = model.raw_output(data)
        factor = 2.0 if getattr(est, "loss", None) == "exponential" else 1.0
        assert np.array_equal(ours, factor * raw), "raw scores differ"
    if labels is None:
        assert np.array_equal(model.predict(data), out), "regression values differ"
        return 0.0
    got = model.predict(data)
    assert np.array_equal(got[finite], labels), (
        f"{int((got[finite] != labels).sum())} of {int(finite.sum())} labels differ")
    P = model.predict_proba(data)
    diff = float(np.abs(P - out).max())
    assert diff <= TOL, f"probabilities differ by {diff}"
    binary_boost = raw is not None and out.shape[1] == 2
    if not binary_boost:
        assert np.array_equal(P, out), "probabilities are not bit-identical"
    return diff


@pytest.mark.parametrize("case", slow_cases(list(CASES), [c for c in CASES if c.startswith("hgb_")
                                                            and c != "hgb_binary_nan"]))
def test_parity_on_probe_and_nan_rows(case):
    est, model, M = fitted(case)
    assert np.isnan(M).any() and len(M) > 300
    assert_parity(est, model, M)


@pytest.mark.parametrize("case", ["tree_clf_nan", "forest_reg_diabetes", "gb_multi_iris",
                                  "gb_binary_breast_cancer", "hgb_binary_nan", "hgb_reg_nan"])
def test_model_file_round_trip_keeps_predictions(case, tmp_path):
    est, model, M = fitted(case)
    model.save(tmp_path / "m.json")
    back = rulekit.load(tmp_path / "m.json")
    assert np.array_equal(back.raw_output(M), model.raw_output(M))
    assert np.array_equal(back.predict(M), model.predict(M))
    assert back.combiner == model.combiner and back.features == model.features
    assert_parity(est, back, M)


# --- gradient boosting specifics ------------------------------------------------------------------

def test_gb_structure_follows_stage_order():
    est, model, _ = fitted("gb_multi_iris")
    n_stages, k = est.estimators_.shape
    assert model.combiner.kind == "sum" and model.combiner.link == "softmax"
    assert model.combiner.tree_output == tuple(j for _ in range(n_stages) for j in range(k))
    raw0 = est._raw_predict_init(np.zeros((1, 4), np.float32))[0]
    assert model.combiner.base_score == tuple(raw0)
    # leaf = learning_rate * value, the product predict_stages adds
    t = est.estimators_[3, 2].tree_
    leaf = int(np.flatnonzero(t.children_left == -1)[0])
    assert model.trees[3 * k + 2].nodes[leaf]["value"] == (est.learning_rate * t.value[leaf, 0, 0],)


def test_gb_refuses_nan_and_rulekit_sends_it_right_like_predict_stages():
    est, model, M = fitted("gb_reg_diabetes")
    nan_rows = M[np.isnan(M).any(axis=1)]
    with pytest.raises(ValueError):
        est.predict(nan_rows)
    # canary: following the trees' missing_go_to_left instead disagrees with predict_stages
    lr = est.learning_rate
    wrong = Model([tree_graph(t.tree_, classifier=False, scale=lr) for t in est.estimators_[:, 0]],
                  model.features, task="regression", combiner=model.combiner)
    raw = est._raw_predict(np.ascontiguousarray(nan_rows, dtype=np.float32))[:, 0]
    assert np.array_equal(model.predict(nan_rows), raw)
    assert (wrong.predict(nan_rows) != raw).sum() > 10


def test_gb_label_at_raw_zero_is_the_positive_class():
    """GradientBoosting predicts classes_[1] when raw == 0 (``>= 0``), where P = (0.5, 0.5)."""
    X = np.repeat([[0.0], [1.0], [3.0], [5.0]], 2, axis=0)
    y = np.array([0, 1] * 4)
    est = GradientBoostingClassifier(n_estimators=3, max_depth=1).fit(X, y)
    model = rulekit.from_sklearn(est)
    assert (est.decision_function(X) == 0).all()
    assert np.array_equal(model.predict(X), est.predict(X)) and (model.predict(X) == 1).all()
    assert np.array_equal(model.predict_proba(X), est.predict_proba(X))


@pytest.mark.parametrize("decision, raw, label", [("raw>=0", 0.0, 1), ("raw>=0", -1e-17, 0),
                                                  ("raw>0", 0.0, 0), ("raw>0", 1e-17, 1)])
def test_binary_label_comes_from_the_raw_score(decision, raw, label):
    """Near raw == 0 both probabilities round to 0.5: GradientBoosting labels by ``raw >= 0``,
    HistGradientBoosting by ``raw > 0``; the converted models carry that rule."""
    from rulekit.ir.model import Combiner
    from rulekit.ir.tree import TreeBuilder

    b = TreeBuilder()
    b.leaf((0.0,))
    model = Model([b.graph], [Feature(name="x")], task="classification", classes=["no", "yes"],
                  combiner=Combiner(kind="sum", base_score=(raw,), link="sigmoid",
                                    decision=decision))
    assert model.predict_proba([[1.0]]).tolist() == [[0.5, 0.5]]
    assert model.predict([[1.0]]).tolist() == [["no", "yes"][label]]
    assert fitted("gb_binary_breast_cancer")[1].combiner.decision == "raw>=0"
    assert fitted("hgb_binary_nan")[1].combiner.decision == "raw>0"


def test_gb_init_estimator_rules():
    X, y = dataset("synth_2_clean")
    ok = GradientBoostingClassifier(init=DummyClassifier(strategy="most_frequent"), n_estimators=5,
                                    random_state=0).fit(X, y)
    model = rulekit.from_sklearn(ok)
    assert_parity(ok, model, probe_rows(model, X, n_missing=20))
    for init in (DecisionTreeClassifier(max_depth=2), DummyClassifier(strategy="stratified")):
        est = GradientBoostingClassifier(init=init, n_estimators=3, random_state=0).fit(X, y)
        with pytest.raises(RulekitError, match="depends on the input"):
            rulekit.from_sklearn(est)


# --- hist gradient boosting specifics -------------------------------------------------------------

@pytest.mark.slow  # ~9 s
def test_hgb_compares_float64_canary():
    """The probe rows separate float64 from float32 comparison: switching precision breaks parity."""
    est, model, M = fitted("hgb_reg_diabetes")
    trees = []
    for t in model.trees:
        g = t.copy()
        nx.set_node_attributes(g, {n: "float32" for n, k in g.nodes(data="kind") if k == "numeric"},
                               "precision")
        trees.append(g)
    wrong = Model(trees, model.features, task="regression", combiner=model.combiner)
    assert (wrong.predict(M) != est.predict(M)).sum() > 10


def _categorical_frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "it's", "ünï"], n)
    grade = rng.integers(0, 8, n).astype(float)
    X = pd.DataFrame({"size": rng.normal(10, 4, n),
                      "colour": pd.Categorical(colour, categories=["red", "green", "blue", "it's",
                                                                   "ünï", "never seen"]),
                      "grade": grade, "weight": rng.normal(0, 30, n)})
    y = np.digitize(X["size"] / 4 + np.isin(colour, ["red", "it's"]) * 1.5 + (grade % 3 == 1)
                    - (grade == 6), [3.0, 4.0])
    for col in X.columns:
        X.loc[rng.random(n) < 0.1, col] = np.nan
    return X, y


@functools.cache
def categorical_case():
    X, y = _categorical_frame()
    est = HistGradientBoostingClassifier(max_iter=15, categorical_features=["colour", "grade"],
                                         random_state=0).fit(X, y)
    return X, est, rulekit.from_sklearn(est)


def _hostile_rows(X: pd.DataFrame) -> pd.DataFrame:
    """Unknown, negative, non-integer and missing categories."""
    rows = X.iloc[:12].copy()
    rows["colour"] = rows["colour"].cat.add_categories(["purple"])
    rows["colour"] = pd.Categorical(["never seen", "purple", None, "red", "blue", "green"] * 2,
                                    categories=list(rows["colour"].cat.categories))
    rows["grade"] = [1.5, 2.5, -1.0, -0.5, 9.0, 1e9, 0.0, -0.0, 3.0, np.nan, 6.0, 7.99]
    return rows


@pytest.mark.slow
def test_hgb_categorical_pandas_parity():
    X, est, model = categorical_case()
    colour, grade = model.features[1], model.features[2]
    assert colour.kind == "nominal" and colour.domain == ("blue", "green", "it's", "red", "ünï")
    assert grade.domain == tuple(range(8)) and grade.match == "exact"
    assert any(a["kind"] == "nominal" for t in model.trees for _, a in t.nodes(data=True))
    data = pd.concat([X, _hostile_rows(X)], ignore_index=True)
    sk_labels, sk_proba = est.predict(data), est.predict_proba(data)
    assert np.array_equal(model.predict(data), sk_labels)
    assert np.abs(model.predict_proba(data) - sk_proba).max() <= TOL
    assert np.array_equal(model.raw_output(data), est._raw_predict(data))
    # probe rows on the numeric splits, categories as codes turned back into values
    M = probe_rows(model, model.matrix(X), n_missing=200)
    frame = zoo._frame(model, M)
    assert np.array_equal(model.raw_output(frame), est._raw_predict(frame))
    assert np.array_equal(model.predict(frame), est.predict(frame))


@pytest.mark.slow  # ~25 s
def test_hgb_categorical_truncation_canary():
    """1.5 is an unknown category to scikit-learn; truncating it to 1 (LightGBM's rule) differs."""
    X, est, model = categorical_case()
    feats = [f.model_copy(update={"match": None}) if f.kind == "nominal" else f
             for f in model.features]
    wrong = Model(model.trees, feats, task=model.task, classes=model.classes,
                  combiner=model.combiner)
    rows = pd.concat([X.iloc[:200]] * 3, ignore_index=True)
    rows["grade"] = np.repeat([1.5, 4.5, 6.5], 200)
    sk = est._raw_predict(rows)
    assert np.array_equal(model.raw_output(rows), sk)
    assert (wrong.raw_output(rows) != sk).any()


@pytest.mark.slow
def test_hgb_categorical_numpy_input():
    rng = np.random.default_rng(3)
    n = 400
    X = np.column_stack([rng.integers(0, 5, n), rng.normal(size=n), rng.integers(-3, 3, n)])
    X = X.astype(float)
    y = X[:, 1] + np.isin(X[:, 0], [1, 3]) * 2 - (X[:, 2] == -2)
    X[rng.random(X.shape) < 0.1] = np.nan
    est = HistGradientBoostingRegressor(max_iter=15, categorical_features=[0, 2],
                                        random_state=0).fit(X, y)
    model = rulekit.from_sklearn(est)
    assert model.features[2].domain == (-3, -2, -1, 0, 1, 2)
    M = probe_rows(model, X, n_missing=100)
    odd = np.array([[1.5, 0.0, -2.5], [-1.0, 0.1, -3.0], [7.0, 0.2, 2.0], [3.0, 0.0, 3.0],
                    [0.0, np.nan, np.nan], [4.0, 1.0, -0.0]])
    M = np.vstack([M, odd])
    assert np.array_equal(model.predict(M), est.predict(M))


def test_hgb_missing_side_takes_unseen_categories():
    """Branch 0 = left bitset; the branch on the missing side is the 'other' branch."""
    _, _, model = categorical_case()
    seen = 0
    for t in model.trees:
        for node, a in t.nodes(data=True):
            if a["kind"] != "nominal":
                continue
            seen += 1
            values = {d["branch"]: d["values"] for _, _, d in t.out_edges(node, data=True)}
            assert values[a["missing"]] is None and values[1 - a["missing"]] is not None
    assert seen > 5


# --- refusals and wrappers ------------------------------------------------------------------------

@pytest.mark.slow
def test_single_step_pipeline_converts_and_multi_step_is_folded():
    est, model, M = fitted("hgb_multi_wine")
    X, y = dataset("wine")
    pipe = Pipeline([("model", HistGradientBoostingClassifier(max_iter=15, random_state=0))])
    pipe.fit(X, y)
    assert_parity(pipe, rulekit.from_sklearn(pipe), M)
    two = Pipeline([("scale", StandardScaler()), ("model", GradientBoostingClassifier(
        n_estimators=2))]).fit(X, y)
    finite = M[~np.isnan(M).any(axis=1)]  # gradient boosting refuses NaN
    assert_parity(two, rulekit.from_sklearn(two), finite)  # folded: see tests/importers/test_pipeline.py


@pytest.mark.parametrize("est, match", [
    (HistGradientBoostingRegressor(loss="poisson", max_iter=3), "link"),
    (GradientBoostingRegressor(n_estimators=2), "not fitted"),
    (HistGradientBoostingClassifier(max_iter=2), "not fitted"),
    ({"n_features_in_": 3}, "a dict is not a scikit-learn estimator"),
    (DecisionTreeClassifier(), "not fitted"),
])
def test_refusals_are_one_clear_line(est, match):
    X, y = dataset("diabetes")
    if match == "link":
        est.fit(X, y)
    with pytest.raises(RulekitError, match=match) as info:
        rulekit.from_sklearn(est)
    assert "\n" not in str(info.value)


def test_fractional_float_categories_are_refused():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.choice([0.5, 1.5, 2.5], 200), rng.normal(size=200)])
    est = HistGradientBoostingRegressor(max_iter=3, categorical_features=[0]).fit(X, X[:, 1])
    with pytest.raises(RulekitError, match="whole numbers"):
        rulekit.from_sklearn(est)


# --- the zoo entries this importer contributes ----------------------------------------------------

@pytest.mark.parametrize("name", zoo.zoo_names(kinds=("sklearn_gb_", "sklearn_hgb_")))
def test_zoo_entries_equal_sklearn(name):
    model, data = zoo.get(name)
    est = zoo.SKLEARN_ESTIMATORS[name]
    if is_gb(est):
        M = data.to_numpy(dtype=np.float64)
        assert_parity(est, model, M, data=data)
        return
    assert np.array_equal(model.raw_output(data), est._raw_predict(data))
    if model.task == "classification":
        assert np.array_equal(model.predict(data), est.predict(data))
        assert np.abs(model.predict_proba(data) - est.predict_proba(data)).max() <= TOL


# --- the command line -----------------------------------------------------------------------------

@pytest.mark.parametrize("case", slow_cases(["tree_clf_iris", "extratrees_reg_nan", "gb_binary_breast_cancer",
                                             "gb_multi_wine", "gb_reg_diabetes", "hgb_binary_nan",
                                             "hgb_multi_wine", "hgb_reg_diabetes"],
                                            ["gb_multi_wine", "hgb_multi_wine", "hgb_reg_diabetes"]))
def test_cli_import_pickle(case, tmp_path, capsys):
    est, _, M = fitted(case)
    src, out = tmp_path / "model.joblib", tmp_path / "model.json"
    joblib.dump(est, src)
    with pytest.raises(SystemExit) as ex:
        main(["import", str(src), "--allow-pickle", "-o", str(out)])
    assert ex.value.code == 0, capsys.readouterr().err
    assert_parity(est, rulekit.load(out), M)


@pytest.mark.slow
def test_cli_import_categorical_pickle(tmp_path, capsys):
    X, est, _ = categorical_case()
    src, out = tmp_path / "hgb.pkl", tmp_path / "hgb.json"
    joblib.dump(est, src)
    with pytest.raises(SystemExit) as ex:
        main(["import", str(src), "--format", "sklearn", "--allow-pickle", "-o", str(out)])
    assert ex.value.code == 0, capsys.readouterr().err
    data = pd.concat([X, _hostile_rows(X)], ignore_index=True)
    assert np.array_equal(rulekit.load(out).raw_output(data), est._raw_predict(data))


def test_cli_refuses_pickle_without_flag(tmp_path, capsys):
    est, _, _ = fitted("gb_reg_diabetes")
    src, out = tmp_path / "model.joblib", tmp_path / "model.json"
    joblib.dump(est, src)
    capsys.readouterr()
    with pytest.raises(SystemExit) as ex:
        main(["import", str(src), "-o", str(out)])
    err = capsys.readouterr().err
    assert ex.value.code == 2
    assert err.count("\n") == 1 and "--allow-pickle" in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.slow
def test_cli_refuses_unconvertible_pickle(tmp_path, capsys):
    X, y = dataset("diabetes")
    est = HistGradientBoostingRegressor(loss="gamma", max_iter=2).fit(X, y - y.min() + 1)
    src, out = tmp_path / "gamma.joblib", tmp_path / "gamma.json"
    joblib.dump(est, src)
    with pytest.raises(SystemExit) as ex:
        main(["import", str(src), "--allow-pickle", "-o", str(out)])
    err = capsys.readouterr().err
    assert ex.value.code == 2 and err.count("\n") == 1 and "loss='gamma'" in err
    assert not out.exists()


def test_feature_names_come_from_the_frame():
    X, est, model = categorical_case()
    assert model.feature_names == list(X.columns)
    assert all(isinstance(f, Feature) for f in model.features)
