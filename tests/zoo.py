"""A zoo of models every backend's parity tests run on: (model, data) pairs, small and fast.

``data`` is a pandas DataFrame of user-facing values (labels for nominal features, NaN for missing)
that already includes threshold and missing-value probe rows. Importer owners add their model kinds
here (one function each, registered in ``ZOO``); exporter tests parametrize over ``zoo_names()``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pandas as pd

from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder
from rulekit.probe import probe_rows

HOSTILE_NAMES = ["it's", 'say "hi"', "back\\slash", "new\nline", "select", "naïve ü 列", "order date",
                 "Age", "1st", "a;b--c"]

ZOO: dict[str, Callable[[], tuple[Model, pd.DataFrame]]] = {}


def register(name: str):
    def deco(fn):
        ZOO[name] = functools.cache(fn)
        return fn

    return deco


def zoo_names(*, kinds: tuple[str, ...] | None = None) -> list[str]:
    return [n for n in ZOO if kinds is None or any(n.startswith(k) for k in kinds)]


def get(name: str) -> tuple[Model, pd.DataFrame]:
    return ZOO[name]()


def _frame(model: Model, M: np.ndarray) -> pd.DataFrame:
    """User-facing frame for a float64 code matrix (nominal codes turned back into labels)."""
    cols = {}
    for j, f in enumerate(model.features):
        col = M[:, j]
        if f.kind == "nominal":
            dom = list(f.domain)
            vals = []
            for c in col:
                if np.isnan(c):
                    vals.append(None)
                elif c < 0 or c >= len(dom):
                    vals.append("__unseen__" if isinstance(dom[0], str) else 10_000)
                else:
                    vals.append(dom[int(c)])
            cols[f.name] = pd.Series(vals, dtype=object)
        else:
            cols[f.name] = col
    return pd.DataFrame(cols)


def _data(n_rows: int = 300, n_features: int = 6, seed: int = 0, classes: int = 2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features)) * rng.uniform(0.5, 50, size=n_features)
    X = np.round(X, 2)
    score = X[:, 0] / X[:, 0].std() + np.sin(X[:, 1]) + (X[:, 2] > 0)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    X_nan = X.copy()
    X_nan[rng.random(X.shape) < 0.08] = np.nan
    return X, X_nan, y


SKLEARN_ESTIMATORS: dict[str, object] = {}
"""Zoo name -> the fitted scikit-learn estimator its model was converted from (for parity checks)."""


def _sk(name: str, est, X, y, names=None) -> tuple[Model, pd.DataFrame]:
    import rulekit

    if names is not None:
        X = pd.DataFrame(X, columns=names)
    est.fit(X, y)
    SKLEARN_ESTIMATORS[name] = est
    model = rulekit.from_sklearn(est)
    M = probe_rows(model, np.asarray(X, dtype=np.float64)[:150], n_missing=60)
    return model, _frame(model, M)


@register("sklearn_tree_binary")
def _():
    from sklearn.tree import DecisionTreeClassifier

    X, X_nan, y = _data()
    return _sk("sklearn_tree_binary", DecisionTreeClassifier(max_depth=6, random_state=0), X_nan, y)


@register("sklearn_tree_multiclass_hostile")
def _():
    from sklearn.tree import DecisionTreeClassifier

    X, X_nan, y = _data(n_features=len(HOSTILE_NAMES), classes=3)
    y = np.array(["it's", "b\\c", "ünï"], dtype=object)[y]
    return _sk("sklearn_tree_multiclass_hostile", DecisionTreeClassifier(max_depth=7, random_state=0),
               X_nan, y, names=HOSTILE_NAMES)


@register("sklearn_tree_regressor")
def _():
    from sklearn.tree import DecisionTreeRegressor

    X, X_nan, y = _data()
    return _sk("sklearn_tree_regressor", DecisionTreeRegressor(max_depth=6, random_state=0), X_nan,
               X[:, 0] * 3.3 + y)


@register("sklearn_forest_classifier")
def _():
    from sklearn.ensemble import RandomForestClassifier

    X, X_nan, y = _data(classes=3)
    return _sk("sklearn_forest_classifier",
               RandomForestClassifier(n_estimators=15, max_depth=6, random_state=0), X_nan, y)


@register("sklearn_extratrees_regressor")
def _():
    from sklearn.ensemble import ExtraTreesRegressor

    X, X_nan, y = _data()
    return _sk("sklearn_extratrees_regressor",
               ExtraTreesRegressor(n_estimators=10, max_depth=5, random_state=0), X_nan, X[:, 1] + y)


def _nominal_model() -> Model:
    """Hand-built: a multiway nominal split, a subset split with an 'other' branch, numeric below."""
    feats = [Feature(name="colour", kind="nominal", domain=("red", "green", "blue", "it's")),
             Feature(name="size", kind="numeric"),
             Feature(name="shape", kind="nominal", domain=("circle", "square", "triangle"))]
    b = TreeBuilder()
    root = b.nominal(0, missing=2)
    red = b.numeric(1, 2.5, missing=0)
    b.connect(root, red, 0, values=(0,))
    b.connect(red, b.leaf((0.9, 0.1)), 0)
    b.connect(red, b.leaf((0.2, 0.8)), 1)
    green = b.nominal(2, missing=1)
    b.connect(root, green, 1, values=(1, 3))
    b.connect(green, b.leaf((0.7, 0.3)), 0, values=(0, 2))
    b.connect(green, b.leaf((0.4, 0.6)), 1, values=None)
    b.connect(root, b.leaf((0.5, 0.5)), 2, values=None)
    return Model([b.graph], feats, task="classification", classes=["no", "yes"])


@register("handmade_nominal")
def _():
    model = _nominal_model()
    rng = np.random.default_rng(1)
    n = 200
    M = np.column_stack([rng.integers(-1, 4, n).astype(float), np.round(rng.normal(2.5, 1, n), 1),
                         rng.integers(-1, 3, n).astype(float)])
    M[rng.random(M.shape) < 0.1] = np.nan
    M = probe_rows(model, M, n_missing=30)
    return model, _frame(model, M)


@register("handmade_softmax_near_tie")
def _():
    """Softmax boosting whose raw scores differ by one ulp on some rows: exp rounds both to the same
    value, so the probabilities tie and the label is the first class (argmax of the raw scores would
    give the second). Class names and the feature name are hostile."""
    feats = [Feature(name="it's \"p\"")]
    lo = 0.1
    hi = float(np.nextafter(lo, 1.0))
    trees = []
    for k, (left, right) in enumerate([(lo, lo), (lo, hi), (-3.0, lo)]):
        b = TreeBuilder()
        root = b.numeric(0, 0.5, missing=k % 2)
        b.connect(root, b.leaf((left,)), 0)
        b.connect(root, b.leaf((right,)), 1)
        trees.append(b.graph)
    model = Model(trees, feats, task="classification", classes=["select", "b'c", "ü"],
                  combiner=Combiner(kind="sum", link="softmax", base_score=(0.0, 0.0, 0.0), tree_output=(0, 1, 2)))
    assert model.predict(pd.DataFrame({feats[0].name: [1.0]}))[0] == "select"
    M = probe_rows(model, np.array([[0.0], [1.0], [np.nan]]), n_missing=5)
    return model, _frame(model, M)


@register("handmade_tiny_magnitudes")
def _():
    """Splits at tiny and subnormal float64 thresholds (SQLite 3.40 read the 17-digit literal of
    2.3998446845010052e-293 one ulp low) and leaves of extreme magnitude: a two-tree regression sum
    whose leaves differ by far more than the tolerance, so a wrong side shows."""
    feats = [Feature(name="x"), Feature(name="y")]
    trees = []
    for cuts, leaves in [((2.3998446845010052e-293, 9.552447335286421e-296, 4.9406564584124654e-320),
                          (1.0, 2.0, 3.0, 4.0)),
                         ((-7.3e-300, 1.5e-310, 1e300), (10.0, 1e-300, 30.0, -40.0))]:
        b = TreeBuilder()
        root = b.numeric(0, cuts[0], precision="float64", missing=0)
        lo = b.numeric(1, cuts[1], precision="float64", missing=1)
        hi = b.numeric(1, cuts[2], precision="float64", missing=0)
        b.connect(root, lo, 0)
        b.connect(root, hi, 1)
        for node, (a, c) in ((lo, leaves[:2]), (hi, leaves[2:])):
            b.connect(node, b.leaf((a,)), 0)
            b.connect(node, b.leaf((c,)), 1)
        trees.append(b.graph)
    model = Model(trees, feats, task="regression", combiner=Combiner(kind="sum", base_score=(0.0,)))
    rng = np.random.default_rng(3)
    M = rng.normal(size=(60, 2)) * 10.0 ** rng.integers(-320, -285, size=(60, 2))
    M = probe_rows(model, M, n_missing=20)
    return model, _frame(model, M)


@register("handmade_linear")
def _():
    """An oblique split above axis-parallel ones, float64 semantics, missing to the right."""
    feats = [Feature(name="a"), Feature(name="b"), Feature(name="c")]
    b = TreeBuilder()
    root = b.linear((0, 1), (0.3, 1.2), 4.0, missing=1)
    left = b.numeric(2, 0.5, missing=0)
    b.connect(root, left, 0)
    b.connect(left, b.leaf((1.5,)), 0)
    b.connect(left, b.leaf((-2.25,)), 1)
    b.connect(root, b.leaf((10.0,)), 1)
    model = Model([b.graph], feats, task="regression")
    rng = np.random.default_rng(2)
    M = np.round(rng.normal(2, 3, size=(200, 3)), 1)
    M[:20, 0] = 0.0
    M[:20, 1] = 4.0 / 1.2  # on or next to the oblique boundary
    M = probe_rows(model, M, n_missing=30)
    return model, _frame(model, M)


def chain_model(depth: int, *, precision: str = "float32") -> Model:
    """A chain tree ``depth`` levels deep (each split peels one leaf off) on one feature."""
    b = TreeBuilder()
    node = b.numeric(0, 0.5, precision=precision, missing=0)
    for i in range(1, depth):
        b.connect(node, b.leaf((float(i % 3 == 0), float(i % 3 != 0))), 0)
        nxt = b.numeric(0, i + 0.5, precision=precision, missing=i % 2)
        b.connect(node, nxt, 1)
        node = nxt
    b.connect(node, b.leaf((1.0, 0.0)), 0)
    b.connect(node, b.leaf((0.0, 1.0)), 1)
    return Model([b.graph], [Feature(name="x")], task="classification", classes=[0, 1])


@register("chain_deep")
def _():
    model = chain_model(600)
    xs = np.concatenate([np.arange(-1, 602, 0.5), [np.nan]])
    M = probe_rows(model, xs.reshape(-1, 1), n_missing=5, max_rows=2000)
    return model, _frame(model, M)


# --- scikit-learn gradient boosting (rulekit.importers.sklearn_gb / sklearn_hist) ---------------



def _sk_boost(name: str, est, X, y, *, base=None) -> tuple[Model, pd.DataFrame]:
    import rulekit

    est.fit(X, y)
    SKLEARN_ESTIMATORS[name] = est
    model = rulekit.from_sklearn(est)
    base = model.matrix(X)[:150] if base is None else base
    M = probe_rows(model, base, n_missing=60)
    return model, _frame(model, M)


@register("sklearn_gb_binary")
def _():
    """GradientBoostingClassifier, 2 classes: learning rate folded into leaves, sigmoid."""
    from sklearn.ensemble import GradientBoostingClassifier

    X, _, y = _data()
    est = GradientBoostingClassifier(n_estimators=8, max_depth=3, learning_rate=0.3, random_state=0)
    return _sk_boost("sklearn_gb_binary", est, X, y)


@register("sklearn_gb_multiclass_hostile")
def _():
    """GradientBoostingClassifier, 3 classes, per-class trees (softmax), hostile names."""
    from sklearn.ensemble import GradientBoostingClassifier

    X, _, y = _data(n_features=len(HOSTILE_NAMES), classes=3, seed=3)
    y = np.array(["it's", "b\\c", "ünï"], dtype=object)[y]
    est = GradientBoostingClassifier(n_estimators=5, max_depth=3, random_state=0)
    return _sk_boost("sklearn_gb_multiclass_hostile", est, pd.DataFrame(X, columns=HOSTILE_NAMES), y)


@register("sklearn_hgb_regressor")
def _():
    """HistGradientBoostingRegressor with NaN in training: float64 splits, learned NaN sides."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    X, X_nan, y = _data(seed=4)
    est = HistGradientBoostingRegressor(max_iter=10, max_leaf_nodes=8, random_state=0)
    return _sk_boost("sklearn_hgb_regressor", est, X_nan, X[:, 0] * 3.3 + y)


