"""Python source export: every generated module, run for real, equals its source.

Models: every zoo entry (per-row functions on dict rows and on sequence rows with None/NaN, and the
numpy batch functions) against ``Model.predict``/``predict_proba``, scikit-learn estimators against
scikit-learn itself on threshold probe rows, random mixed trees deeper than the nested-``if`` limit,
a 20,000-deep chain and a 5,000-tree forest. Rule bases: extracted and hand-written ones against the
rule engine and against expectations written out by hand. Plus hostile names, a module loaded from
a file without rulekit and without numpy, the CLI, and bad rows.
"""

from __future__ import annotations

import ast
import importlib.util
import math
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import dsl, semantics
from rulekit.errors import RulekitError
from rulekit.export import to_python
from rulekit.exporters.python.nested import TRAMPOLINE
from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder
from rulekit.probe import probe_rows, threshold_values
from rulekit.rules import engine
from tests import zoo
from tests.marks import zoo_cases

TOL = 1e-12


# --- helpers --------------------------------------------------------------------------------------


def load(src: str, name: str = "exported") -> dict:
    ns: dict = {"__name__": name}
    exec(compile(src, f"<{name}>", "exec"), ns)
    return ns


def records(data: pd.DataFrame) -> list[dict]:
    return data.to_dict("records")


def sequences(data: pd.DataFrame, names: list[str]) -> list[list]:
    """Rows as lists in feature order; every other row spells missing as None instead of NaN."""
    out = []
    for i, rec in enumerate(records(data)):
        row = [rec[n] for n in names]
        if i % 2:
            row = [None if isinstance(v, float) and math.isnan(v) else v for v in row]
        out.append(row)
    return out


def same_labels(expected, got) -> bool:
    exp, got = list(expected), list(got)
    if len(exp) != len(got):
        return False
    for a, b in zip(exp, got):
        a = a.item() if isinstance(a, np.generic) else a
        b = b.item() if isinstance(b, np.generic) else b
        if a is None or b is None:
            if a is not b:
                return False
        elif isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            continue
        elif a != b or type(a) is not type(b) and not (isinstance(a, float) or isinstance(b, float)):
            return False
    return True


def max_diff(P, Q) -> float:
    P, Q = np.asarray(P, np.float64), np.asarray(Q, np.float64)
    assert P.shape == Q.shape
    assert np.array_equal(np.isnan(P), np.isnan(Q))
    ok = ~np.isnan(P)
    return float(np.abs(P[ok] - Q[ok]).max()) if ok.any() else 0.0


def check_model(model: Model, data: pd.DataFrame, ns: dict, *, rows: bool = True) -> float:
    """Per-row (dict and sequence rows) and batch predictions equal the model; max proba diff."""
    expected = model.predict(data)
    names = model.feature_names
    worst = 0.0
    assert same_labels(expected, ns["predict_batch"](data))
    assert same_labels(expected, ns["predict_batch"]({n: data[n].to_numpy() for n in names}))
    if rows:
        assert same_labels(expected, [ns["predict"](r) for r in records(data)])
        assert same_labels(expected, [ns["predict"](r) for r in sequences(data, names)])
    if model.task == "classification":
        P = model.predict_proba(data)
        worst = max(worst, max_diff(P, ns["predict_proba_batch"](data)))
        if rows:
            worst = max(worst, max_diff(P, [ns["predict_proba"](r) for r in records(data)]))
            worst = max(worst, max_diff(P, [ns["predict_proba"](r) for r in sequences(data, names)]))
    else:
        if rows:
            worst = max(worst, max_diff(expected, [ns["predict"](r) for r in sequences(data, names)]))
        worst = max(worst, max_diff(expected, ns["predict_batch"](data)))
    assert worst <= TOL, worst
    return worst


# --- models: the zoo ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_zoo_model_module_equals_model(name):
    model, data = zoo.get(name)
    src = to_python(model)
    ns = load(src, name)
    assert ns["FEATURES"] == tuple(model.feature_names)
    if model.task == "classification":
        assert list(ns["CLASSES"]) == list(model.classes)
    check_model(model, data, ns)


@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_table_form_equals_model(name):
    """The per-row form for very large models (every tree walked through the table)."""
    model, data = zoo.get(name)
    src = to_python(model, form="table")
    assert "def _table_acc" in src and "return _table_acc(x)" in src
    check_model(model, data, load(src, name))


def test_probabilities_are_bit_identical_for_forests():
    model, data = zoo.get("sklearn_forest_classifier")
    ns = load(to_python(model))
    P = model.predict_proba(data)
    assert np.array_equal(P, ns["predict_proba_batch"](data))
    assert np.array_equal(P, np.array([ns["predict_proba"](r) for r in records(data)]))


# --- models: against the source library ----------------------------------------------------------


