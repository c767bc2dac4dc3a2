"""PMML categorical inputs as sklearn2pmml writes them: a ColumnTransformer's OneHotEncoder (equal
tests on the categorical field) and OrdinalEncoder (a MapValues DerivedField, then numeric tests on
the code, folded into set tests on the category), for a tree and a forest: equal to the scikit-learn
pipeline and to JPMML-Evaluator on threshold, float-neighbour rows and every category. MapValues in a
RuleSetModel (mapMissingTo, defaultValue) and what cannot be folded (a category without a code)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from lxml import etree

from rulekit.importers.pmml import load_file, loads
from rulekit.importers.pmml_fields import parse_float32
from rulekit.importers.pmml_xml import PmmlError
from rulekit.probe import probe_rows
from tests.exporters.test_pmml_export import compare, jpmml_score
from tests.importers.test_pmml_import import write_pmml
from tests.marks import fast_cases

CATS = ["blue sky", "green", "q'uo\"te", "ünï", "red"]
# sklearn2pmml 0.133.1 writes q'uo"te in an <Array> unquoted as q'uo\"te, which JPMML-Evaluator
# tokenises differently (every category of that Array then misses: no prediction); rulekit reads it
# as scikit-learn meant it. The HistGradientBoosting case (Arrays) uses a category without '"'.
CATS_NO_DQUOTE = ["blue sky", "green", "q'uote", "ünï", "red"]


def _data(cats=CATS):
    rng = np.random.default_rng(4)
    n = 400
    X = pd.DataFrame({"num x": rng.normal(size=n).round(3), "cat ✓": rng.choice(cats, n)})
    score = X["num x"] + X["cat ✓"].map({c: i - 2 for i, c in enumerate(cats)}) * 0.7
    return X, (score > 0.1).astype(int)


def _pipeline(encoder: str, estimator: str):
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder
    from sklearn.tree import DecisionTreeClassifier

    from sklearn.ensemble import HistGradientBoostingClassifier

    enc = OneHotEncoder() if encoder == "onehot" else OrdinalEncoder()
    est = {"tree": lambda: DecisionTreeClassifier(max_depth=5, random_state=0),
           "forest": lambda: RandomForestClassifier(n_estimators=4, max_depth=4, random_state=0),
           # categorical splits: sets of categories that cover what reaches them, no 'else' child
           "hgb": lambda: HistGradientBoostingClassifier(max_iter=8, categorical_features=[0], random_state=0)}[estimator]()
    return ColumnTransformer([("c", enc, ["cat ✓"]), ("n", "passthrough", ["num x"])]), est


def _rows(text: str, n: int = 300, cats=CATS) -> pd.DataFrame:
    """Every threshold on the numeric field, its float32 neighbours, and every category."""
    root = etree.fromstring(text.encode("utf-8"))
    nums = []
    for p in root.iter("{*}SimplePredicate"):
        if p.get("field") == "num x":
            f = np.float32(parse_float32(p.get("value")))
            nums += [float(f), float(np.nextafter(f, np.float32(-np.inf))), float(np.nextafter(f, np.float32(np.inf)))]
    assert nums
    rng = np.random.default_rng(1)
    return pd.DataFrame({"num x": [nums[i] for i in rng.integers(len(nums), size=n)],
                         "cat ✓": pd.Series([cats[i] for i in rng.integers(len(cats), size=n)], dtype=object)})


@pytest.mark.parametrize("case", fast_cases(["onehot-tree", "ordinal-tree", "onehot-forest", "ordinal-forest",
                                             "ordinal-hgb"], set()))
def test_sklearn2pmml_categorical_inputs_import_exactly(tmp_path, case):
    from sklearn.pipeline import Pipeline

    encoder, estimator = case.split("-")
    cats = CATS_NO_DQUOTE if estimator == "hgb" else CATS
    X, y = _data(cats)
    ct, est = _pipeline(encoder, estimator)
    path = tmp_path / "m.pmml"
    write_pmml(Pipeline([("ct", ct), ("clf", est)]), X, y, path)
    ct, est = _pipeline(encoder, estimator)  # the same pipeline, fitted here to score the rows
    pipe = Pipeline([("ct", ct), ("clf", est)]).fit(X, y)
    text = path.read_text(encoding="utf-8")
    assert ("MapValues" in text) == (encoder == "ordinal" and estimator != "hgb")
    assert ("SimpleSetPredicate" in text) == (estimator == "hgb")
    model = load_file(path, assume_complete=True)  # sklearn2pmml writes nullPrediction
    assert [f.kind for f in model.features] == ["numeric", "nominal"] or \
        [f.kind for f in model.features] == ["nominal", "numeric"]
    frame = _rows(text, cats=cats)
    want = pipe.predict_proba(frame[X.columns])
    np.testing.assert_allclose(model.predict_proba(frame), want, rtol=1e-12, atol=1e-12)
    assert compare(model, jpmml_score(text, frame), frame, tol=1e-12) == len(frame)


DOC = """<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4"><Header/><DataDictionary>
<DataField name="c" optype="categorical" dataType="string"><Value value="lo"/><Value value="mid"/><Value value="hi"/>
<Value value="odd"/></DataField>
<DataField name="y" optype="categorical" dataType="string"><Value value="no"/><Value value="yes"/></DataField>
</DataDictionary><TransformationDictionary>
<DerivedField name="code" optype="continuous" dataType="double"><MapValues outputColumn="out"{attrs}>
<FieldColumnPair field="c" column="in"/><InlineTable><row><in>lo</in><out>1</out></row>
<row><in>mid</in><out>2.5</out></row><row><in>hi</in><out>4</out></row>{odd}</InlineTable></MapValues></DerivedField>
<DerivedField name="code32" optype="continuous" dataType="float"><FieldRef field="code"/></DerivedField>
</TransformationDictionary>
<RuleSetModel functionName="classification"><MiningSchema><MiningField name="y" usageType="target"/>
<MiningField name="c"/></MiningSchema><RuleSet defaultScore="no" defaultConfidence="1">
<RuleSelectionMethod criterion="firstHit"/>
<SimpleRule score="yes" id="r1"><SimplePredicate field="code32" operator="greaterThan" value="2.5"/></SimpleRule>
<SimpleRule score="no" id="r2"><SimplePredicate field="code" operator="isMissing"/></SimpleRule>
<SimpleRule score="yes" id="r3"><SimplePredicate field="code" operator="lessThan" value="2"/></SimpleRule>
</RuleSet></RuleSetModel></PMML>"""
ROWS = pd.DataFrame({"c": pd.Series(["lo", "mid", "hi", "odd", None], dtype=object)})


@pytest.mark.parametrize("attrs,odd,want", [
    ("", "<row><in>odd</in><out>7</out></row>", ["yes", "no", "yes", "yes", "no"]),
    pytest.param(' mapMissingTo="0"', "<row><in>odd</in><out>7</out></row>", ["yes", "no", "yes", "yes", "yes"],
                 marks=pytest.mark.slow),
    pytest.param(' defaultValue="2"', "", ["yes", "no", "yes", "no", "no"], marks=pytest.mark.slow),
    pytest.param(' defaultValue="3" mapMissingTo="3"', "", ["yes", "no", "yes", "yes", "yes"], marks=pytest.mark.slow),
])
def test_map_values_in_a_rule_set(attrs, odd, want):
    text = DOC.format(attrs=attrs, odd=odd)
    rb = loads(text)
    assert list(rb.predict(ROWS)) == want
    assert list(jpmml_score(text, ROWS)["y"]) == want


def test_a_category_without_a_code_is_refused_naming_the_line():
    with pytest.raises(PmmlError, match=r"^<pmml>:\d+: category 'odd' has no mapped value"):
        loads(DOC.format(attrs="", odd=""))


def test_float_codes_compare_in_float32():
    text = DOC.format(attrs="", odd="<row><in>odd</in><out>2.5000001</out></row>")
    # 2.5000001 is above 2.5 as a double but is 2.5 in float32 (code32): not > 2.5 -> r2 fails, r3 fails
    assert list(loads(text).predict(ROWS))[3] == "no"
    assert list(jpmml_score(text, ROWS)["y"])[3] == "no"
    assert math.isclose(2.5000001, 2.5, rel_tol=1e-6)


# --- computed fields: an increasing Apply (+ - * /) of one double field, as sklearn2pmml writes scalers
def _scaled_pipeline(scaler: str):
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, RobustScaler, StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    enc = {"standard": StandardScaler, "minmax": MinMaxScaler, "robust": RobustScaler,
           "maxabs": MaxAbsScaler}[scaler]()
    return ColumnTransformer([("s", enc, ["num x", "b"])]), DecisionTreeClassifier(max_depth=5, random_state=0)


@pytest.mark.parametrize("scaler", fast_cases(["standard", "minmax", "robust", "maxabs"], set()))
def test_sklearn2pmml_scalers_fold_into_raw_thresholds(tmp_path, scaler):
    """A test ``float32((x - m) / s) <= t`` becomes ``x <= b`` with the exact double ``b`` (found by
    bisection): equal to the pipeline and to JPMML on the raw thresholds' float64 neighbours."""
    from sklearn.pipeline import Pipeline

    rng = np.random.default_rng(5)
    X = pd.DataFrame({"num x": rng.normal(size=400) * 3 + 1, "b": rng.uniform(-50, 100, 400)})
    y = ((X["num x"] > 0.3) ^ (X["b"] > 40)).astype(int)
    path = tmp_path / "m.pmml"
    write_pmml(Pipeline(list(zip(("ct", "clf"), _scaled_pipeline(scaler)))), X, y, path)
    pipe = Pipeline(list(zip(("ct", "clf"), _scaled_pipeline(scaler)))).fit(X, y)
    text = path.read_text(encoding="utf-8")
    assert "<Apply" in text
    model = load_file(path, assume_complete=True)
    M = probe_rows(model, model.matrix(X.head(40)), n_missing=0)
    frame = pd.DataFrame(M[~np.isnan(M).any(axis=1)], columns=model.feature_names)
    assert len(frame) > 40
    np.testing.assert_allclose(model.predict_proba(frame), pipe.predict_proba(frame[X.columns]), rtol=1e-12, atol=1e-12)
    assert compare(model, jpmml_score(text, frame), frame, tol=1e-12) == len(frame)