@register("sklearn_hgb_categorical_nan")
def _():
    """HistGradientBoostingClassifier, 3 classes, on a DataFrame: a pandas category column (text),
    an integer category column (matched exactly: 1.5 is unseen, not 1) and NaN everywhere."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(5)
    n = 300
    colour = rng.choice(["red", "green", "blue", "it's", "ünï"], n)
    grade = rng.integers(0, 6, n).astype(float)
    X = pd.DataFrame({"size": np.round(rng.normal(10, 4, n), 2),
                      "colour": pd.Categorical(colour, categories=["red", "green", "blue", "it's",
                                                                   "ünï", "never seen"]),
                      "grade": grade, "weight": np.round(rng.normal(0, 30, n), 1)})
    y = np.digitize(X["size"] / 4 + np.isin(colour, ["red", "it's"]) * 1.5 + (grade % 3 == 1),
                    [3.0, 4.0])
    for col in X.columns:
        X.loc[rng.random(n) < 0.08, col] = np.nan
    est = HistGradientBoostingClassifier(max_iter=6, max_leaf_nodes=8, categorical_features=[
        "colour", "grade"], random_state=0)
    model, data = _sk_boost("sklearn_hgb_categorical_nan", est, X, y)
    # numbers near integer categories: scikit-learn treats them as unseen (missing side)
    extra = data.iloc[:6].copy()
    extra["grade"] = pd.Series([1.5, 2.5, -0.5, 0.25, 7.0, -1.0], index=extra.index, dtype=object)
    return model, pd.concat([data, extra], ignore_index=True)


# --- XGBoost and LightGBM (rulekit.importers.xgboost / lightgbm) --------------------------------

FOREIGN_ESTIMATORS: dict[str, object] = {}
"""Zoo name -> the fitted XGBoost/LightGBM estimator its model was converted from."""


@register("xgboost_binary_nan_hostile")
def _():
    """XGBClassifier: float32 ``<`` splits, learned default directions (NaN), logit base score,
    hostile feature names."""
    import xgboost as xgb

    import rulekit

    X, X_nan, y = _data(n_features=len(HOSTILE_NAMES), seed=6)
    frame = pd.DataFrame(X_nan, columns=HOSTILE_NAMES)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=6, max_depth=4, learning_rate=0.5,
                            base_score=0.3)
    est.fit(frame, y)
    FOREIGN_ESTIMATORS["xgboost_binary_nan_hostile"] = est
    model = rulekit.from_xgboost(est)
    M = probe_rows(model, X_nan[:150], n_missing=60)
    return model, _frame(model, M)


@register("xgboost_multiclass")
def _():
    """XGBClassifier multi:softprob, 3 classes: per-class trees in XGBoost's order, softmax."""
    import xgboost as xgb

    import rulekit

    X, X_nan, y = _data(classes=3, seed=7)
    est = xgb.XGBClassifier(n_jobs=1, n_estimators=4, max_depth=3, objective="multi:softprob")
    est.fit(X_nan, y)
    FOREIGN_ESTIMATORS["xgboost_multiclass"] = est
    model = rulekit.from_xgboost(est)
    M = probe_rows(model, X_nan[:150], n_missing=60)
    return model, _frame(model, M)


