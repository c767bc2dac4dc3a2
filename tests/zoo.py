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


def _sk(est, X, y, names=None) -> tuple[Model, pd.DataFrame]:
    import rulekit

    if names is not None:
        X = pd.DataFrame(X, columns=names)
    est.fit(X, y)
    model = rulekit.from_sklearn(est)
    M = probe_rows(model, np.asarray(X, dtype=np.float64)[:150], n_missing=60)
    return model, _frame(model, M)


@register("sklearn_tree_binary")
def _():
    from sklearn.tree import DecisionTreeClassifier

    X, X_nan, y = _data()
    return _sk(DecisionTreeClassifier(max_depth=6, random_state=0), X_nan, y)


@register("sklearn_tree_multiclass_hostile")
def _():
    from sklearn.tree import DecisionTreeClassifier

    X, X_nan, y = _data(n_features=len(HOSTILE_NAMES), classes=3)
    y = np.array(["it's", "b\\c", "ünï"], dtype=object)[y]
    return _sk(DecisionTreeClassifier(max_depth=7, random_state=0), X_nan, y, names=HOSTILE_NAMES)


@register("sklearn_tree_regressor")
def _():
    from sklearn.tree import DecisionTreeRegressor

    X, X_nan, y = _data()
    return _sk(DecisionTreeRegressor(max_depth=6, random_state=0), X_nan, X[:, 0] * 3.3 + y)


@register("sklearn_forest_classifier")
def _():
    from sklearn.ensemble import RandomForestClassifier

    X, X_nan, y = _data(classes=3)
    return _sk(RandomForestClassifier(n_estimators=15, max_depth=6, random_state=0), X_nan, y)


@register("sklearn_extratrees_regressor")
def _():
    from sklearn.ensemble import ExtraTreesRegressor

    X, X_nan, y = _data()
    return _sk(ExtraTreesRegressor(n_estimators=10, max_depth=5, random_state=0), X_nan, X[:, 1] + y)


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
