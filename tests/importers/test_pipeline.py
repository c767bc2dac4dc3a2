"""scikit-learn Pipelines folded into one model on raw columns, exact against the pipeline itself.

Each case is a fitted pipeline (imputers, the four scalers, one-hot and ordinal encoders with
unknown/infrequent/drop/missing options, ColumnTransformer, FunctionTransformer(), passthrough,
drop, nested pipelines; trees, forests, boosting, XGBoost) checked on raw rows plus probe rows:
every folded threshold and its float64 neighbours, the source thresholds mapped back naively
(``t * s + m``) and their neighbours, NaN in every column, every category and an unknown one.
Labels identical, probabilities and values within 1e-12. The backends (Python, SQL, ONNX) are in
``test_pipeline_backends.py``; they reuse the cases and probe frames defined here.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    OneHotEncoder,
    OrdinalEncoder,
    PolynomialFeatures,
    RobustScaler,
    StandardScaler,
)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import rulekit
from rulekit.errors import RulekitError
from rulekit.probe import threshold_values
from tests.marks import slow_cases

TOL = 1e-12
COLORS = ["red", "green", "blue", "teal", "plum"]


# --- data and cases -------------------------------------------------------------------------------


def raw_frame(n: int = 500, seed: int = 0, nan: bool = True) -> pd.DataFrame:
    """Numbers on a few grids (so training puts thresholds between ties), text and integer codes."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "age": np.round(rng.normal(40, 12, n), 1),
        "income": np.round(rng.lognormal(10, 0.6, n), 2),
        "score": np.round(rng.uniform(-3, 3, n), 3),
        "color": rng.choice(COLORS, n, p=[0.35, 0.3, 0.2, 0.1, 0.05]).astype(object),
        "grade": rng.integers(0, 6, n),
    })
    if nan:
        for col in ("age", "income", "color"):
            df.loc[rng.random(n) < 0.08, col] = np.nan
    return df


def target(df: pd.DataFrame, kind: str) -> np.ndarray:
    age = df["age"].fillna(40).to_numpy(float)
    z = (age - 40) / 12 + np.log(df["income"].fillna(20000).to_numpy(float)) - 10 + df["score"].to_numpy(float)
    z = z + np.where(df["color"].isin(["red", "teal"]), 1.0, 0.0) + 0.3 * df["grade"].to_numpy(float)
    if kind == "regression":
        return z
    if kind == "multiclass":
        return np.digitize(z, [0.5, 1.5]).astype(np.int64)
    return np.asarray(np.where(z > 1.0, "yes", "no"), dtype=object)


NUM = ["age", "income", "score"]


class Case:
    """A fitted pipeline, the frame it was fitted on and what it accepts when predicting."""

    def __init__(self, pipe, frame: pd.DataFrame, *, array: bool = False, unknown: bool = True,
                 nan: bool = True, strict: tuple[str, ...] = (), tol: float = TOL):
        self.pipe = pipe
        self.frame = frame
        self.array = array      # fitted on a numpy array (features x0..): feed it arrays
        self.unknown = unknown  # predicts on unknown categories
        self.nan = nan          # predicts on NaN
        self.strict = strict    # columns where it refuses NaN and unknown values
        self.tol = tol          # probabilities: 1e-12, or 1e-6 where the model sums in float32

    def source_input(self, frame: pd.DataFrame):
        return frame.to_numpy(dtype=np.float64) if self.array else frame


CASES: dict[str, callable] = {}


def case(fn):
    CASES[fn.__name__] = functools.cache(fn)
    return fn


def _fit(pipe, df, kind, *, array=False, **flags) -> Case:
    y = target(df, kind)
    frame = df
    if array:
        frame = df[NUM].rename(columns={c: f"x{i}" for i, c in enumerate(NUM)})
        pipe.fit(frame.to_numpy(dtype=np.float64), y)
    else:
        pipe.fit(df, y)
    return Case(pipe, frame, array=array, **flags)


@case
def standard_tree():
    return _fit(make_pipeline(StandardScaler(), DecisionTreeClassifier(max_depth=6, random_state=0)),
                raw_frame(), "binary", array=True)


