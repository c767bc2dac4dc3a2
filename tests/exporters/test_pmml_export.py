"""PMML export: every zoo model and its rule base, validated against the PMML 4.4 schema (JPMML's
copy, shipped in the pmml-model jar) and scored by a real PMML engine (JPMML-Evaluator on Java)
on threshold, float-neighbour and NaN rows: labels equal, probabilities/values to 1e-12 (1e-6 for
XGBoost's float32 sums)."""

from __future__ import annotations

import glob
import io
import os
import shutil
import zipfile

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import exporters
from rulekit.cli import main
from rulekit.errors import ExportError
from rulekit.importers.pmml import load_file, loads
from rulekit.probe import probe_rows
from tests import zoo
from tests.marks import fast_cases

lxml = pytest.importorskip("lxml.etree")

REQUIRE = os.environ.get("RULEKIT_REQUIRE_SERVERS") == "1"


def _need(what: str) -> None:
    msg = f"{what} is not installed (pip install -e '.[test]'; Java 17 on PATH)"
    if REQUIRE:
        pytest.fail(msg + " (RULEKIT_REQUIRE_SERVERS=1)")
    pytest.skip(msg)


def pmml_schema():
    """lxml XMLSchema of PMML 4.4 from the pmml-model jar that sklearn2pmml / jpmml_evaluator ship."""
    try:
        import sklearn2pmml
    except ImportError:
        _need("sklearn2pmml (for the PMML 4.4 schema)")
    jars = glob.glob(os.path.join(os.path.dirname(sklearn2pmml.__file__), "resources", "pmml-model-*.jar"))
    jars = [j for j in jars if "metro" not in j]
    if not jars:
        _need("the pmml-model jar")
    with zipfile.ZipFile(jars[0]) as z:
        return lxml.XMLSchema(lxml.parse(io.BytesIO(z.read("pmml.xsd"))))


def _jpmml_backend():
    """JPMML-Evaluator in a JVM of its own (py4j, which pyspark brings), started once per test
    process and ended with it. Not jpype's JVM inside the pytest worker: a JVM created by the
    worker's main thread fences that thread's stack with HotSpot's guard pages, and a later test
    that recurses deeply in native code there (onnxruntime loading test_onnx's 5,000-deep chain;
    fine in a new thread) crashed the whole worker with SIGSEGV. Its heap also counted in the
    worker's RSS."""
    try:
        from jpmml_evaluator import _classpath
        from jpmml_evaluator.py4j import Py4JBackend
        from py4j.java_gateway import JavaGateway
    except ImportError:
        _need("jpmml_evaluator with py4j")

    if Py4JBackend.gateway is None:
        jars = os.pathsep.join(_classpath(user_classpath=[]))
        Py4JBackend.gateway = JavaGateway.launch_gateway(classpath=jars, die_on_exit=True)
    return Py4JBackend()


def jpmml_score(text: str, frame: pd.DataFrame) -> pd.DataFrame:
    """JPMML-Evaluator's results for ``frame`` (one JVM per test process, outside it)."""
    if shutil.which("java") is None:
        _need("java")
    try:
        from jpmml_evaluator import make_evaluator
    except ImportError:
        _need("jpmml_evaluator")
    ev = make_evaluator(text.encode("utf-8"), backend=_jpmml_backend())
    ev.verify()
    return ev.evaluateAll(frame)


def compare(model, result: pd.DataFrame, frame: pd.DataFrame, *, tol: float) -> int:
    """Assert the engine's results equal the model's; return the number of rows compared."""
    if model.task == "classification":
        want = model.predict_proba(frame)
        cols = [f"probability({exporters_label(c)})" for c in model.classes]
        got = result[cols].to_numpy(dtype=float)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        labels = [exporters_label(v) for v in model.predict(frame)]
        got_labels = [exporters_label(v) for v in result.iloc[:, 0]]
        tie = np.isclose(np.sort(want, axis=1)[:, -1], np.sort(want, axis=1)[:, -2], rtol=0, atol=tol)
        bad = [i for i, (a, b) in enumerate(zip(labels, got_labels)) if a != b and not tie[i]]
        assert not bad, (bad[:5], [labels[i] for i in bad[:5]], [got_labels[i] for i in bad[:5]])
    else:
        got = result.iloc[:, 0].to_numpy(dtype=float)
        np.testing.assert_allclose(got, model.predict(frame), rtol=tol, atol=tol)
    return len(frame)


def exporters_label(v) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    return str(v)