def _sk_data(n_features=5, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(400, n_features)) * 3, 2)
    y = (X[:, 0] + np.sin(X[:, 1]) > 0).astype(int) + (X[:, 2] > 1)
    Xn = X.copy()
    Xn[rng.random(X.shape) < 0.07] = np.nan
    return Xn, y


@pytest.mark.parametrize("kind", ["tree", "forest", "regressor", "gb"])
def test_sklearn_source_equals_module_on_threshold_rows(kind):
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    X, y = _sk_data()
    est = {"tree": DecisionTreeClassifier(max_depth=8, random_state=0),
           "forest": RandomForestClassifier(n_estimators=12, max_depth=6, random_state=0),
           "regressor": DecisionTreeRegressor(max_depth=8, random_state=0),
           "gb": GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0)}[kind]
    if kind == "gb":  # boosting needs NaN-free training data
        est.fit(np.nan_to_num(X), y)
    else:
        est.fit(X, y if kind != "regressor" else np.nan_to_num(X[:, 0]) * 1.7 + y)
    model = rulekit.from_sklearn(est)
    P = probe_rows(model, np.nan_to_num(X[:100]) if kind == "gb" else X[:100], n_missing=40)
    if kind == "gb":  # scikit-learn's GradientBoosting refuses NaN
        P = P[~np.isnan(P).any(axis=1)]
    ns = load(to_python(model))
    rows = P.tolist()
    assert same_labels(est.predict(P), [ns["predict"](r) for r in rows])
    assert same_labels(est.predict(P), ns["predict_batch"](P))
    if kind == "regressor":
        assert max_diff(est.predict(P), ns["predict_batch"](P)) == 0.0
    else:
        ref = est.predict_proba(P)
        assert max_diff(ref, ns["predict_proba_batch"](P)) <= TOL
        assert max_diff(ref, [ns["predict_proba"](r) for r in rows]) <= TOL


def test_xgboost_and_lightgbm_sources_equal_module():
    xgb = pytest.importorskip("xgboost")
    lgb = pytest.importorskip("lightgbm")
    X, y = _sk_data(seed=3)
    y = (y > 0).astype(int)
    for est in (xgb.XGBClassifier(n_estimators=15, max_depth=4, n_jobs=1, random_state=0),
                lgb.LGBMClassifier(n_estimators=15, num_leaves=8, min_child_samples=5, n_jobs=1,
                                   verbose=-1, random_state=0)):
        est.fit(X, y)
        model = rulekit.from_xgboost(est) if "XGB" in type(est).__name__ else rulekit.from_lightgbm(est)
        P = probe_rows(model, X[:80], n_missing=30, max_rows=3000)
        ns = load(to_python(model))
        assert same_labels(est.predict(P), ns["predict_batch"](P))
        assert same_labels(est.predict(P), [ns["predict"](r) for r in P.tolist()])
        # the sources compute in float32 (XGBoost) or print rounded scores: 1e-6 is their precision
        assert max_diff(est.predict_proba(P), ns["predict_proba_batch"](P)) <= 1e-6


# --- models: comparison semantics, by hand ---------------------------------------------------------


@pytest.mark.parametrize("op,precision", [("<=", "float32"), ("<", "float32"), ("<=", "float64"),
                                          ("<", "float64")])
@pytest.mark.parametrize("missing", [0, 1])
def test_one_split_at_every_neighbour_of_its_threshold(op, precision, missing):
    """cast(x) op t, decided on t itself and its float32/float64 neighbours, and on NaN/None."""
    rng = np.random.default_rng(0)
    thresholds = [0.1, -2.675, 1e-30, 3.4028234663852886e38, 16777217.0, 0.5, -0.0]
    thresholds += list(rng.normal(size=5) * 10.0 ** rng.integers(-8, 8, 5))
    for t in thresholds:
        b = TreeBuilder()
        root = b.numeric(0, t, op=op, precision=precision, missing=missing)
        b.connect(root, b.leaf((1.0,)), 0)
        b.connect(root, b.leaf((2.0,)), 1)
        model = Model([b.graph], ["x"], task="regression")
        ns = load(to_python(model))
        xs = threshold_values(t) + [math.nextafter(b_, math.inf) for b_ in threshold_values(t)]
        for x in xs:
            cast = float(np.float32(x)) if precision == "float32" else x
            if precision == "float32" and math.isinf(cast) and not math.isinf(x):
                continue  # beyond float32: cast overflows (not a value a float32 model sees)
            want = 1.0 if (cast <= t if op == "<=" else cast < t) else 2.0
            assert ns["predict"]([x]) == want, (t, x)
            assert ns["predict"]({"x": x}) == want
        want_missing = 1.0 if missing == 0 else 2.0
        assert ns["predict"]([None]) == want_missing and ns["predict"]([math.nan]) == want_missing
        assert list(ns["predict_batch"](np.array([[math.nan]]))) == [want_missing]