@case
def minmax_clip_forest():
    return _fit(make_pipeline(MinMaxScaler(feature_range=(-1, 2), clip=True),
                              RandomForestClassifier(n_estimators=8, max_depth=6, random_state=1)),
                raw_frame(), "multiclass", array=True)


@case
def robust_regressor():
    return _fit(make_pipeline(RobustScaler(quantile_range=(10, 80)), DecisionTreeRegressor(max_depth=7)),
                raw_frame(), "regression", array=True)


@case
def maxabs_extra_trees():
    return _fit(make_pipeline(MaxAbsScaler(), ExtraTreesRegressor(n_estimators=6, max_depth=6, random_state=2)),
                raw_frame(), "regression", array=True)


@case
def impute_mean_then_scale():
    return _fit(make_pipeline(SimpleImputer(strategy="mean"), StandardScaler(),
                              DecisionTreeClassifier(max_depth=6, random_state=3)),
                raw_frame(), "binary", array=True)


@case
def impute_with_indicator():
    ct = ColumnTransformer([("num", SimpleImputer(strategy="median", add_indicator=True), ["age", "income"]),
                            ("cat", SimpleImputer(strategy="most_frequent", add_indicator=True), ["color"])],
                           remainder="drop")
    pipe = make_pipeline(ct, ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), [4])],
                                               remainder="passthrough"),
                         DecisionTreeClassifier(max_depth=8, random_state=13))
    return _fit(pipe, raw_frame(), "binary")


@case
def scale_then_impute_median_boosting():
    return _fit(make_pipeline(StandardScaler(with_mean=False), SimpleImputer(strategy="median"),
                              GradientBoostingClassifier(n_estimators=12, max_depth=3, random_state=4)),
                raw_frame(), "binary", array=True)


@case
def impute_constant_minmax_hgb():
    return _fit(make_pipeline(SimpleImputer(strategy="constant", fill_value=-1.0), MinMaxScaler(),
                              HistGradientBoostingClassifier(max_iter=10, random_state=5)),
                raw_frame(), "multiclass", array=True)


@case
def onehot_ignore_forest():
    ct = ColumnTransformer([("num", StandardScaler(), NUM),
                            ("cat", OneHotEncoder(handle_unknown="ignore"), ["color"])])
    return _fit(make_pipeline(ct, RandomForestClassifier(n_estimators=8, max_depth=7, random_state=6)),
                raw_frame(), "binary")


@case
def onehot_drop_first_remainder():
    ct = ColumnTransformer([("cat", OneHotEncoder(drop="first", handle_unknown="ignore",
                                                  sparse_output=False), ["color", "grade"])],
                           remainder="passthrough")
    return _fit(make_pipeline(ct, DecisionTreeClassifier(max_depth=8, random_state=7)),
                raw_frame(), "binary")


@case
def onehot_infrequent():
    ct = ColumnTransformer([("cat", make_pipeline(SimpleImputer(strategy="most_frequent"),
                                                  OneHotEncoder(handle_unknown="infrequent_if_exist",
                                                                min_frequency=60)), ["color"]),
                            ("num", "passthrough", ["age", "score"])])
    return _fit(make_pipeline(ct, DecisionTreeRegressor(max_depth=7)), raw_frame(), "regression")


@case
def ordinal_unknown_and_missing():
    ct = ColumnTransformer([("cat", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1,
                                                   encoded_missing_value=-2), ["color", "grade"]),
                            ("num", RobustScaler(), ["income"])])
    return _fit(make_pipeline(ct, RandomForestRegressor(n_estimators=6, max_depth=6, random_state=8)),
                raw_frame(), "regression")


@case
def nested_pipelines_drop_hgb():
    ct = ColumnTransformer([
        ("cat", make_pipeline(SimpleImputer(strategy="constant", fill_value="none"),
                              OneHotEncoder(sparse_output=False, handle_unknown="ignore")), ["color"]),
        ("num", Pipeline([("impute", SimpleImputer(strategy="median")), ("scale", RobustScaler())]),
         ["age", "income"]),
        ("gone", "drop", ["score"])], remainder="drop")
    return _fit(make_pipeline(ct, HistGradientBoostingRegressor(max_iter=12, random_state=9)),
                raw_frame(), "regression")