APPLY = """<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4"><Header/><DataDictionary>
<DataField name="x" optype="continuous" dataType="double"/>
<DataField name="y" optype="categorical" dataType="string"><Value value="no"/><Value value="yes"/></DataField>
</DataDictionary><RuleSetModel functionName="classification"><MiningSchema><MiningField name="y" usageType="target"/>
<MiningField name="x"{rep}/></MiningSchema><LocalTransformations>
<DerivedField name="z" optype="continuous" dataType="{dtype}">{expr}</DerivedField></LocalTransformations>
<RuleSet defaultScore="no" defaultConfidence="1"><RuleSelectionMethod criterion="firstHit"/>
<SimpleRule score="yes"><SimplePredicate field="z" operator="{op}" value="0.7"/></SimpleRule>
</RuleSet></RuleSetModel></PMML>"""
SCALE = ('<Apply function="+"><Apply function="*"><FieldRef field="x"/><Constant dataType="double">0.1'
         '</Constant></Apply><Constant dataType="double">0.3</Constant></Apply>')


TREE = APPLY.split("<RuleSetModel")[0] + """<TreeModel functionName="classification"><MiningSchema>
<MiningField name="y" usageType="target"/><MiningField name="x"{rep}/></MiningSchema><LocalTransformations>
<DerivedField name="z" optype="continuous" dataType="{dtype}">{expr}</DerivedField></LocalTransformations>
<Node score="no"><True/><Node score="yes"><SimplePredicate field="z" operator="{op}" value="0.7"/></Node>
<Node score="no"><True/></Node></Node></TreeModel></PMML>"""