@pytest.mark.parametrize("name", ["sklearn_tree_binary", "xgboost_binary_nan_hostile", "handmade_linear"])
def test_numpy_float32_scalars_and_arrays_as_rows(name):
    """float32 scalars compare in float32 against a Python float: exact for float32 models as
    written, converted first for float64 ones."""
    model, data = zoo.get(name)
    ns = load(to_python(model))
    X = data.to_numpy(np.float64)
    X32 = X.astype(np.float32)
    ref = model.predict(X32.astype(np.float64))
    assert same_labels(ref, [ns["predict"](r) for r in X32])  # ndarray rows
    assert same_labels(ref, [ns["predict"](list(r)) for r in X32])  # lists of np.float32
    assert same_labels(ref, ns["predict_batch"](X32))


# --- models: the single-tree layout (trampoline loops, negated tests) ------------------------------


def _full_tree(rng, depth: int, precision: str, weighted: bool, linear: bool, chain: bool = False):
    """A full binary tree over 3 numeric features (chain: one branch ends at once), random ops and
    missing directions, with or without training-row counts; ``linear``: some oblique splits."""
    b = TreeBuilder()
    pending = [(None, 0, 0, 1000.0)]  # (parent, branch, depth, rows)
    while pending:
        parent, branch, d, n = pending.pop()
        extra = {"n_samples": n} if weighted else {}
        if d >= depth or (chain and branch == 1 and parent is not None):
            node = b.leaf(tuple(rng.dirichlet(np.ones(3))), **extra)
        elif linear and rng.random() < 0.2:
            node = b.linear((0, 2), (float(rng.normal()), 1.0), float(rng.choice(_GRID[:6])),
                            op=str(rng.choice(["<=", "<"])), missing=int(rng.integers(0, 2)), **extra)
        else:
            node = b.numeric(int(rng.integers(0, 3)), float(rng.choice(_GRID)), op=str(rng.choice(["<=", "<"])),
                             precision=precision, missing=int(rng.integers(0, 2)), **extra)
            _no_strict_minus_inf(b, node)
        if parent is not None:
            b.connect(parent, node, branch)
        if b.graph.nodes[node]["kind"] != "leaf":
            share = float(rng.uniform(0.05, 0.95))
            pending += [(node, 1, d + 1, n * (1 - share)), (node, 0, d + 1, n * share)]
    return b.graph


@pytest.mark.parametrize("precision,weighted,linear,forced", [
    ("float32", True, False, False), ("float32", False, False, False), ("float64", True, False, False),
    ("float64", False, True, False), ("float32", True, False, True), ("float64", False, True, True),
])
def test_single_tree_layout_equals_model(monkeypatch, precision, weighted, linear, forced):
    """Trampolines (``while test: break / else:``) in every NaN/branch combination and negated
    tests; ``forced``: a trampoline at every split."""
    from rulekit.exporters.python import nested

    if forced:
        monkeypatch.setattr(nested, "SHORT_JUMP", 0)
    rng = np.random.default_rng(7 + forced)
    model = Model([_full_tree(rng, 9, precision, weighted, linear)], ["u", "v", "w"],
                  task="classification", classes=["a", "b", "c"])
    src = to_python(model)
    body = src.split("def predict_proba(row):")[1].split("\ndef ")[0]
    assert TRAMPOLINE in body and "not (" in body
    if forced:  # every split a trampoline
        assert not any(line.lstrip().startswith("if ") and " <= " in line for line in body.splitlines())
    ns = load(src)
    grid = [v for t in _GRID for v in threshold_values(t)] + [math.nan, math.inf, -math.inf]
    X = np.array(rng.choice(grid, size=(600, 3)))
    data = pd.DataFrame(X, columns=["u", "v", "w"])
    check_model(model, data, ns)
    P = model.predict_proba(X)
    assert max_diff(P, [ns["predict_proba"](tuple(r)) for r in X.tolist()]) == 0.0
    assert max_diff(P, [ns["predict_proba"](r) for r in X]) == 0.0  # numpy rows


def test_single_tree_trampolines_nest_to_the_nested_if_limit(monkeypatch):
    """A trampoline at every split of a 60-deep chain: 40 nested (CPython allows 20 nested loop
    blocks, but the ``else`` blocks are outside their loops); the table walker takes over past 40."""
    from rulekit.exporters.python import nested

    monkeypatch.setattr(nested, "SHORT_JUMP", 0)
    rng = np.random.default_rng(3)
    model = Model([_full_tree(rng, 60, "float32", False, False, chain=True)], ["u", "v", "w"],
                  task="classification", classes=["a", "b", "c"])
    src = to_python(model)
    assert src.count(TRAMPOLINE) == 2 * 40  # predict and predict_proba
    grid = [v for t in _GRID for v in threshold_values(t)] + [math.nan]
    check_model(model, pd.DataFrame(rng.choice(grid, size=(300, 3)), columns=["u", "v", "w"]), load(src))


