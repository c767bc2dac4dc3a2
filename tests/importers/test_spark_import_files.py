"""Spark importer without a JVM: hand-written model directories (metadata JSON + Parquet in Spark's
layout, written with pyarrow) pin the split semantics measured against Spark in
test_spark_import.py, and bad directories fail in one line (CLI exit 2)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'rulekit[spark-import]')")
import pyarrow.parquet as pq  # noqa: E402

import rulekit  # noqa: E402
from rulekit.cli import main  # noqa: E402
from rulekit.errors import RulekitError  # noqa: E402
from rulekit.importers.spark import load_dir  # noqa: E402

SPLIT = pa.struct([("featureIndex", pa.int32()), ("leftCategoriesOrThreshold", pa.list_(pa.float64())),
                   ("numCategories", pa.int32())])
NODE = pa.struct([("id", pa.int32()), ("prediction", pa.float64()), ("impurity", pa.float64()),
                  ("impurityStats", pa.list_(pa.float64())), ("rawCount", pa.int64()), ("gain", pa.float64()),
                  ("leftChild", pa.int32()), ("rightChild", pa.int32()), ("split", SPLIT)])


def _node(i, pred, left=-1, right=-1, feature=-1, cats=(), k=-1, stats=(1.0, 1.0)):
    return {"id": i, "prediction": pred, "impurity": 0.0, "impurityStats": list(stats), "rawCount": 2,
            "gain": 0.0, "leftChild": left, "rightChild": right,
            "split": {"featureIndex": feature, "leftCategoriesOrThreshold": list(cats), "numCategories": k}}


def _write(folder: Path, meta: dict, nodes: list[dict]) -> Path:
    (folder / "metadata").mkdir(parents=True)
    (folder / "metadata" / "part-00000").write_text(json.dumps(meta) + "\n")
    (folder / "data").mkdir()
    table = pa.Table.from_pylist(nodes, schema=pa.schema(list(NODE)))
    pq.write_table(table, folder / "data" / "part-00000-x.snappy.parquet")
    return folder


def _regressor(folder: Path, nodes: list[dict], n_features: int = 2) -> Path:
    meta = {"class": "org.apache.spark.ml.regression.DecisionTreeRegressionModel", "uid": "dtr_1",
            "sparkVersion": "4.3.0", "paramMap": {}, "defaultParamMap": {}, "numFeatures": n_features}
    return _write(folder, meta, nodes)


def _categorical_tree(tmp_path: Path, left: tuple[float, ...]) -> Path:
    """f1 categorical (5 categories) at the root, f0 <= 0.5 under its left child."""
    return _regressor(tmp_path / "m", [
        _node(0, 0.0, 1, 4, feature=1, cats=left, k=5),
        _node(1, 0.0, 2, 3, feature=0, cats=(0.5,)),
        _node(2, 10.0), _node(3, 20.0), _node(4, 30.0)])


ODD = [math.nan, 5.0, 7.0, 0.5, -1.0, 1e300]


def test_categorical_split_sends_non_categories_right_when_few_go_left(tmp_path):
    model = load_dir(_categorical_tree(tmp_path, (1.0, 3.0)))
    assert model.features[1].domain == (0, 1, 2, 3, 4) and model.features[1].match == "exact"
    rows = [[0.0, c] for c in (0.0, 1.0, 2.0, 3.0, 4.0, -0.0)] + [[0.0, v] for v in ODD]
    assert model.predict(np.array(rows)).tolist() == [30, 10, 30, 10, 30, 30] + [30.0] * len(ODD)


def test_categorical_split_sends_non_categories_left_when_most_go_left(tmp_path):
    """Spark keeps the right set when more than half go left and tests 'not in it' (measured)."""
    model = load_dir(_categorical_tree(tmp_path, (0.0, 1.0, 3.0)))
    rows = [[0.0, c] for c in (0.0, 1.0, 2.0, 3.0, 4.0)] + [[0.0, v] for v in ODD]
    assert model.predict(np.array(rows)).tolist() == [10, 10, 30, 10, 30] + [10.0] * len(ODD)
    rb = rulekit.to_rules(model)
    assert rb.predict(np.array([[0.0, math.nan], [0.0, 7.0], [0.0, 2.0]])).tolist() == [10, 10, 30]


def test_threshold_is_inclusive_and_nan_goes_right(tmp_path):
    model = load_dir(_categorical_tree(tmp_path, (1.0,)))
    t = 0.5
    x = [t, float(np.nextafter(t, 1)), float(np.nextafter(t, 0)), math.nan, -math.inf, math.inf]
    assert model.predict(np.array([[v, 1.0] for v in x])).tolist() == [10, 20, 10, 20, 10, 20]


def test_cli_imports_a_directory(tmp_path, capsys):
    src = _categorical_tree(tmp_path, (1.0,))
    out = tmp_path / "model.json"
    with pytest.raises(SystemExit) as exc:
        main(["import", str(src), "-o", str(out)])
    assert exc.value.code == 0, capsys.readouterr().err
    assert rulekit.load(out).predict(np.array([[0.0, 1.0]])).tolist() == [10.0]


def _cli_error(args, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        main(args)
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def _bad(tmp_path: Path, case: str) -> Path:
    good = [_node(0, 0.0, 1, 2, feature=0, cats=(0.5,)), _node(1, 1.0), _node(2, 2.0)]
    folder = tmp_path / case
    if case == "empty":
        folder.mkdir()
    elif case == "json":
        _regressor(folder, good)
        (folder / "metadata" / "part-00000").write_text('{"class": "x",\n "uid": }\n')
    elif case == "class":
        _write(folder, {"class": "org.apache.spark.ml.classification.LogisticRegressionModel",
                        "numFeatures": 2}, good)
    elif case == "no_data":
        _regressor(folder, good)
        for p in (folder / "data").iterdir():
            p.unlink()
        (folder / "data").rmdir()
    elif case == "dangling":
        _regressor(folder, [_node(0, 0.0, 1, 9, feature=0, cats=(0.5,)), _node(1, 1.0)])
    elif case == "cycle":
        _regressor(folder, [_node(0, 0.0, 1, 2, feature=0, cats=(0.5,)),
                            _node(1, 0.0, 0, 2, feature=0, cats=(0.1,)), _node(2, 2.0)])
    elif case == "feature":
        _regressor(folder, [_node(0, 0.0, 1, 2, feature=7, cats=(0.5,)), _node(1, 1.0), _node(2, 2.0)])
    elif case == "thresholds":
        _write(folder, {"class": "org.apache.spark.ml.classification.DecisionTreeClassificationModel",
                        "numFeatures": 2, "numClasses": 2, "paramMap": {"thresholds": [0.3, 0.7]}}, good)
    elif case == "features":
        _regressor(folder, good, n_features=10**9)
    elif case == "categories":
        _regressor(folder, [_node(0, 0.0, 1, 2, feature=0, cats=(1.0,), k=2**31 - 1), _node(1, 1.0), _node(2, 2.0)])
    elif case == "parquet":
        _regressor(folder, good)
        next((folder / "data").iterdir()).write_bytes(b"PAR1 not parquet")
    return folder


BAD = {"empty": "not a saved Spark ML model", "json": "not valid JSON",
       "class": "LogisticRegressionModel; rulekit imports", "no_data": "no data/ folder",
       "dangling": "child 9 is not in the node data", "cycle": "root nodes",
       "feature": "reads feature 7", "parquet": "cannot read Parquet data",
       "features": "claims 1,000,000,000 features", "thresholds": "sets thresholds", "categories": "claims 2,147,483,647 categories"}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_directory_is_one_line(tmp_path, capsys, case):
    folder = _bad(tmp_path, case)
    with pytest.raises(RulekitError) as err:
        load_dir(folder)
    assert BAD[case] in str(err.value)
    line = _cli_error(["import", str(folder), "--format", "spark", "-o", str(tmp_path / "o.json")], capsys)
    assert BAD[case] in line and str(folder) in line
    assert not (tmp_path / "o.json").exists()


def test_json_error_names_line_and_column(tmp_path):
    folder = _bad(tmp_path, "json")
    with pytest.raises(RulekitError) as err:
        load_dir(folder)
    assert err.value.file.endswith("part-00000") and err.value.line == 1 and err.value.column


def test_directory_with_another_format_is_refused(tmp_path, capsys):
    src = _categorical_tree(tmp_path, (1.0,))
    line = _cli_error(["import", str(src), "--format", "xgboost", "-o", str(tmp_path / "o.json")], capsys)
    assert "only --format spark" in line


# --- pipelines -------------------------------------------------------------------------------------

P = "org.apache.spark.ml."


def _stage(folder: Path, cls: str, params: dict, data: dict | None = None) -> None:
    (folder / "metadata").mkdir(parents=True)
    meta = {"class": P + cls, "uid": folder.name.split("_", 1)[1], "sparkVersion": "4.3.0",
            "paramMap": params, "defaultParamMap": {}}
    (folder / "metadata" / "part-00000").write_text(json.dumps(meta) + "\n")
    if data is not None:
        (folder / "data").mkdir()
        pq.write_table(pa.Table.from_pylist([data]), folder / "data" / "part-00000.parquet")


def _pipeline_dir(tmp_path: Path, nodes: list[dict], *, keep: bool = True, missing_value="NaN",
                  extra: tuple | None = None) -> Path:
    """b -> StringIndexer(['u', 'v', 'w'], keep) -> OneHotEncoder(dropLast) -> slots 2..4 (keep:
    3 slots, the bucket all zeros); c -> Imputer(surrogate 0.25) -> slot 1; a raw -> slot 0."""
    root = tmp_path / "pm"
    stages = root / "stages"
    sizes = 3 + keep
    specs = [("feature.StringIndexerModel", {"inputCol": "b", "outputCol": "b_i",
                                             "handleInvalid": "keep" if keep else "error"},
              {"labelsArray": [["u", "v", "w"]]}),
             ("feature.OneHotEncoderModel", {"inputCols": ["b_i"], "outputCols": ["b_oh"]},
              {"categorySizes": [sizes]}),
             ("feature.ImputerModel", {"inputCols": ["c"], "outputCols": ["c_imp"], "missingValue": missing_value},
              {"c": 0.25}),
             ("feature.VectorAssembler", {"inputCols": ["a", "c_imp", "b_oh"], "outputCol": "features",
                                          "handleInvalid": "keep"}, None)]
    if extra is not None:
        specs.insert(0, extra)
    uids = []
    for i, (cls, params, data) in enumerate(specs):
        uid = f"{cls.rsplit('.', 1)[1]}_{i}"
        uids.append(uid)
        _stage(stages / f"{i}_{uid}", cls, params, data)
    n = len(specs)
    model_dir = stages / f"{n}_dtr_{n}"
    _regressor(model_dir, nodes, n_features=2 + sizes - 1)
    (root / "metadata").mkdir(parents=True)
    (root / "metadata" / "part-00000").write_text(json.dumps(
        {"class": P + "PipelineModel", "uid": "pm", "sparkVersion": "4.3.0",
         "paramMap": {"stageUids": uids + [f"dtr_{n}"]}}) + "\n")
    return root


def _pipeline_tree(slot: int, left: tuple[float, ...]) -> list[dict]:
    """Root: a categorical (2 categories) split on ``slot``; left: c_imp <= 0.5."""
    return [_node(0, 0.0, 1, 4, feature=slot, cats=left, k=2),
            _node(1, 0.0, 2, 3, feature=1, cats=(0.5,)), _node(2, 10.0), _node(3, 20.0), _node(4, 30.0)]


def _frame(rows):
    import pandas as pd

    return pd.DataFrame(rows, columns=["a", "c", "b"])


def test_pipeline_folds_one_hot_slots_into_label_sets(tmp_path):
    model = load_dir(_pipeline_dir(tmp_path, _pipeline_tree(3, (1.0,))))  # slot 3: b == 'v'
    assert model.feature_names == ["a", "c", "b"]
    assert model.features[2].domain == ("u", "v", "w")
    X = _frame([[0, 0.0, "u"], [0, 0.0, "v"], [0, 0.9, "v"], [0, None, "v"], [0, float("nan"), "v"],
                [0, 0.0, "w"], [0, 0.0, "zz"], [0, 0.0, None]])
    # c missing -> surrogate 0.25 <= 0.5 -> left; unseen/missing b -> keep bucket -> slot 3 is 0.0
    assert model.predict(X).tolist() == [30, 10, 20, 10, 10, 30, 30, 30]


def test_pipeline_keep_bucket_goes_left_with_zero(tmp_path):
    model = load_dir(_pipeline_dir(tmp_path, _pipeline_tree(2, (0.0,))))  # slot 2 is 0.0: b != 'u'
    root = model.trees[0].nodes[0]
    assert root["kind"] == "nominal" and root["missing"] == 0
    X = _frame([[0, 0.0, "u"], [0, 0.0, "v"], [0, 0.0, "w"], [0, 0.0, "zz"], [0, 0.0, None]])
    assert model.predict(X).tolist() == [30, 10, 10, 10, 10]


def test_pipeline_without_keep_sends_unseen_right(tmp_path):
    """handleInvalid='error': Spark refuses unseen and missing labels; rulekit sends them right."""
    model = load_dir(_pipeline_dir(tmp_path, _pipeline_tree(2, (0.0,)), keep=False))
    X = _frame([[0, 0.0, "u"], [0, 0.0, "v"], [0, 0.0, "zz"], [0, 0.0, None]])
    assert model.predict(X).tolist() == [30, 10, 30, 30]


BAD_PIPELINES = {
    "stage": (dict(extra=("feature.Bucketizer", {"inputCol": "q", "outputCol": "q_b"}, None)),
              "Bucketizer cannot be folded"),
    "missing_value": (dict(missing_value=-1.0), "missingValue=-1.0"),
}


@pytest.mark.parametrize("case", list(BAD_PIPELINES))
def test_bad_pipeline_is_one_line(tmp_path, capsys, case):
    kwargs, text = BAD_PIPELINES[case]
    root = _pipeline_dir(tmp_path, _pipeline_tree(2, (0.0,)), **kwargs)
    line = _cli_error(["import", str(root), "-o", str(tmp_path / "o.json")], capsys)
    assert text in line


# --- downstream ------------------------------------------------------------------------------------


def _downstream_cases(tmp_path: Path):
    pipeline = load_dir(_pipeline_dir(tmp_path / "p", _pipeline_tree(2, (0.0,))))
    frame = _frame([[a, c, b] for a in (0.0, 0.5, math.nan) for c in (0.5, float(np.nextafter(0.5, 1)), None)
                    for b in ("u", "v", "w", "zz", None)])
    bare = load_dir(_categorical_tree(tmp_path, (0.0, 1.0, 3.0)))
    X = np.array([[a, c] for a in (0.5, float(np.nextafter(0.5, 1)), math.nan)
                  for c in (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.5, -1.0, math.nan)])
    return [(pipeline, frame), (bare, X)]


def test_rules_python_and_onnx_agree_with_the_import(tmp_path):
    """Everything downstream reads the IR: rules, the standalone Python module and ONNX give the
    imported model's predictions on its threshold, label, unseen and missing rows."""
    from rulekit.export import to_onnx, to_python

    for model, data in _downstream_cases(tmp_path):
        want = model.predict(data)
        assert rulekit.to_rules(model).predict(data).tolist() == want.tolist()
        namespace: dict = {}
        exec(compile(to_python(model), "<spark-model>", "exec"), namespace)  # noqa: S102
        rows = data.to_dict("records") if hasattr(data, "to_dict") else [list(r) for r in data]
        got = [namespace["predict"](r) for r in rows]
        assert got == want.tolist()
        ort = pytest.importorskip("onnxruntime")
        proto = to_onnx(model)
        sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
        out = sess.run(None, {"X": model.matrix(data)})
        assert np.asarray(out[0]).ravel().tolist() == want.tolist()