@register("lightgbm_categorical_nan")
def _():
    """LGBMClassifier on a DataFrame: a pandas category column (text, bitset splits, NaN and
    unseen go right), NaN-aware numeric splits (float64 ``<=``), string class labels."""
    import lightgbm as lgb

    import rulekit

    rng = np.random.default_rng(8)
    n = 300
    colour = rng.choice(["red", "green", "blue", "it's", "ünï"], n)
    X = pd.DataFrame({"size": np.round(rng.normal(10, 4, n), 2),
                      "colour": pd.Categorical(colour, categories=["red", "green", "blue", "it's",
                                                                   "ünï"]),
                      "weight": np.round(rng.normal(0, 30, n), 1)})
    score = X["size"] / 4 + np.isin(colour, ["red", "it's"]) * 1.5 + (X["weight"] > 10)
    y = np.where(score > np.median(score), "yes", "no'pe")
    for col in X.columns:
        X.loc[rng.random(n) < 0.08, col] = np.nan
    est = lgb.LGBMClassifier(n_jobs=1, n_estimators=5, num_leaves=8, min_child_samples=5,
                             min_data_per_group=5, cat_smooth=1, max_cat_to_onehot=2, verbose=-1)
    est.fit(X, y)
    FOREIGN_ESTIMATORS["lightgbm_categorical_nan"] = est
    model = rulekit.from_lightgbm(est)
    base = model.matrix(X)[:150]
    base[:10, 1] = -1.0  # unseen categories
    M = probe_rows(model, base, n_missing=60)
    return model, _frame(model, M)