@case
def function_transformer_passthrough():
    return _fit(Pipeline([("f", FunctionTransformer()), ("p", "passthrough"), ("s", StandardScaler()),
                          ("m", RandomForestRegressor(n_estimators=5, max_depth=6, random_state=10))]),
                raw_frame(), "regression", array=True)


@case
def scaler_over_encoded_columns():
    ct = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), ["color"]),
                            ("ord", OrdinalEncoder(), ["grade"]),
                            ("num", "passthrough", ["score"])], sparse_threshold=0)
    return _fit(make_pipeline(ct, StandardScaler(), DecisionTreeClassifier(max_depth=7, random_state=11)),
                raw_frame(), "multiclass", strict=("grade",))


@case
def sparse_maxabs():
    ct = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), ["color", "grade"])],
                           remainder="passthrough", sparse_threshold=1.0)
    # scikit-learn's trees refuse NaN in sparse input
    return _fit(make_pipeline(ct, MaxAbsScaler(), DecisionTreeRegressor(max_depth=8)),
                raw_frame(nan=False), "regression", nan=False)


@case
def ordinal_into_hgb_categories():
    ct = ColumnTransformer([("cat", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
                             ["color", "grade"]),
                            ("num", StandardScaler(), ["age", "score"])])
    hgb = HistGradientBoostingClassifier(max_iter=10, categorical_features=[0, 1], random_state=12)
    return _fit(make_pipeline(ct, hgb), raw_frame(), "multiclass")


@case
def passthrough_into_hgb_categories():
    ct = ColumnTransformer([("codes", "passthrough", ["grade"]), ("num", MinMaxScaler(), ["age", "income"])])
    hgb = HistGradientBoostingRegressor(max_iter=10, categorical_features=[0], random_state=15)
    return _fit(make_pipeline(ct, hgb), raw_frame(), "regression")


@case
def xgboost_scaled():
    xgb = pytest.importorskip("xgboost")
    return _fit(make_pipeline(StandardScaler(), xgb.XGBClassifier(n_estimators=10, max_depth=4)),
                raw_frame(), "multiclass", array=True, tol=1e-6)


@case
def lightgbm_imputed_robust():
    lgb = pytest.importorskip("lightgbm")
    model = lgb.LGBMRegressor(n_estimators=15, num_leaves=15, min_child_samples=5, verbose=-1,
                              n_jobs=1, random_state=14)
    return _fit(make_pipeline(SimpleImputer(strategy="mean"), RobustScaler(), model),
                raw_frame(), "regression", array=True)


# --- probe rows -----------------------------------------------------------------------------------


def probe_frame(c: Case, model) -> pd.DataFrame:
    """The training frame, then rows at every folded threshold and its neighbours, NaN in every
    column, every category and an unknown one (when the pipeline accepts them)."""
    base = c.frame.reset_index(drop=True)
    base = base.astype({n: np.float64 for n in base.columns if base[n].dtype.kind in "iu"})
    rows = [base]
    names = list(base.columns)
    k = 0

    def vary(col: str, values: list) -> None:
        nonlocal k
        block = base.iloc[[(k + i) % len(base) for i in range(len(values))]].copy()
        k += len(values)
        block[col] = pd.Series(values, index=block.index, dtype=base[col].dtype)
        rows.append(block)

    for j, f in enumerate(model.features):
        if f.kind == "numeric":
            ts = sorted({a["threshold"] for t in model.trees for _, a in t.nodes(data=True)
                         if a["kind"] == "numeric" and a["feature"] == j})
            # (x <= max double is an "is missing" split; scikit-learn refuses values that big)
            vals = [v for t in ts if abs(t) < 1e30 for v in threshold_values(t)]
            if vals:
                vary(f.name, vals)
        else:
            if not f.domain:  # a column the pipeline drops
                continue
            unseen = "unseen" if isinstance(f.domain[0], str) else 99
            vary(f.name, list(f.domain) + ([unseen] if c.unknown and f.name not in c.strict else []))
    if c.nan:
        for name in names:
            if name not in c.strict:
                vary(name, [np.nan] * 6)
    out = pd.concat(rows, ignore_index=True)
    if not c.nan:
        out = out.dropna().reset_index(drop=True)
    return out


