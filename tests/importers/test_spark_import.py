"""Spark ML importer: models trained by pyspark in local mode, saved, imported without a JVM, then
compared with Spark's own ``transform`` on threshold/neighbour, category, unseen-label and missing
rows; then rulekit's exported Spark SQL runs in the same session: identical labels, probabilities
and values within 1e-12. One small pipeline (a decision tree) is the fast slice; the rest is slow.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'rulekit[spark-import]')")

from rulekit.exporters.sql import to_sql  # noqa: E402 - after the skip
from rulekit.importers.spark import load_dir
from rulekit.probe import model_thresholds, threshold_values

pytestmark = pytest.mark.spark

TOL = 1e-12
NUM = 'x "1"'  # hostile column names and labels reach the IR, the SQL and Spark alike
LABELS = ["o'k", "a b", "ünï", "plain"]
CLASSES = ["lo", "mid", "hi"]




# --- data ----------------------------------------------------------------------------------------

SCHEMA = f"`{NUM}` double, b string, c double, y double, cls string, r double"


def _training_rows(n: int = 400, seed: int = 3) -> list[tuple]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        a = float(np.round(rng.normal(), 3))  # repeated values: thresholds fall between them
        b = LABELS[int(rng.integers(len(LABELS)))]
        c = float(np.round(rng.normal(), 2)) if i % 6 else None
        y = float((a > 0.2) ^ (b in LABELS[:2]) ^ (rng.random() < 0.1))
        cls = CLASSES[int((a > -0.3) + (c is not None and c > 0.4))]
        r = 3 * a + (c or 0.0) + (LABELS.index(b) == 2) * 2.0
        rows.append((a, b, c, y, cls, r))
    return rows


def _probe_rows(model, base: list[tuple]) -> list[tuple]:
    """Base rows; each numeric threshold, its neighbours in one column; every label, an unseen
    label and a missing one; NaN and NULL (None) in the numeric columns."""
    names = model.feature_names
    rows = [dict(zip([NUM, "b", "c"], r[:3])) for r in base]
    k = 0
    for j, t in model_thresholds(model):
        for v in threshold_values(t):
            row = dict(rows[k % len(base)])
            row[names[j]] = v
            rows.append(row)
            k += 1
    for v in LABELS + ["never seen", None]:
        for r in base[:4]:
            rows.append({NUM: r[0], "b": v, "c": r[2]})
    for col in (NUM, "c"):
        for r in base[:4]:
            rows.append({**dict(zip([NUM, "b", "c"], r[:3])), col: None})
            rows.append({**dict(zip([NUM, "b", "c"], r[:3])), col: float("nan")})
    return [(r[NUM], r["b"], r["c"]) for r in rows]


def _spark_frame(spark, probe: list[tuple]):
    rows = [(i, a, b, c, 0.0, "lo", 0.0) for i, (a, b, c) in enumerate(probe)]
    return spark.createDataFrame(rows, f"id int, {SCHEMA}")


def _sql_frame(spark, probe: list[tuple], name: str) -> None:
    """The SQL table: missing as NULL (NaN and None alike), as the SQL contract says."""
    rows = []
    for i, r in enumerate(probe):
        a, b, c = (None if isinstance(v, float) and math.isnan(v) else v for v in r)
        rows.append((i, a, b, c))
    spark.createDataFrame(rows, f"id int, `{NUM}` double, b string, c double").createOrReplaceTempView(name)


# --- comparison ----------------------------------------------------------------------------------


def _spark_outputs(fitted, sdf, classification: bool, classes):
    cols = ["id", "prediction"] + (["probability"] if classification else [])
    out = sorted(fitted.transform(sdf).select(*cols).collect(), key=lambda r: r[0])
    if not classification:
        return np.array([r[1] for r in out]), None
    labels = [classes[int(r[1])] for r in out]
    return labels, np.array([r[2].toArray() for r in out])


def _check(where: str, classification: bool, want_labels, want_p, got_labels, got_p) -> None:
    if not classification:
        want, got = np.asarray(want_labels, dtype=float), np.asarray(got_labels, dtype=float)
        bad = ~(np.abs(got - want) <= TOL * np.maximum(1.0, np.abs(want)))
        assert not bad.any(), f"{where}: {bad.sum()} values differ, first {got[bad][0]!r} vs {want[bad][0]!r}"
        return
    bad = [i for i, (g, w) in enumerate(zip(got_labels, want_labels)) if g != w]
    assert not bad, f"{where}: {len(bad)} labels differ, first row {bad[0]}: {got_labels[bad[0]]!r} vs {want_labels[bad[0]]!r}"
    err = np.max(np.abs(np.asarray(got_p, dtype=float) - want_p), axis=1)
    assert err.max() <= TOL, f"{where}: probabilities differ by up to {err.max()} (row {np.argmax(err)})"


def _run_and_compare(spark, fitted, model, base, classification: bool, view: str) -> int:
    """Spark transform vs the imported model vs rulekit's Spark SQL on the probe rows."""
    probe = _probe_rows(model, base)
    frame = pd.DataFrame(probe, columns=[NUM, "b", "c"])
    classes = model.classes
    want, want_p = _spark_outputs(fitted, _spark_frame(spark, probe), classification, classes)
    got = model.predict(frame)
    _check("rulekit model", classification, want, want_p, list(got) if classification else got,
           model.predict_proba(frame) if classification else None)
    _sql_frame(spark, probe, view)
    sql = to_sql(model, dialect="spark", table=view, key="id", proba=classification)
    rows = sorted((tuple(r) for r in spark.sql(sql).collect()), key=lambda r: r[0])
    assert [r[0] for r in rows] == list(range(len(frame)))
    if classification:
        got_labels = [r[1] for r in rows]
        got_p = [r[2:] for r in rows]
        _check("spark sql", True, want, want_p, got_labels, got_p)
    else:
        _check("spark sql", False, want, None, [r[1] for r in rows], None)
    return len(frame)