@register("lightgbm_multiclass_zero")
def _():
    """LGBMClassifier, 3 classes, zero_as_missing=True: splits at +-1e-35f, ``<`` tests and
    subtrees copied around the zero island; many exact zeros in the data."""
    import lightgbm as lgb

    import rulekit

    X, X_nan, y = _data(classes=3, seed=9)
    rng = np.random.default_rng(9)
    X_nan[rng.random(X_nan.shape) < 0.15] = 0.0
    est = lgb.LGBMClassifier(n_jobs=1, n_estimators=4, num_leaves=6, min_child_samples=5,
                             zero_as_missing=True, verbose=-1)
    est.fit(X_nan, y)
    FOREIGN_ESTIMATORS["lightgbm_multiclass_zero"] = est
    model = rulekit.from_lightgbm(est)
    base = X_nan[:150].copy()
    base[:20, :3] = np.array([[0.0, -0.0, 1e-40]])
    M = probe_rows(model, base, n_missing=60)
    return model, _frame(model, M)


# --- rulekit's own learners (issue #3): multiway ID3/C4.5 splits with "other" edges, CART subset
# splits, oblique (linear) splits, a voting forest; float64 "<=" thresholds at midpoints


def _learned_frame(n: int = 240, seed: int = 11):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 80, n).astype(float),
        "it's": np.round(rng.normal(0, 1, n), 2),
        "colour": pd.Series(rng.choice(["red", "green", "blue", "naïve"], n), dtype=object),
        "w": np.round(rng.uniform(-5, 5, n), 3),
    })
    score = (X.age > 45).astype(int) + (X.colour == "red") + (X["it's"] + X.w / 3 > 0.2)
    y = np.array(["lo", "mid", "hi", "hi"], dtype=object)[score]
    reg = (X.age / 10 + np.where(X.colour == "blue", 3.0, 0.0) + X.w).to_numpy()
    mask = rng.random(X.shape) < 0.08
    for j, c in enumerate(X.columns):
        X.loc[mask[:, j], c] = None if X[c].dtype == object else np.nan
    return X, y, reg