def _probe_frame(model, base: pd.DataFrame, n: int = 400) -> pd.DataFrame:
    M = probe_rows(model, model.matrix(base.head(60)), n_missing=60)
    rng = np.random.default_rng(0)
    if len(M) > n:
        M = M[rng.choice(len(M), n, replace=False)]
    return zoo._frame(model, M)


def _tolerance(model) -> float:
    return 1e-6 if model.combiner.arithmetic == "float32" else 1e-12


EXPORTABLE = [n for n in zoo.zoo_names() if n not in ("handmade_linear", "learned_cart_subset_oblique",
                                                      "learned_regressor_oblique", "chain_deep")]
FAST = {"sklearn_tree_multiclass_hostile"}


@pytest.mark.parametrize("name", fast_cases(EXPORTABLE, FAST))
def test_model_pmml_is_valid_and_the_engine_agrees(name):
    model, X = zoo.get(name)
    text = exporters.get("pmml")(model)
    schema = pmml_schema()
    assert schema.validate(lxml.fromstring(text.encode("utf-8"))), schema.error_log.last_error
    frame = _probe_frame(model, X)
    result = jpmml_score(text, frame)
    assert compare(model, result, frame, tol=_tolerance(model)) > 0


RULE_CASES = ["sklearn_tree_binary", "sklearn_tree_multiclass_hostile", "handmade_nominal",
              "learned_id3_multiway", "learned_c45_fractional"]


@pytest.mark.parametrize("name", fast_cases(RULE_CASES, {"handmade_nominal"}))
@pytest.mark.parametrize("order", ["first-hit", "vote"])
def test_rule_base_pmml_is_valid_and_the_engine_agrees(name, order):
    model, X = zoo.get(name)
    rb = rulekit.to_rules(model)
    if order == "vote":
        rb = rb.model_copy(update={"semantics": "vote"})
    text = exporters.get("pmml")(rb)
    schema = pmml_schema()
    assert schema.validate(lxml.fromstring(text.encode("utf-8"))), schema.error_log.last_error
    frame = _probe_frame(model, X)
    result = jpmml_score(text, frame)
    want = [exporters_label(v) for v in rb.predict(frame)]
    got = [exporters_label(v) for v in result.iloc[:, 0]]
    assert want == got
    if order == "first-hit" and name == "handmade_nominal":
        # JPMML gives no RuleSet probabilities: rulekit's importer reads them back (a decision list
        # becomes a tree by copying the rest of the list under every literal: small lists only)

        back = loads(text)
        np.testing.assert_array_equal(back.predict_proba(frame), rb.predict_proba(frame))


def test_hostile_names_are_written_by_the_xml_library():
    model, _ = zoo.get("sklearn_tree_multiclass_hostile")
    text = exporters.get("pmml")(model)
    root = lxml.fromstring(text.encode("utf-8"))
    fields = [f.get("name") for f in root.iter("{*}DataField")]
    assert fields[: model.n_features] == model.feature_names
    used = {p.get("field") for p in root.iter("{*}SimplePredicate")}
    assert used <= set(model.feature_names)


def test_what_pmml_cannot_say_is_refused():
    model, _ = zoo.get("sklearn_tree_binary")
    rb = rulekit.to_rules(model).model_copy(update={"semantics": "weighted-sum"})
    with pytest.raises(ExportError, match="weighted-sum"):
        exporters.get("pmml")(rb)
    with pytest.raises(ExportError, match="oblique"):
        exporters.get("pmml")(zoo.get("handmade_linear")[0])
    with pytest.raises(ExportError, match="256"):
        exporters.get("pmml")(zoo.get("chain_deep")[0])
    with pytest.raises(ExportError, match="classifier"):
        exporters.get("pmml")(rulekit.to_rules(zoo.get("sklearn_tree_regressor")[0]))


def test_cli_export_writes_pmml_and_it_imports_back(tmp_path, capsys):

    model, X = zoo.get("handmade_nominal")
    src = tmp_path / "m.json"
    model.save(src)
    out = tmp_path / "m.pmml"
    try:
        code = main(["export", str(src), "--to", "pmml", "-o", str(out), "-q"])
    except SystemExit as err:
        code = err.code
    assert code in (0, None), capsys.readouterr().err
    again = load_file(out)
    M = probe_rows(model, model.matrix(X.head(50)))
    np.testing.assert_array_equal(again.predict_proba(M), model.predict_proba(M))
    np.testing.assert_array_equal(again.predict(M), model.predict(M))