@pytest.mark.parametrize("dtype", ["double", "float"])
@pytest.mark.parametrize("op", ["lessOrEqual", "lessThan", "greaterThan", "greaterOrEqual", "equal", "notEqual"])
def test_an_apply_in_a_rule_set_is_exact_at_the_boundary(dtype, op):
    """``x * 0.1 + 0.3 op 0.7``: rows at the raw bound, its neighbours and a missing value agree with
    JPMML (the bound is not (0.7 - 0.3) / 0.1 = 4.000000000000001 in every case), in a rule set and
    in a tree."""
    for rep in ("", ' missingValueReplacement="4"'):
        text = APPLY.format(dtype=dtype, expr=SCALE, op=op, rep=rep)
        tree_text = TREE.format(dtype=dtype, expr=SCALE, op=op, rep=rep)
        rb = loads(text)
        bounds, stack = [], [rb.rules[0].condition]
        while stack:  # every Compare's raw bound
            c = stack.pop()
            stack.extend(getattr(c, "items", ()) or ([c.item] if hasattr(c, "item") else []))
            if c.kind == "compare":
                bounds.append(c.value)
        assert bounds
        xs = {4.0, 3.9999999, 4.0000001, math.nan}
        for b in bounds:
            if math.isfinite(b):
                xs |= {b, math.nextafter(b, -math.inf), math.nextafter(b, math.inf)}
        X = pd.DataFrame({"x": sorted(xs, key=lambda v: (math.isnan(v), v))})
        assert list(rb.predict(X)) == list(jpmml_score(text, X)["y"]), (text, X)
        assert list(loads(tree_text).predict(X)) == list(jpmml_score(tree_text, X)["y"]), (tree_text, X)