def _learned(est, target: str = "class"):
    X, y, reg = _learned_frame()
    est.fit(X, reg if target == "value" else y)
    model = est.model_
    base = model.matrix(X)[:150]
    base[:10, 2] = -1.0  # unseen categories
    M = probe_rows(model, base, n_missing=40)
    return model, _frame(model, M)


@register("learned_id3_multiway")
def _():
    from rulekit.learners import ID3Classifier

    return _learned(ID3Classifier(max_depth=3))


@register("learned_c45_fractional")
def _():
    from rulekit.learners import C45Classifier

    return _learned(C45Classifier())


@register("learned_cart_subset_oblique")
def _():
    from rulekit.learners import CARTClassifier

    return _learned(CARTClassifier(max_depth=5, oblique="lda"))


@register("learned_forest_average")
def _():
    from rulekit.learners import RandomForestClassifier

    return _learned(RandomForestClassifier(5, max_depth=4, random_state=0))


@register("learned_regressor_oblique")
def _():
    from rulekit.learners import CARTRegressor

    return _learned(CARTRegressor(max_depth=4, oblique="lda"), target="value")


@register("rulekit_forest_hard_vote")
def _():
    """A hard-voting forest (combiner ``vote``): each tree votes for its leaf's first most probable
    class; 4 trees and 3 classes, so 2-2 vote ties (the first class wins) occur."""
    from rulekit.learners import RandomForestClassifier

    return _learned(RandomForestClassifier(4, max_depth=4, voting="hard", random_state=0))


# --- CatBoost, ONNX, scikit-learn pipelines (issues #21/#22) ------------------------------------