# --- models ----------------------------------------------------------------------------------------


def _estimator(kind: str):
    from pyspark.ml import classification as C
    from pyspark.ml import regression as R

    return {
        "dt_classifier": lambda: C.DecisionTreeClassifier(labelCol="cls_i", maxDepth=5, seed=1),
        "rf_classifier": lambda: C.RandomForestClassifier(labelCol="cls_i", numTrees=7, maxDepth=4, seed=1),
        "gbt_classifier": lambda: C.GBTClassifier(labelCol="y", maxIter=8, maxDepth=3, seed=1),
        "dt_regressor": lambda: R.DecisionTreeRegressor(labelCol="r", maxDepth=5, seed=1),
        "rf_regressor": lambda: R.RandomForestRegressor(labelCol="r", numTrees=6, maxDepth=4, seed=1),
        "gbt_regressor": lambda: R.GBTRegressor(labelCol="r", maxIter=8, maxDepth=3, seed=1),
    }[kind]()


def _pipeline(kind: str, inputs: tuple[str, ...] = (NUM, "b_i", "c_imp", "b_oh"), drop_last: bool = True):
    """Indexer (keep) -> one-hot -> imputer -> assembler (keep) -> the tree model; the label of
    the multiclass models is indexed too, so the imported classes are its labels."""
    from pyspark.ml import Pipeline
    from pyspark.ml.feature import Imputer, OneHotEncoder, StringIndexer, VectorAssembler

    stages = [StringIndexer(inputCol="b", outputCol="b_i", handleInvalid="keep"),
              OneHotEncoder(inputCols=["b_i"], outputCols=["b_oh"], dropLast=drop_last),
              Imputer(inputCols=["c"], outputCols=["c_imp"]),
              VectorAssembler(inputCols=list(inputs), outputCol="features",
                              handleInvalid="keep")]
    if kind in ("dt_classifier", "rf_classifier"):
        stages.insert(0, StringIndexer(inputCol="cls", outputCol="cls_i"))
    return Pipeline(stages=stages + [_estimator(kind)])


@pytest.fixture(scope="module")
def training(spark):
    rows = _training_rows()
    return rows, spark.createDataFrame(rows, SCHEMA)


KINDS = ["dt_classifier", "rf_classifier", "gbt_classifier", "dt_regressor", "rf_regressor", "gbt_regressor"]


@pytest.mark.slow  # every kind (~25 s and a JVM): the fast lane's one Spark test is test_sql_spark's test_spark_zoo
@pytest.mark.parametrize("kind", KINDS)
def test_pipeline_model_matches_spark(spark, training, tmp_path, kind):
    rows, df = training
    fitted = _pipeline(kind).fit(df)
    fitted.write().overwrite().save(str(tmp_path / "pm"))
    model = load_dir(tmp_path / "pm")
    classification = "classifier" in kind
    assert model.feature_names == [NUM, "b", "c"]
    indexer = next(s for s in fitted.stages if type(s).__name__ == "StringIndexerModel" and s.getInputCol() == "b")
    assert model.features[1].domain == tuple(indexer.labelsArray[0])
    if kind in ("dt_classifier", "rf_classifier"):
        assert sorted(model.classes) == sorted(CLASSES)
    n = _run_and_compare(spark, fitted, model, rows[:40], classification, "rk_spark_import")
    assert n > 100
    nominal = [a for t in model.trees for _, a in t.nodes(data=True) if a["kind"] == "nominal"]
    assert nominal, "the label column is split on as a set of labels"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["rf_classifier", "gbt_classifier", "gbt_regressor"])