# --- models: random mixed trees, deeper than the nested-if limit ----------------------------------

_DOM_S = ("a", "b\n#x", "it's", "\u2028'''\\")
_DOM_I = (1, 5, 7, -3)
_GRID = [-1.0, 0.0, 0.5, 1.25, 3.0, 0.1, math.inf, -math.inf]


def _no_strict_minus_inf(b: TreeBuilder, node: int) -> None:
    """``x < -inf`` holds for no value and is refused (``semantics.thresholds.MinusInfinityTest``,
    tests/ir/test_intervals_minus_inf.py): the random trees test ``x <= -inf`` there instead."""
    a = b.graph.nodes[node]
    if a["threshold"] == -math.inf and a["op"] == "<":
        a["op"] = "<="


def _random_tree(rng, depth: int, value_size: int, chain: bool):
    """A random tree of every node kind; ``chain``: branch 0 goes on to ``depth``, the other
    branches end within two levels (deep and narrow)."""
    b = TreeBuilder()
    pending = [(None, None, None, 0, depth)]  # (parent, branch, values, depth, depth limit)
    while pending:
        parent, branch, values, d, limit = pending.pop()
        r = rng.random()
        if d >= limit or (not chain and d > 2 and r < 0.25):
            node = b.leaf(tuple(rng.dirichlet(np.ones(value_size))) if value_size > 1 else (float(rng.normal()),))
            if parent is not None:
                b.connect(parent, node, branch, values=values)
            continue

        def child_limit(br):
            if not chain or br == 0:
                return limit
            return min(limit, d + 1 + (2 if rng.random() < 0.3 else 0))

        if r < 0.5 or d == 0:
            node = b.numeric(int(rng.integers(0, 2)), float(rng.choice(_GRID)), op=str(rng.choice(["<=", "<"])),
                             precision=str(rng.choice(["float32", "float64"])), missing=int(rng.integers(0, 2)))
            _no_strict_minus_inf(b, node)
            pending += [(node, 1, None, d + 1, child_limit(1)), (node, 0, None, d + 1, child_limit(0))]
        elif r < 0.65:
            node = b.linear((0, 1), (float(rng.normal()), float(rng.normal())), float(rng.choice(_GRID[:6])),
                            op=str(rng.choice(["<=", "<"])), missing=int(rng.integers(0, 2)))
            pending += [(node, 1, None, d + 1, child_limit(1)), (node, 0, None, d + 1, child_limit(0))]
        else:
            feat = int(rng.integers(2, 4))
            codes = list(rng.permutation(4))
            k = int(rng.integers(2, 4))
            other = rng.random() < 0.5
            node = b.nominal(feat, missing=int(rng.integers(0, k)))
            cuts = sorted(rng.choice(np.arange(1, 4), size=k - 1, replace=False))
            parts = np.split(np.array(codes), cuts)
            for br in range(k - 1, -1, -1):
                vals = None if (other and br == k - 1) else tuple(int(c) for c in parts[br])
                pending.append((node, br, vals, d + 1, child_limit(br)))
        if parent is not None:
            b.connect(parent, node, branch, values=values)
    return b.graph


def _random_model(seed: int, kind: str, depth: int, chain: bool, n_trees: int = 1) -> Model:
    rng = np.random.default_rng(seed)
    feats = [Feature(name="u"), Feature(name="v"), Feature(name="s", kind="nominal", domain=_DOM_S),
             Feature(name="i", kind="nominal", domain=_DOM_I, match="exact" if seed % 2 else None)]
    if kind == "sum":
        trees = [_random_tree(rng, depth, 1, chain) for _ in range(n_trees)]
        return Model(trees, feats, task="classification", classes=["no", "yes"],
                     combiner=Combiner(kind="sum", base_score=(0.25,), link="sigmoid"))
    if kind == "regression":
        trees = [_random_tree(rng, depth, 1, chain) for _ in range(n_trees)]
        return Model(trees, feats, task="regression",
                     combiner=Combiner(kind="single" if n_trees == 1 else "average"))
    trees = [_random_tree(rng, depth, 3, chain) for _ in range(n_trees)]
    return Model(trees, feats, task="classification", classes=["x", 2, "z"],
                 combiner=Combiner(kind="single" if n_trees == 1 else kind))