@pytest.mark.parametrize("expr,message", [
    ('<Apply function="-"><Constant>10</Constant><FieldRef field="x"/></Apply>', "DerivedField 'z' decreases as its field grows"),
    ('<Apply function="*"><FieldRef field="x"/><Constant>-2</Constant></Apply>', "DerivedField 'z' decreases as its field grows"),
    ('<Apply function="/"><FieldRef field="x"/><Constant>0</Constant></Apply>', "Apply '/' with 0.0 is not an increasing"),
    ('<Apply function="/"><Constant>1</Constant><FieldRef field="x"/></Apply>', "Apply '/' with 1.0 is not an increasing"),
    ('<Apply function="exp"><FieldRef field="x"/></Apply>', "<Apply function='exp'>: rulekit folds"),
    ('<Apply function="+"><FieldRef field="x"/><FieldRef field="x"/></Apply>', "DerivedField 'z' computes an Apply of 2"),
    ('<NormContinuous field="x"><LinearNorm orig="0" norm="0"/><LinearNorm orig="1" norm="1"/></NormContinuous>',
     "DerivedField 'z' computes NormContinuous"),
])
def test_what_apply_cannot_fold_is_refused_naming_the_line(expr, message):
    with pytest.raises(PmmlError, match=r"^<pmml>:\d+: " + message):
        loads(APPLY.format(dtype="double", expr=expr, op="lessThan", rep=""))


DEFAULT_ENTRY = """<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4"><Header/><DataDictionary>
<DataField name="x" optype="continuous" dataType="double"/>
<DataField name="c" optype="categorical" dataType="string"><Value value="red"/><Value value="green"/></DataField>
<DataField name="y" optype="continuous" dataType="double"/></DataDictionary>
<TreeModel functionName="regression" missingValueStrategy="defaultChild"><MiningSchema>
<MiningField name="y" usageType="target"/><MiningField name="x"/><MiningField name="c"/></MiningSchema>
<Node id="0" defaultChild="{default}"><True/>
<Node id="1" score="1"><SimplePredicate field="{first}" operator="equal" value="{first_value}"/></Node>
<Node id="2" defaultChild="3"><SimplePredicate field="c" operator="equal" value="green"/>
<Node id="3" score="2"><SimplePredicate field="c" operator="equal" value="green"/></Node></Node>
</Node></TreeModel></PMML>"""


@pytest.mark.slow  # ~25 s of sklearn2pmml
def test_children_that_cover_every_category_reaching_them_need_no_else():
    """Node 2 holds only 'green' rows, and its one child tests 'green': no row finds no true child.
    But when node 2 can be entered by default after a test on another field was UNKNOWN (x missing),
    a 'red' row reaches it: no prediction there, refused."""
    ok = DEFAULT_ENTRY.format(default="2", first="c", first_value="red")
    X = pd.DataFrame({"x": [0.0, 0.0, 0.0], "c": pd.Series(["red", "green", None], dtype=object)})
    assert list(loads(ok).predict(X)) == [1.0, 2.0, 2.0]
    assert list(jpmml_score(ok, X).iloc[:, 0]) == [1.0, 2.0, 2.0]
    with pytest.raises(PmmlError, match=r"^<pmml>:\d+: a row can reach this <Node> and find no true child"):
        loads(RISKY)
    # the engine: x missing sends a 'red' row by default into node 4, whose one child tests 'green'
    got = jpmml_score(RISKY, pd.DataFrame({"x": [math.nan, 9.0], "c": pd.Series(["red", "green"], dtype=object)}))
    assert math.isnan(got.iloc[0, 0]) and got.iloc[1, 0] == 3.0


RISKY = DEFAULT_ENTRY.split("<Node id=\"0\"")[0] + """<Node id="0" defaultChild="2"><True/>
<Node id="1" score="1"><SimplePredicate field="x" operator="equal" value="0"/></Node>
<Node id="2" defaultChild="4"><SimplePredicate field="x" operator="notEqual" value="0"/>
<Node id="3" score="2"><SimplePredicate field="x" operator="lessOrEqual" value="5"/></Node>
<Node id="4" defaultChild="5"><SimplePredicate field="c" operator="equal" value="green"/>
<Node id="5" score="3"><SimplePredicate field="c" operator="equal" value="green"/></Node></Node>
<Node id="6" score="9"><True/></Node></Node></Node></TreeModel></PMML>"""