def source_predictions(c: Case, frame: pd.DataFrame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        X = c.source_input(frame)
        label = c.pipe.predict(X)
        proba = c.pipe.predict_proba(X) if hasattr(c.pipe, "predict_proba") else None
    return label, proba


def assert_same(where: str, want_label, want_proba, got_label, got_proba=None, tol: float = TOL) -> None:
    want_label = np.asarray(want_label)
    got_label = np.asarray(got_label)
    if want_label.dtype.kind == "f":
        w, g = want_label.astype(np.float64), got_label.astype(np.float64)
        bad = ~(np.abs(w - g) <= tol * np.maximum(1.0, np.abs(w)))
        assert not bad.any(), f"{where}: {bad.sum()} of {len(w)} values differ, first row " \
                              f"{np.flatnonzero(bad)[0]}: {g[bad][0]!r} vs {w[bad][0]!r}"
        return
    bad = np.asarray([str(a) != str(b) for a, b in zip(want_label, got_label)])
    assert len(want_label) == len(got_label)
    assert not bad.any(), f"{where}: {bad.sum()} of {len(bad)} labels differ, first row {np.flatnonzero(bad)[0]}"
    if want_proba is not None and got_proba is not None:
        diff = np.abs(np.asarray(got_proba, np.float64) - want_proba)
        assert diff.max() <= tol, f"{where}: probabilities differ by up to {diff.max()}"


@functools.cache
def folded(name: str):
    c = CASES[name]()
    model = rulekit.from_sklearn(c.pipe)
    frame = probe_frame(c, model)
    return c, model, frame, source_predictions(c, frame)


# --- tests ----------------------------------------------------------------------------------------


# fitting these takes > 2 s on a busy 2-core machine: slow lane (every other case stays fast)
SLOW_FITS = ["xgboost_scaled", "impute_constant_minmax_hgb", "ordinal_into_hgb_categories"]


@pytest.mark.parametrize("name", slow_cases(list(CASES), SLOW_FITS))
def test_folded_model_equals_pipeline(name):
    c, model, frame, (label, proba) = folded(name)
    assert len(frame) > len(c.frame) + 20
    got_proba = model.predict_proba(frame) if proba is not None else None
    assert_same(name, label, proba, model.predict(frame), got_proba, c.tol)


@pytest.mark.parametrize("name", slow_cases(list(CASES), SLOW_FITS))
def test_features_are_raw_columns_in_raw_units(name):
    c, model, _, _ = folded(name)
    names = [f.name for f in model.features]
    assert set(names) <= set(c.frame.columns)
    for f in model.features:
        if f.name in ("color",):
            assert f.kind == "nominal" and set(f.domain) <= set(COLORS + ["none"])
    # thresholds on raw numeric columns lie inside (or just outside) the column's raw range
    for t in model.trees:
        for _, a in t.nodes(data=True):
            if a["kind"] == "numeric":
                col = c.frame[model.features[a["feature"]].name].astype(float)
                lo, hi = np.nanmin(col), np.nanmax(col)
                span = hi - lo
                assert lo - span <= a["threshold"] <= hi + span or abs(a["threshold"]) >= np.finfo(float).max


def test_scaled_thresholds_are_exact_bisections_not_affine_inverses():
    """fl((x - m) / s) <= t is not x <= t * s + m: on values within 3 ulps of the naive boundary
    the naive test disagrees with scikit-learn's own (scaler.transform, float32 cast) on some, and
    the folded model agrees with the pipeline on all of them."""
    c, model, _, _ = folded("standard_tree")
    scaler, tree = c.pipe.steps[0][1], c.pipe.steps[-1][1].tree_
    rows, naive_wrong = [], 0
    for i in np.flatnonzero(tree.children_left >= 0):
        j, t = int(tree.feature[i]), float(tree.threshold[i])
        naive = t * scaler.scale_[j] + scaler.mean_[j]
        values = [naive]
        for direction in (np.inf, -np.inf):
            v = naive
            for _ in range(3):
                v = np.nextafter(v, direction)
                values.append(v)
        X = np.tile(c.frame.iloc[0].to_numpy(dtype=float), (len(values), 1))
        X[:, j] = values
        truth = scaler.transform(X)[:, j].astype(np.float32) <= t
        naive_wrong += int(np.sum(truth != (X[:, j] <= naive)))
        rows.append(X)
    X = np.vstack(rows)
    assert naive_wrong > 0
    assert (model.predict(pd.DataFrame(X, columns=c.frame.columns)) == c.pipe.predict(X)).all()


def test_imputation_becomes_missing_routing():
    c, model, _, _ = folded("impute_mean_then_scale")
    imputer = c.pipe.steps[0][1]
    frame = c.frame.iloc[:40].copy()
    filled = frame.copy()
    for j, col in enumerate(frame.columns):
        frame[col] = np.nan
        filled[col] = imputer.statistics_[j]
    assert (model.predict(frame) == model.predict(filled)).all()
    assert (model.predict(frame) == c.pipe.predict(frame.to_numpy())).all()


def test_onehot_columns_become_nominal_splits_on_the_raw_column():
    _, model, _, _ = folded("onehot_ignore_forest")
    color = [f.name for f in model.features].index("color")
    kinds = {(a["kind"], a["feature"]) for t in model.trees for _, a in t.nodes(data=True) if a["kind"] != "leaf"}
    assert ("nominal", color) in kinds
    assert not any(k == "numeric" and f == color for k, f in kinds)


def test_import_command_reads_a_pickled_pipeline(tmp_path):
    import joblib

    from rulekit.cli import main

    c, _, frame, (label, proba) = folded("nested_pipelines_drop_hgb")
    pkl = tmp_path / "pipe.pkl"
    joblib.dump(c.pipe, pkl)
    out = tmp_path / "model.json"
    with pytest.raises(SystemExit) as exit_info:
        main(["import", str(pkl), "--allow-pickle", "-o", str(out), "-q"])
    assert exit_info.value.code in (0, None)
    loaded = rulekit.load(out)
    assert_same("reloaded", label, proba, loaded.predict(frame))


@pytest.mark.slow
def test_xgboost_fold_is_bit_identical_to_the_unfolded_import():
    """XGBoost's own float32 softmax differs from rulekit's import by 1 float32 ulp on a few rows
    (the XGBoost importer, not the fold): the fold itself changes nothing."""
    c, model, frame, _ = folded("xgboost_scaled")
    Z = c.pipe[0].transform(frame.to_numpy(np.float64))
    base = rulekit.from_xgboost(c.pipe[-1])
    assert (base.predict_proba(Z) == model.predict_proba(frame)).all()


def _fit_small(*steps):
    df = raw_frame(200, nan=False)
    return make_pipeline(*steps).fit(df[NUM].to_numpy(), target(df, "binary"))


@pytest.mark.parametrize("steps, match", [
    ((FunctionTransformer(np.log1p), DecisionTreeClassifier()), "FunctionTransformer with a function"),
    ((PolynomialFeatures(), DecisionTreeClassifier()), "'polynomialfeatures'"),
    ((SimpleImputer(missing_values=-1.0), DecisionTreeClassifier()), "missing_values=-1.0"),
])
def test_unfoldable_steps_are_refused_by_name(steps, match):
    pipe = _fit_small(*steps)
    with pytest.raises(RulekitError, match=match) as err:
        rulekit.from_sklearn(pipe)
    assert "\n" not in str(err.value) and "pipeline step" in str(err.value)


def test_import_command_refuses_an_unfoldable_pipeline_in_one_line(tmp_path, capsys):
    import joblib

    from rulekit.cli import main

    pkl = tmp_path / "pipe.pkl"
    joblib.dump(_fit_small(FunctionTransformer(np.log1p), DecisionTreeClassifier()), pkl)
    out = tmp_path / "model.json"
    with pytest.raises(SystemExit) as exit_info:
        main(["import", str(pkl), "--allow-pickle", "-o", str(out)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "functiontransformer" in err[0] and "Traceback" not in err[0], err
    assert not out.exists()