def _random_rows(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed + 100)
    grid = [v for t in _GRID for v in threshold_values(t)] + [math.nan] * 4 + [math.inf, -math.inf]
    u = rng.choice(grid, n)
    v = np.where(rng.random(n) < 0.5, rng.choice(grid, n), np.round(rng.normal(size=n) * 3, 1))
    s = rng.choice(np.array(list(_DOM_S) + ["zzz", None, math.nan], dtype=object), n)
    i = rng.choice(np.array([1, 5, 7, -3, 5.0, 5.7, -3.2, 99, None, "7", 1e300], dtype=object), n)
    return pd.DataFrame({"u": u, "v": v, "s": s, "i": i})


@pytest.mark.parametrize("seed,kind,depth,chain,n_trees", [
    (1, "single", 6, False, 1), (2, "regression", 7, False, 1), (3, "average", 5, False, 4),
    (4, "vote", 5, False, 5), (5, "sum", 5, False, 6), (6, "single", 120, True, 1),
    (7, "sum", 90, True, 3), (8, "regression", 150, True, 2),
])
def test_random_mixed_trees(seed, kind, depth, chain, n_trees):
    model = _random_model(seed, kind, depth, chain, n_trees)
    data = _random_rows(seed)
    src = to_python(model)
    if chain:  # deeper than the nested-if limit: the table walker takes over below it
        assert "_walk(" in src.split("def _walk")[1]
    check_model(model, data, load(src))


@pytest.mark.parametrize("seed,kind,depth,chain", [(1, "single", 6, False), (2, "regression", 7, False),
                                                   (6, "single", 120, True)])
def test_random_single_trees_with_a_trampoline_at_every_split(monkeypatch, seed, kind, depth, chain):
    """Trampolines next to nominal and oblique splits, and above the table walker."""
    from rulekit.exporters.python import nested

    monkeypatch.setattr(nested, "SHORT_JUMP", 0)
    model = _random_model(seed, kind, depth, chain)
    src = to_python(model)
    assert TRAMPOLINE in src
    assert "Layout: `while test: break`" in src.split('"""')[1]  # the module docstring explains it
    check_model(model, _random_rows(seed), load(src))
    monkeypatch.setattr(nested, "SHORT_JUMP", 10**9)
    assert "Layout:" not in to_python(model).split('"""')[1]


def test_deep_chain_20000():
    model = zoo.chain_model(20_000)
    src = to_python(model)
    ns = load(src, "chain")
    xs = np.concatenate([np.arange(-1.0, 20_002.0, 211.5), [0.5, 1.5, 19_998.5, 19_999.5, 20_000.0,
                                                               float(np.float32(19_999.5)), math.nan]])
    X = xs.reshape(-1, 1)
    expected = model.predict(X)
    assert same_labels(expected, [ns["predict"]([float(x)]) for x in xs])
    assert same_labels(expected, ns["predict_batch"](X))
    assert max_diff(model.predict_proba(X), ns["predict_proba_batch"](X)) == 0.0
    assert ns["predict"]([None]) == expected[-1]


@pytest.mark.slow  # ~6 s
def test_forest_of_5000_trees():
    """5,000 boosted stumps (cheap to build): one function, no recursion, sums in tree order."""
    rng = np.random.default_rng(11)
    trees = []
    for _ in range(5000):
        b = TreeBuilder()
        root = b.numeric(int(rng.integers(0, 3)), float(rng.choice(_GRID[:6])), op=str(rng.choice(["<=", "<"])),
                         precision="float32", missing=int(rng.integers(0, 2)))
        b.connect(root, b.leaf((float(rng.normal() / 50),)), 0)
        b.connect(root, b.leaf((float(rng.normal() / 50),)), 1)
        trees.append(b.graph)
    model = Model(trees, ["a", "b", "c"], task="classification", classes=[0, 1],
                  combiner=Combiner(kind="sum", base_score=(0.1,), link="sigmoid"))
    ns = load(to_python(model), "forest5000")
    grid = [v for t in _GRID[:6] for v in threshold_values(t)] + [math.nan]
    X = rng.choice(grid, size=(150, 3))
    P = model.predict_proba(X)
    assert max_diff(P, ns["predict_proba_batch"](X)) <= TOL
    assert max_diff(P[:40], [ns["predict_proba"](r) for r in X[:40].tolist()]) <= TOL
    assert same_labels(model.predict(X), ns["predict_batch"](X))


# --- names, files, runtimes ------------------------------------------------------------------------

_HOSTILE = zoo.HOSTILE_NAMES + ["age", "AGE", "class", "def", "None", "x0", "_vec", "FEATURES",
                                "a\u0301", "\u00e1", "\u212b", "tab\there", "'''", '"""', "\\", "",
                                "predict", "__import__('os')"]


def _hostile_model() -> Model:
    b = TreeBuilder()
    node = b.numeric(0, 0.5, precision="float32")
    root = node
    for j in range(1, len(_HOSTILE)):
        b.connect(node, b.leaf((float(j % 2), float(1 - j % 2))), 0)
        nxt = b.numeric(j, j * 0.25, missing=j % 2)
        b.connect(node, nxt, 1)
        node = nxt
    b.connect(node, b.leaf((1.0, 0.0)), 0)
    b.connect(node, b.leaf((0.0, 1.0)), 1)
    assert root == 0
    return Model([b.graph], _HOSTILE, task="classification", classes=['"""', "x\ny"])