def test_bare_model_matches_spark(spark, training, tmp_path, kind):
    """The model saved on its own: slots f0..f6, categorical ones as codes; NaN in the vector."""
    from pyspark.ml.linalg import Vectors, VectorUDT
    from pyspark.sql.types import IntegerType, StructField, StructType

    rows, df = training
    fitted = _pipeline(kind).fit(df)
    tree_model = fitted.stages[-1]
    tree_model.write().overwrite().save(str(tmp_path / "bare"))
    model = load_dir(tmp_path / "bare")
    assert model.feature_names == [f"f{j}" for j in range(tree_model.numFeatures)]
    assembled = fitted.transform(df.limit(30)).select("features").collect()
    base = np.array([r[0].toArray() for r in assembled])
    probes = [base]
    for j, t in model_thresholds(model):
        vals = threshold_values(t)
        block = base[np.arange(len(vals)) % len(base)].copy()
        block[:, j] = vals
        probes.append(block)
    for j, f in enumerate(model.features):
        odd = [np.nan] + ([-1.0, -0.0, 0.5, float(len(f.domain)), 1e9] if f.kind == "nominal" else [])
        for v in odd + list(f.domain or ()):
            block = base[:3].copy()
            block[:, j] = v
            probes.append(block)
    X = np.vstack(probes)
    sdf = spark.createDataFrame([(i, Vectors.dense(r.tolist())) for i, r in enumerate(X)], StructType([StructField("id", IntegerType()), StructField("features", VectorUDT())]))
    classification = "classifier" in kind
    out = sorted(tree_model.transform(sdf).collect(), key=lambda r: r["id"])
    want = [r["prediction"] for r in out]
    if classification:
        want_p = np.array([r["probability"].toArray() for r in out])
        P = model.predict_proba(X)
        bad = np.flatnonzero(np.max(np.abs(P - want_p), axis=1) > TOL)
        assert not len(bad), f"row {X[bad[0]].tolist()}: spark {want_p[bad[0]]}, rulekit {P[bad[0]]}, leaves {model.apply(X[bad[0]:bad[0] + 1])}"
        _check("bare", True, [int(w) for w in want], want_p, list(model.predict(X)), P)
    else:
        _check("bare", False, want, None, model.predict(X), None)
    names = model.feature_names
    frame = pd.DataFrame(X, columns=names)
    spark.createDataFrame([(i, *[None if math.isnan(v) else float(v) for v in r]) for i, r in enumerate(X)],
                          "id int, " + ", ".join(f"{n} double" for n in names)).createOrReplaceTempView("rk_bare")
    sql = to_sql(model, dialect="spark", table="rk_bare", key="id", proba=classification)
    got = sorted((tuple(r) for r in spark.sql(sql).collect()), key=lambda r: r[0])
    if classification:
        _check("bare spark sql", True, [int(w) for w in want], want_p, [r[1] for r in got], [r[2:] for r in got])
    else:
        _check("bare spark sql", False, want, None, [r[1] for r in got], None)
    assert len(frame) > 50


@pytest.mark.slow
@pytest.mark.parametrize("drop_last", [True, False])
def test_one_hot_keep_bucket_goes_left(spark, tmp_path, drop_last):
    """Only one-hot slots carry the labels: a split sending 0.0 left sends every other label, and
    the indexer's keep bucket (unseen and missing labels: all zeros after dropLast, else a slot
    of its own), left too."""
    rows = [(a, b, c, float(b in (LABELS[0], LABELS[2])) if i % 9 else 1.0 - float(b == LABELS[0]), cls, r)
            for i, (a, b, c, _, cls, r) in enumerate(_training_rows(seed=5))]
    fitted = _pipeline("gbt_classifier", (NUM, "c_imp", "b_oh"), drop_last).fit(spark.createDataFrame(rows, SCHEMA))
    fitted.write().overwrite().save(str(tmp_path / "pm"))
    model = load_dir(tmp_path / "pm")
    other_left = [a for t in model.trees for _, a in t.nodes(data=True) if a["kind"] == "nominal" and a["missing"] == 0]
    assert other_left, "some split sends unseen and missing labels left"
    _run_and_compare(spark, fitted, model, rows[:40], True, "rk_spark_onehot")
