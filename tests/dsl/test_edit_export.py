"""An edited rules file (a threshold moved, a rule added, a class renamed) exports to Python, SQL and
ONNX with predictions that follow the edit, on the data and on rows at and around every threshold."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import dsl, runtimes
from rulekit.table import from_data

pytest.importorskip("sklearn")

FEATURES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    d = load_iris()
    X = pd.DataFrame(d.data, columns=FEATURES)
    y = np.array(d.target_names)[d.target]
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    text = dsl.dumps(rulekit.to_rules(rulekit.from_sklearn(clf)))
    return X, text


def _rows(X: pd.DataFrame, text: str) -> pd.DataFrame:
    """The data, plus rows at every threshold of the text, their float32/float64 neighbours, NaN."""
    extra = []
    nums = [float(t) for t in re.findall(r"(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?", text)]
    base = X.iloc[0].to_dict()
    for t in nums:
        f32 = float(np.float32(t))
        for v in (t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf), f32,
                  float(np.nextafter(np.float32(t), np.float32(-np.inf))),
                  float(np.nextafter(np.float32(t), np.float32(np.inf)))):
            for name in FEATURES:
                extra.append({**base, name: float(v)})
    for name in FEATURES:
        extra.append({**base, name: np.nan})
    return pd.concat([X, pd.DataFrame(extra)], ignore_index=True)


def _backends():
    out = ["python", "sqlite", "duckdb"]
    try:
        import onnxruntime  # noqa: F401

        out.append("onnx")
    except ImportError:
        pass
    return out


def _predict_everywhere(rb, data) -> np.ndarray:
    expected = np.asarray(rb.predict(data))
    table = from_data(data, rb.features)
    for name in _backends():
        try:
            got = runtimes.runner(name)(rb, table).prediction
        except runtimes.Unavailable as err:  # pragma: no cover - a runtime missing here
            pytest.skip(f"{name}: {err}")
        assert [str(v) for v in got] == [str(v) for v in expected], name
    return expected


def test_threshold_moved(iris):
    X, text = iris
    old = re.search(r"petal_length <= ([0-9.]+)", text).group(1)
    edited = text.replace(f"petal_length <= {old}", "petal_length <= 5.5").replace(
        f"petal_length > {old}", "petal_length > 5.5")
    assert edited != text
    data = _rows(X, edited)
    before = _predict_everywhere(dsl.loads(text), data)
    after = _predict_everywhere(dsl.loads(edited), data)
    moved = (data["petal_length"] > float(old)) & (data["petal_length"] <= 5.5)
    assert (before != after).any()
    assert not (before != after)[~moved.to_numpy()].any()  # only rows in the moved band change


def test_rule_added(iris):
    X, text = iris
    edited = text.replace("\n\nr1:", "\n\nnew: if sepal_length > 7 and sepal_width is not missing then setosa\nr1:", 1)
    rb = dsl.loads(edited)
    assert rb.rules[0].id == "new"
    data = _rows(X, edited)
    after = _predict_everywhere(rb, data)
    big = (data["sepal_length"].astype(np.float32) > 7) & data["sepal_width"].notna()
    assert big.any() and (after[big.to_numpy()] == "setosa").all()
    before = _predict_everywhere(dsl.loads(text), data)
    assert (after[~big.to_numpy()] == before[~big.to_numpy()]).all()


def test_class_renamed(iris):
    X, text = iris
    edited = re.sub(r"\bvirginica\b", '"Virginica (large)"', text)
    rb = dsl.loads(edited)
    assert rb.classes == ("setosa", "versicolor", "Virginica (large)")
    data = _rows(X, edited)
    before = _predict_everywhere(dsl.loads(text), data)
    after = _predict_everywhere(rb, data)
    assert list(after) == ["Virginica (large)" if b == "virginica" else b for b in before]
    module = runtimes.load_python_module(rulekit.export.to_python(rb))
    assert list(module.CLASSES) == ["setosa", "versicolor", "Virginica (large)"]