def test_hostile_names_are_only_string_literals():
    model = _hostile_model()
    src = to_python(model)
    tree = ast.parse(src)
    identifiers = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    identifiers |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    identifiers |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for a in n.args.args}
    generated = {"x0", "_vec", "FEATURES", "predict", "None"}  # names the module itself defines/uses
    assert not (identifiers & (set(_HOSTILE) - generated))
    ns = load(src)
    assert ns["FEATURES"] == tuple(_HOSTILE)
    assert ns["CLASSES"] == ('"""', "x\ny")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, len(_HOSTILE))) * 3
    X[rng.random(X.shape) < 0.1] = np.nan
    data = pd.DataFrame(X, columns=_HOSTILE)
    check_model(model, data, ns)


def test_rule_base_with_hostile_names():
    model = _hostile_model()
    rb = rulekit.to_rules(model)
    ns = load(to_python(rb))
    X = np.random.default_rng(1).normal(size=(200, len(_HOSTILE))) * 3
    data = pd.DataFrame(X, columns=_HOSTILE)
    assert same_labels(engine.predict(rb, data), [ns["predict"](r) for r in records(data)])
    assert same_labels(model.predict(data), ns["predict_batch"](data))


def test_module_runs_from_a_file_without_rulekit_and_without_numpy(tmp_path):
    model, data = zoo.get("handmade_nominal")
    path = tmp_path / "exported_model.py"
    path.write_text(to_python(model), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("exported_model", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = records(data.iloc[:40])
    expected = [mod.predict(r) for r in rows]
    assert same_labels(model.predict(data.iloc[:40]), expected)
    script = textwrap.dedent(f"""
        import json, sys
        sys.modules["numpy"] = None  # importing numpy now fails
        sys.modules["rulekit"] = None
        sys.path.insert(0, {str(tmp_path)!r})
        import exported_model as m
        rows = json.loads(sys.stdin.read())
        print(json.dumps([m.predict(r) for r in rows]))
        print(json.dumps(m.predict_batch(rows[:3])))
        print(json.dumps(m.predict_proba(rows[0])))
    """)
    payload = pd.DataFrame(rows).astype(object).where(pd.DataFrame(rows).notna(), None).to_dict("records")
    import json

    res = subprocess.run([sys.executable, "-I", "-c", script], input=json.dumps(payload), capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert json.loads(lines[0]) == expected
    assert json.loads(lines[1]) == expected[:3]
    assert json.loads(lines[2]) == mod.predict_proba(rows[0])


def test_cli_export_to_python(tmp_path, capsys):
    from rulekit.cli import main

    model, data = zoo.get("sklearn_tree_multiclass_hostile")
    mpath, out = tmp_path / "m.json", tmp_path / "out.py"
    model.save(mpath)
    with pytest.raises(SystemExit) as ex:
        main(["export", str(mpath), "--to", "python", "-o", str(out)])
    assert ex.value.code == 0
    ns = load(out.read_text(encoding="utf-8"))
    assert same_labels(model.predict(data), ns["predict_batch"](data))


def test_docstring_states_source_semantics_and_precision():
    model, _ = zoo.get("sklearn_forest_classifier")
    doc = " ".join(ast.get_docstring(ast.parse(to_python(model))).split())
    assert "scikit-learn" in doc and "RandomForestClassifier" in doc
    assert "`float32(x) <= t`" in doc and "divided by 15" in doc
    assert "None or NaN" in doc


def test_bad_rows_and_objects_fail_clearly():
    model, _ = zoo.get("sklearn_tree_binary")
    ns = load(to_python(model))
    with pytest.raises(ValueError, match="values, the model has 6 features"):
        ns["predict"]([1.0, 2.0])
    with pytest.raises(ValueError, match="row has no feature 'x1'"):
        ns["predict"]({"x0": 1.0})
    with pytest.raises(ValueError, match="'x0': 'abc' is not a number"):
        ns["predict"](["abc", 1, 2, 3, 4, 5])
    assert ns["predict"](["1.5", "", None, 3, 4, 5]) == ns["predict"]([1.5, math.nan, math.nan, 3.0, 4.0, 5.0])
    with pytest.raises(RulekitError):
        to_python(object())
    with pytest.raises(RulekitError):
        to_python(model, form="sideways")


def test_boundary_array_equals_boundary():
    rng = np.random.default_rng(5)
    ts = np.concatenate([rng.normal(size=3000) * 10.0 ** rng.integers(-40, 39, 3000),
                         [0.0, -0.0, 1e-45, 3.4028234663852886e38, 1e39, -1e39, math.inf, -math.inf, 5e-324]])
    for op in ("<=", "<"):
        for prec in ("float32", "float64"):
            some = ts if op == "<=" else ts[ts != -math.inf]  # '< -inf' is refused (MinusInfinityTest)
            arr = semantics.boundary_array(op, some, prec)
            one = np.array([semantics.boundary(op, float(t), prec) for t in some])
            assert np.array_equal(arr.view(np.int64), one.view(np.int64)), (op, prec)


# --- rule bases ---------------------------------------------------------------------------------------


def check_rules(rb, data: pd.DataFrame, *, rows: bool = True) -> None:
    ns = load(to_python(rb), "rules")
    expected = engine.predict(rb, data)
    assert same_labels(expected, ns["predict_batch"](data))
    if rows:
        got = [ns["predict"](r) for r in records(data)]
        if rb.task == "regression":
            assert max_diff(expected, got) <= TOL
        else:
            assert same_labels(expected, got)
            assert same_labels(expected, [ns["predict"](r) for r in sequences(data, [f.name for f in rb.features])])
    if rb.task == "classification":
        P = engine.predict_proba(rb, data)
        assert max_diff(P, ns["predict_proba_batch"](data)) <= TOL
        if rows:
            assert max_diff(P, [ns["predict_proba"](r) for r in records(data)]) <= TOL
    else:
        assert max_diff(expected, ns["predict_batch"](data)) <= TOL


_RULE_ZOO = ["sklearn_tree_multiclass_hostile", "sklearn_tree_regressor", "sklearn_forest_classifier",
             "handmade_nominal", "handmade_linear", "sklearn_gb_binary", "sklearn_gb_multiclass_hostile",
             "sklearn_hgb_categorical_nan", "xgboost_binary_nan_hostile", "lightgbm_categorical_nan",
             "lightgbm_multiclass_zero", "chain_deep"]


_OPTIONS = {"first-hit": {}, "vote": {"order": "vote"}, "raw": {"simplify": False}}


@pytest.mark.parametrize("name,how", zoo_cases([(n, h) for n in _RULE_ZOO if n in zoo.zoo_names() for h in _OPTIONS
                                                if not (n == "chain_deep" and h == "raw")]))  # 600-deep raw paths: slow
def test_extracted_rule_bases_equal_engine_and_model(name, how):
    model, data = zoo.get(name)
    rb = rulekit.to_rules(model, **_OPTIONS[how])
    check_rules(rb, data)
    if rb.semantics == "first-hit" or rb.combiner is not None:  # exact extraction: the model itself
        ns = load(to_python(rb))
        assert same_labels(model.predict(data), ns["predict_batch"](data))


_HEADER = """
rulebase hand
target y: classes {a, b, "c d"}
feature x: numeric
feature z: numeric
feature colour: nominal {red, green, "it's"}
precision float32
"""


def _rows_xz():
    vals = [None, math.nan, 0.1, float(np.float32(0.1)), math.nextafter(0.1, 1), 1.0, 2.5, -3.0, 10.0]
    colours = ["red", "green", "it's", "blue", None, ""]
    return pd.DataFrame([{"x": x, "z": z, "colour": c} for x in vals for z in vals[::2] for c in colours])


@pytest.mark.parametrize("body", [
    "semantics first-hit\ndefault a\n"
    "r1: if x <= 0.1 and colour = red then b\n"
    "r2: if not (x > 2.5 or colour in {green}) then \"c d\" [0.25, 0.25, 0.5]\n"
    "r3: if x is missing or colour is missing then a [0.5, 0.5, 0]\n"
    "r4: if colour != \"it's\" and 0.5*x - 1.25*z > 1 then b\n",
    "semantics first-hit\n"  # no default: prediction None, probabilities NaN
    "r1: if x = 0.1 then b\nr2: if z >= 1 and colour not in {red} then a\n",
    "semantics vote\ndefault \"c d\"\n"
    "r1: if x < 2.5 then a weight 2\n"
    "r2: if z > -3 then b with confidence = 0.75\n"
    "r3: if colour in {red, green} then b weight 1.5\n"
    "r4: if x is not missing and not (z <= 1) then \"c d\"\n",
    "semantics weighted-sum\ndefault a [0.2, 0.3, 0.5]\n"
    "r1: if x <= 1 then b [0, 1, 0] weight 0.5\n"
    "r2: if colour = green or z is missing then \"c d\" [0.1, 0.1, 0.8] weight 2\n",
])
def test_hand_written_rule_bases_equal_engine(body):
    rb = dsl.loads(_HEADER + body)
    check_rules(rb, _rows_xz())


def test_interval_or_missing_is_one_negated_test():
    """"x in [lo, hi] or x is missing" is written ``not (x < lo or x > hi)`` (numpy ``~(...)``): a
    comparison on NaN is False. One- and two-sided intervals, against the engine on every row."""
    rb = dsl.loads(_HEADER + "semantics first-hit\ndefault a\n"
                   "r1: if (x <= 0.1 or x is missing) and (z > 1 or z is missing) then b\n"
                   "r2: if (x > -3 and x <= 2.5) or x is missing then \"c d\"\n"
                   "r3: if x >= 10 or x is missing then a [0.5, 0.5, 0]\n"
                   "r4: if z is missing or z < 2.5 then b\n")
    src = to_python(rb)
    assert "not (x0 > " in src and "~(X0 > " in src and "not (x0 < -2.9" in src and "x0 != x0" not in src
    check_rules(rb, _rows_xz())


def test_hand_written_expectations():
    """What a first-hit list must answer, written out by hand (three-valued logic included)."""
    rb = dsl.loads(_HEADER + "semantics first-hit\ndefault a\n"
                   "r1: if not (x > 2.5) then b\n"
                   "r2: if colour != red then \"c d\"\n"
                   "r3: if x <= 0.1 or x is missing then b\n")
    ns = load(to_python(rb))
    p = ns["predict"]
    assert p({"x": 2.5, "z": 0, "colour": "red"}) == "b"  # not (2.5 > 2.5)
    assert p({"x": 2.6, "z": 0, "colour": "red"}) == "a"
    assert p({"x": None, "z": 0, "colour": "red"}) == "b"  # not(UNKNOWN) fails; r3 by `is missing`
    assert p({"x": math.nan, "z": 0, "colour": "blue"}) == "c d"  # unseen value: != red is TRUE
    assert p({"x": math.nan, "z": 0, "colour": None}) == "b"  # colour missing: r2 UNKNOWN
    # float32 precision: 0.1 as a float32 is above the double 0.1, but float32(x) <= 0.1f holds
    assert p({"x": float(np.float32(0.1)), "z": 0, "colour": "red"}) == "b"
    assert p([3.0, 0, "green"]) == "c d"
    assert ns["predict_proba"]([3.0, 0, "red"]) == [1.0, 0.0, 0.0]


def test_regression_rule_bases():
    header = "rulebase r\ntarget y: regression\nfeature x: numeric\nfeature z: numeric\n"
    data = _rows_xz()[["x", "z"]]
    for body in ["semantics first-hit\ndefault 1.5\nr1: if x <= 1 then 2.25\nr2: if z > 0 then -4\n",
                 "semantics vote\ndefault 0\nr1: if x <= 1 then 2.25 weight 3\nr2: if z > 0 then -4\n"
                 "r3: if x > -5 and z is missing then 7 weight 0.5\n",
                 "semantics weighted-sum\ndefault 0.5\nr1: if x <= 1 then 2.25 weight 3\nr2: if z > 0 then -4\n"]:
        check_rules(dsl.loads(header + body), data)


def test_ensemble_rule_base_with_softmax_and_decision():
    model, data = zoo.get("sklearn_gb_multiclass_hostile")
    rb = rulekit.to_rules(model)
    assert rb.combiner is not None and rb.combiner.link == "softmax"
    check_rules(rb, data)
    model, data = zoo.get("sklearn_gb_binary")
    rb = rulekit.to_rules(model)
    check_rules(rb, data)


def test_big_first_hit_rule_base():
    """5,000 rules one after the other: flat code, no nesting limits; answers worked out by hand
    (rule i: x <= i + 0.5 in float32, label i % 3; default 2)."""
    from rulekit.rules.base import Compare, Conclusion, Rule, RuleBase

    n = 5_000
    rules = [Rule(id=f"r{i}", condition=Compare(feature="x", op="<=", value=i + 0.5),
                  conclusion=Conclusion(label=i % 3)) for i in range(n)]
    rb = RuleBase(task="classification", classes=(0, 1, 2), features=(Feature(name="x"),), rules=rules,
                  default=Conclusion(label=2), precision="float32")
    ns = load(to_python(rb), "big_rules")
    cases = {-1.0: 0, 0.5: 0, 0.50000001: 0, 1.5000001: 2, 2.4: 2, 3.5: 0, 4777.5: 1, 4999.5: 1,
             4999.50001: 1, 4999.5005: 2, 5000.0: 2, math.nan: 2, -math.inf: 0, math.inf: 2}
    xs = np.array(list(cases))
    want = list(cases.values())
    assert [ns["predict"]([float(x)]) for x in xs] == want
    assert list(ns["predict_batch"](xs.reshape(-1, 1))) == want
    assert ns["predict"]([None]) == 2
    assert engine.predict(rb, xs.reshape(-1, 1)).tolist() == want  # the engine (diagram gives up) agrees