@register("catboost_onehot_nan")
def _():
    """CatBoostClassifier: one-hot categorical (text with a quote), NaN numeric (nan_mode Min),
    hostile names, 3 string classes; probe rows add borders, NaN and unseen categories."""
    import catboost

    import rulekit

    rng = np.random.default_rng(21)
    n = 300
    X = rng.normal(size=(n, 3)).round(2)
    X[rng.random(X.shape) < 0.1] = np.nan
    cat = rng.choice(["a", "b", "o'brien \"x\""], n)
    frame = pd.DataFrame({"it's": X[:, 0], "order date": X[:, 1], "select": cat, "a;b--c": X[:, 2]})
    score = np.nan_to_num(X[:, 0]) + (cat == "b") + np.nan_to_num(X[:, 1])
    y = np.array(["lo", "mid", "hi"])[np.digitize(score, [-0.3, 0.8])]
    est = catboost.CatBoostClassifier(iterations=8, depth=3, one_hot_max_size=8,
                                      cat_features=["select"], verbose=0, allow_writing_files=False,
                                      thread_count=1, random_seed=1)
    est.fit(frame, y)
    FOREIGN_ESTIMATORS["catboost_onehot_nan"] = est
    model = rulekit.from_catboost(est, pool=frame)
    base = model.matrix(frame)[:150]
    j = [f.name for f in model.features].index("select")
    base[:10, j] = -1.0  # unseen categories
    M = probe_rows(model, base, n_missing=60)
    return model, _frame(model, M)


ONNX_PROTOS: dict[str, object] = {}
"""Zoo name -> the ONNX ModelProto its model was imported from (compared with onnxruntime)."""


@register("onnx_skl2onnx_gb")
def _():
    """skl2onnx GradientBoostingClassifier read back by rulekit.from_onnx (float32 inputs)."""
    import warnings

    from sklearn.ensemble import GradientBoostingClassifier
    from skl2onnx import to_onnx

    import rulekit

    X, _, y = _data(seed=22)
    X = X.astype(np.float32)
    est = GradientBoostingClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proto = to_onnx(est, X[:1], options={"zipmap": False})
    ONNX_PROTOS["onnx_skl2onnx_gb"] = proto
    model = rulekit.from_onnx(proto)
    M = probe_rows(model, X[:150].astype(np.float64), n_missing=60)
    return model, _frame(model, M)


@register("sklearn_pipeline_columns")
def _():
    """Pipeline(ColumnTransformer(median imputer + scaler | one-hot) -> forest), folded into the
    raw columns by rulekit.from_sklearn; hostile names, NaN and unseen categories."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline, make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    import rulekit

    rng = np.random.default_rng(23)
    n = 300
    X = rng.normal(size=(n, 2)).round(2) * [3, 20]
    X[rng.random(X.shape) < 0.1] = np.nan
    cat = rng.choice(["red", "it's", "ünï"], n).astype(object)
    frame = pd.DataFrame({"say \"hi\"": X[:, 0], "1st": X[:, 1], "naïve ü 列": cat})
    y = ((np.nan_to_num(X[:, 0]) + (cat == "red")) > 0.5).astype(int)
    pre = ColumnTransformer([
        ("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()),
         ["say \"hi\"", "1st"]),
        ("cat", OneHotEncoder(handle_unknown="ignore"), ["naïve ü 列"])])
    est = Pipeline([("pre", pre), ("rf", RandomForestClassifier(n_estimators=3, max_depth=4,
                                                                 random_state=0))])
    est.fit(frame, y)
    SKLEARN_ESTIMATORS["sklearn_pipeline_columns"] = est
    model = rulekit.from_sklearn(est)
    base = model.matrix(frame)[:150]
    names = [f.name for f in model.features]
    if model.features[names.index("naïve ü 列")].kind == "nominal":
        base[:10, names.index("naïve ü 列")] = -1.0  # unseen categories
    M = probe_rows(model, base, n_missing=60)
    return model, _frame(model, M)


@register("spark_dir_categorical")
def _():
    """A Spark ML DecisionTreeRegressionModel directory written by hand (metadata JSON + Parquet,
    no JVM), read by rulekit.from_spark: an inclusive ``<=`` threshold and a categorical split where
    most categories go left (Spark then tests 'not in the right set': NaN and unseen go left)."""
    import json
    import tempfile
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.parquet as pq

    import rulekit

    split = pa.struct([("featureIndex", pa.int32()), ("leftCategoriesOrThreshold", pa.list_(pa.float64())),
                       ("numCategories", pa.int32())])
    node = pa.schema([("id", pa.int32()), ("prediction", pa.float64()), ("impurity", pa.float64()),
                      ("impurityStats", pa.list_(pa.float64())), ("rawCount", pa.int64()),
                      ("gain", pa.float64()), ("leftChild", pa.int32()), ("rightChild", pa.int32()),
                      ("split", split)])

    def nd(i, pred, left=-1, right=-1, feature=-1, cats=(), k=-1):
        return {"id": i, "prediction": pred, "impurity": 0.0, "impurityStats": [1.0, 1.0], "rawCount": 2,
                "gain": 0.0, "leftChild": left, "rightChild": right,
                "split": {"featureIndex": feature, "leftCategoriesOrThreshold": list(cats), "numCategories": k}}

    nodes = [nd(0, 0.0, 1, 4, feature=1, cats=(0.0, 1.0, 3.0), k=5), nd(1, 0.0, 2, 3, feature=0, cats=(0.5,)),
             nd(2, 10.25), nd(3, -20.5), nd(4, 30.125)]
    with tempfile.TemporaryDirectory(prefix="rulekit_zoo_spark_") as tmp:  # read at once, then removed
        folder = Path(tmp)
        (folder / "metadata").mkdir()
        (folder / "metadata" / "part-00000").write_text(json.dumps({
            "class": "org.apache.spark.ml.regression.DecisionTreeRegressionModel", "uid": "dtr_zoo",
            "sparkVersion": "3.5.0", "paramMap": {}, "defaultParamMap": {}, "numFeatures": 2}) + "\n")
        (folder / "data").mkdir()
        pq.write_table(pa.Table.from_pylist(nodes, schema=node), folder / "data" / "part-00000-x.snappy.parquet")
        model = rulekit.from_spark(str(folder))
    rng = np.random.default_rng(24)
    base = np.column_stack([rng.normal(0.5, 1, 150).round(2), rng.integers(0, 5, 150).astype(float)])
    base[:10, 1] = [-1.0, 5.0, 7.0, 0.5, 1e300, -0.0, 2.0, 4.0, 3.0, 1.0]
    M = probe_rows(model, base, n_missing=60)
    return model, _frame(model, M)


PMML_TEXTS: dict[str, str] = {}
"""Zoo name -> the PMML document its model was imported from (JPMML-Evaluator scores it)."""


@register("pmml_defaultchild_hostile")
def _():
    """A hand-written PMML TreeModel (rulekit.from_pmml): missingValueStrategy='defaultChild', a
    hostile numeric field name, a categorical field tested with a SimpleSetPredicate."""
    from rulekit.importers.pmml import loads

    text = """<?xml version="1.0" encoding="UTF-8"?>