def test_label_sides_equal_testing_every_label():
    """The split's label sets, built from its own category sets, equal testing each label's value
    one by one (random one-hot/index/category slots, categorical and threshold splits)."""
    from rulekit.importers.spark import _Nodes, _split
    from rulekit.importers.spark_pipeline import Slot

    rng = np.random.default_rng(4)
    for _ in range(3000):
        n = int(rng.integers(1, 9))
        kind = ["onehot", "index", "category"][int(rng.integers(3))]
        invalid = None if kind == "category" or rng.random() < 0.3 else n
        slot = Slot(feature=0, kind=kind, n_codes=n, invalid_code=invalid,
                    position=int(rng.integers(0, n + 1)) if kind == "onehot" else -1)
        if rng.random() < 0.3 and kind != "category":
            k, cats = -1, [float(rng.choice([-0.5, 0.0, 0.5, 1.0, 2.5, n - 0.5, n + 3.0, math.inf]))]
        else:
            k = max(1, (2 if kind == "onehot" else n + (invalid is not None)) + int(rng.integers(-1, 2)))
            cats = sorted(float(c) for c in rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False))
        nodes = _Nodes(ids=[0], prediction=[0.0], stats_off=[0, 0], stats=[], left=[1], right=[2], feature=[0],
                       cats_off=[0, len(cats)], cats=cats, n_cats=[k])
        attrs, kids = _split(nodes, 0, [slot], "t")
        left_set = set(cats)
        odd = k >= 0 and not len(left_set) <= k // 2

        def goes(v):
            if k < 0:
                return v <= cats[0]
            return v in left_set or (odd and not (v == v and v == int(v) and 0 <= v < k))

        def value(c):
            return (1.0 if c == slot.position else 0.0) if kind == "onehot" else float(c)

        want_left = {c for c in range(n) if goes(value(c))}
        inv_left = goes(math.nan) if kind == "category" else invalid is not None and goes(value(invalid))
        if len(kids) == 1:
            assert want_left == (set(range(n)) if kids[0][0] == 1 else set())
            continue
        (_, e0), (_, e1) = kids
        got_left = set(range(n)) - set(e1["values"]) if e0["values"] is None else set(e0["values"])
        assert got_left == want_left and attrs["missing"] == (0 if inv_left else 1), (slot, k, cats)


def test_a_fractional_imputer_surrogate_is_a_warning_line(tmp_path, capsys):
    """Over an integer column Spark casts the surrogate (0.25 -> 0), which the saved model does not
    record: `rulekit import` says so in one warning line naming the column (not silently)."""
    from rulekit.cli import main

    folder = _pipeline_dir(tmp_path, _pipeline_tree(2, (1.0,)))
    capsys.readouterr()
    with pytest.raises(SystemExit) as ex:
        main(["import", str(folder), "-o", str(tmp_path / "m.json")])
    assert ex.value.code == 0
    err = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(err) == 1 and "Imputer surrogate of 'c' is 0.25" in err[0] and "integer column" in err[0], err
    with pytest.warns(UserWarning, match="Imputer surrogate of 'c'"):
        load_dir(folder)