<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4">
 <Header/>
 <DataDictionary numberOfFields="3">
  <DataField name="it's &quot;x&quot;" optype="continuous" dataType="double"/>
  <DataField name="colour" optype="categorical" dataType="string">
   <Value value="red"/><Value value="green"/><Value value="blue"/>
  </DataField>
  <DataField name="y" optype="continuous" dataType="double"/>
 </DataDictionary>
 <TreeModel functionName="regression" missingValueStrategy="defaultChild" noTrueChildStrategy="returnLastPrediction">
  <MiningSchema>
   <MiningField name="it's &quot;x&quot;"/><MiningField name="colour"/><MiningField name="y" usageType="target"/>
  </MiningSchema>
  <Node id="0" score="0" defaultChild="2">
   <True/>
   <Node id="1" score="1.5" defaultChild="3">
    <SimplePredicate field="it's &quot;x&quot;" operator="lessOrEqual" value="0.25"/>
    <Node id="3" score="-2.75"><SimpleSetPredicate field="colour" booleanOperator="isIn"><Array n="2" type="string">red blue</Array></SimpleSetPredicate></Node>
    <Node id="4" score="4.125"><True/></Node>
   </Node>
   <Node id="2" score="8.5"><SimplePredicate field="it's &quot;x&quot;" operator="greaterThan" value="0.25"/></Node>
  </Node>
 </TreeModel>
</PMML>
"""
    model = loads(text, name="zoo.pmml")
    PMML_TEXTS["pmml_defaultchild_hostile"] = text
    rng = np.random.default_rng(25)
    names = [f.name for f in model.features]
    base = np.full((150, len(names)), np.nan)
    base[:, names.index("it's \"x\"")] = rng.normal(0.25, 1, 150).round(2)
    j = names.index("colour")
    base[:, j] = rng.integers(0, len(model.features[j].domain), 150)
    M = probe_rows(model, base, n_missing=60)
    return model, _frame(model, M)
