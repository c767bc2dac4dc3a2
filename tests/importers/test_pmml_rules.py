"""PMML RuleSetModel import as a rule base (firstHit, weightedMax, weightedSum) and unequal-weight
majority votes: hand-written documents (built with lxml, hostile names, labels, values and ids)
scored by rulekit and by JPMML-Evaluator on threshold, float-neighbour, missing and many-rules-fire
rows; the PMML 4.4 spec's choices where JPMML departs from it (weightedMax picks by confidence
across scores, weightedSum ties go to the first score that fired); round trips of rulekit's own
RuleSetModels; the CLI; refusals with FILE:LINE."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from lxml import etree
from lxml.builder import ElementMaker

import rulekit
from rulekit import dsl, exporters
from rulekit.cli import main
from rulekit.importers.pmml import loads
from rulekit.importers.pmml_xml import PmmlError
from tests import zoo
from tests.exporters.test_pmml_export import RULE_CASES, _probe_frame, compare, jpmml_score
from tests.marks import fast_cases

NS = "http://www.dmg.org/PMML-4_4"
E = ElementMaker(namespace=NS, nsmap={None: NS})
A, B, C = 'a "q"\nline', "β, b", "c'at ✓"
CATS = ["red", "blue blue", 'q"uote', "ünï"]
CLASSES = ["no", 'ye"s', "peut-être\n"]
REPLACEMENT = "0.5"  # B's missingValueReplacement


def _array(values) -> etree._Element:
    text = " ".join('"' + v.replace('"', '\\"') + '"' for v in values)
    return E.Array(text, n=str(len(values)), type="string")


class Doc:
    """A random RuleSetModel over A, B (double, or float) and C (categorical), target CLASSES."""

    def __init__(self, seed: int, criterion: str, n_rules: int, dtype: str = "double"):
        self.rng = np.random.default_rng(seed)
        self.thresholds = sorted({float(v) for v in self.rng.normal(0, 1.5, 8).round(2)} | {0.5, 0.1})
        self.criterion, self.dtype = criterion, dtype
        rules = []
        n = 0
        while n < n_rules:
            if self.rng.random() < 0.2 and n + 2 <= n_rules:
                rules.append(E.CompoundRule(self._predicate(), self._rule(n), self._rule(n + 1)))
                n += 2
            else:
                rules.append(self._rule(n))
                n += 1
        rs = E.RuleSet(E.RuleSelectionMethod(criterion=criterion), *rules, defaultScore=CLASSES[0],
                       defaultConfidence="0.25")
        out = E.Output(E.OutputField(name="pred", feature="predictedValue"),
                       E.OutputField(name="conf", feature="confidence"),
                       E.OutputField(name="rid", feature="entityId"))
        ms = E.MiningSchema(E.MiningField(name="y ✓'", usageType="target"), E.MiningField(name=A),
                            E.MiningField(name=B, missingValueReplacement=REPLACEMENT), E.MiningField(name=C))
        dd = E.DataDictionary(
            E.DataField(name=A, optype="continuous", dataType=dtype),
            E.DataField(name=B, optype="continuous", dataType=dtype),
            E.DataField(*[E.Value(value=v) for v in CATS], name=C, optype="categorical", dataType="string"),
            E.DataField(*[E.Value(value=v) for v in CLASSES], name="y ✓'", optype="categorical",
                        dataType="string"))
        self.root = E.PMML(E.Header(), dd, E.RuleSetModel(ms, out, rs, functionName="classification"),
                           version="4.4")
        self.text = etree.tostring(self.root, encoding="unicode")

    def _rule(self, n: int) -> etree._Element:
        if self.criterion == "weightedMax":  # distinct weights, confidence rising with weight
            weight = float(self.rng.permutation(1000)[0] + 1) + n / 1000
            conf = weight / 2000
        else:
            weight = float(self.rng.choice([0.5, 1.0, 1.5, 2.0, 3.0]))
            conf = round(float(self.rng.uniform(0.05, 1)), 3)
        rid = f'r"{n}\n✓' if n % 3 else None  # some rules without an id: JPMML numbers them
        attrs = {"score": CLASSES[int(self.rng.integers(len(CLASSES)))], "weight": repr(weight),
                 "confidence": repr(conf)}
        if rid is not None:
            attrs["id"] = rid
        pred = self._predicate()
        if self.rng.random() < 0.8:  # narrower rules: some rows match none
            pred = E.CompoundPredicate(pred, self._simple(), self._simple(), booleanOperator="and")
        return E.SimpleRule(pred, **attrs)

    def _simple(self) -> etree._Element:
        r = self.rng.random()
        if r < 0.1:
            return E.SimplePredicate(field=[A, B, C][int(self.rng.integers(3))],
                                     operator=str(self.rng.choice(["isMissing", "isNotMissing"])))
        if r < 0.4:
            if self.rng.random() < 0.5:
                return E.SimplePredicate(field=C, operator=str(self.rng.choice(["equal", "notEqual"])),
                                         value=CATS[int(self.rng.integers(len(CATS)))])
            values = list(self.rng.choice(CATS, size=int(self.rng.integers(1, 3)), replace=False))
            return E.SimpleSetPredicate(_array(values), field=C,
                                        booleanOperator=str(self.rng.choice(["isIn", "isNotIn"])))
        op = str(self.rng.choice(["lessThan", "lessOrEqual", "greaterThan", "greaterOrEqual", "equal",
                                  "notEqual"], p=[0.25, 0.25, 0.2, 0.2, 0.05, 0.05]))
        return E.SimplePredicate(field=[A, B][int(self.rng.integers(2))], operator=op,
                                 value=repr(self.thresholds[int(self.rng.integers(len(self.thresholds)))]))

    def _predicate(self) -> etree._Element:
        r = self.rng.random()
        if r < 0.45:
            return self._simple()
        if r < 0.55:
            return E.CompoundPredicate(self._simple(), self._simple(), booleanOperator="xor")
        if r < 0.65:
            return E.CompoundPredicate(self._simple(), self._simple(), E.CompoundPredicate(
                self._simple(), self._simple(), booleanOperator="or"), booleanOperator="surrogate")
        op = "and" if r < 0.88 else "or"
        return E.CompoundPredicate(*[self._simple() for _ in range(int(self.rng.integers(2, 4)))],
                                   booleanOperator=op)

    def rows(self, n: int = 400) -> pd.DataFrame:
        """Thresholds, their float neighbours (in the field's precision), missing values, every
        category and a value outside them, combined at random."""
        nums = []
        for t in self.thresholds:
            if self.dtype == "float":
                f = np.float32(t)
                nums += [float(f), float(np.nextafter(f, np.float32(-np.inf))), float(np.nextafter(f, np.float32(np.inf)))]
            else:
                nums += [t, math.nextafter(t, -math.inf), math.nextafter(t, math.inf)]
        nums += [math.nan] * 6 + [-5.0, 5.0, float(REPLACEMENT)]
        cats = CATS + [None, None]
        pick = self.rng.integers
        return pd.DataFrame({A: [nums[i] for i in pick(len(nums), size=n)],
                             B: [nums[i] for i in pick(len(nums), size=n)],
                             C: pd.Series([cats[i] for i in pick(len(cats), size=n)], dtype=object)})


def _engine(doc: Doc, frame: pd.DataFrame) -> pd.DataFrame:
    result = jpmml_score(doc.text, frame)
    assert "errors" not in result.columns or result["errors"].isna().all(), result["errors"].dropna().iloc[0]
    return result


def run(args) -> int:
    try:
        code = main(args)
    except SystemExit as err:
        code = err.code
    return code or 0


def _fired_ids(rb, frame) -> list:
    return [rb.rules[e.fired].id if e.fired is not None else None for e in rb.explain(frame)]


@pytest.mark.parametrize("criterion,dtype", [("firstHit", "double"), ("weightedMax", "double"),
                                             ("weightedSum", "double"), ("firstHit", "float")])
def test_rule_sets_agree_with_the_engine(criterion, dtype):
    """Labels identical on every row; the rule JPMML names (entityId) is the rule rulekit fires; the
    confidence JPMML returns is the fired rule's (first hit, weighted max) or the winning total over
    the number of rules fired (weighted sum), to 1e-12."""
    doc = Doc(11, criterion, 45, dtype)
    rb = loads(doc.text)
    assert len(rb.rules) == 45 and rb.precision == ("float32" if dtype == "float" else "float64")
    frame = doc.rows()
    got = _engine(doc, frame)
    labels = list(rb.predict(frame))
    fired = [e.fired for e in rb.explain(frame)]
    several = sum(1 for e in rb.explain(frame) if e.matched and len(e.matched) > 1)
    assert several > 100  # rows where several rules fire
    assert sum(f is None for f in fired) >= 3  # rows where none fires (the default)
    if criterion != "weightedSum":
        assert labels == list(got["pred"])
        ids = _fired_ids(rb, frame)
        want_ids = [(i if i is not None else None) for i in ids]
        jp_ids = [None if (isinstance(v, float) and math.isnan(v)) or v is None else str(v) for v in got["rid"]]
        # JPMML numbers a rule without an id by its 1-based position among all SimpleRules
        assert want_ids == jp_ids
        conf = [rb.rules[f].stats["confidence"] if f is not None else 0.25 for f in fired]
        np.testing.assert_allclose(got["conf"].to_numpy(float), conf, rtol=1e-12, atol=0)
        return
    proba = rb.predict_proba(frame)
    top = np.sort(proba, axis=1)
    tie = top[:, -1] == top[:, -2]
    same = [a == b for a, b in zip(labels, got["pred"])]
    assert all(s for s, t in zip(same, tie) if not t)
    assert tie.sum() < len(frame) / 4
    # the spec on a tie: the first tied class in the DataDictionary (JPMML: the first score fired)
    assert all(list(rb.classes).index(lab) == int(np.argmax(p)) for lab, p, t in zip(labels, proba, tie) if t)
    conf = []
    for lab, f in zip(labels, fired):
        if f is None:
            conf.append(0.25)
            continue
        votes = [rb.rules[i] for i in f]
        conf.append(sum(r.weight for r in votes if r.conclusion.label == lab) / len(votes))
    keep = ~tie
    np.testing.assert_allclose(got["conf"].to_numpy(float)[keep], np.array(conf)[keep], rtol=1e-12, atol=0)


def test_the_rules_text_reads_back_to_the_same_predictions(tmp_path, capsys):
    """``rulekit import F.pmml -o F.rules`` writes a rules file that ``rulekit check`` accepts and
    that predicts what the imported rule base predicts (hostile names round-trip through the text)."""
    for criterion in ("firstHit", "weightedMax", "weightedSum"):
        doc = Doc(5, criterion, 17)
        src = tmp_path / f"{criterion}.pmml"
        src.write_text(doc.text, encoding="utf-8")
        out = tmp_path / f"{criterion}.rules"
        assert run(["import", str(src), "-o", str(out), "-q"]) == 0
        assert run(["check", str(out)]) == 0
        back = dsl.loads(out.read_text(encoding="utf-8"))
        rb = loads(doc.text)
        frame = doc.rows(200)
        assert list(back.predict(frame)) == list(rb.predict(frame))
        np.testing.assert_array_equal(back.predict_proba(frame), rb.predict_proba(frame))
        assert back.semantics == {"weightedSum": "vote"}.get(criterion, "first-hit")


def test_imported_rule_sets_export_exactly(tmp_path, capsys):
    """The imported rule base (hostile names and labels) through rulekit's own backends: ``rulekit
    verify`` finds no disagreement in Python, SQLite, DuckDB or ONNX on data + threshold/missing probes."""
    for criterion in ("weightedMax", "weightedSum"):
        doc = Doc(11, criterion, 45)
        (tmp_path / "r.pmml").write_text(doc.text, encoding="utf-8")
        doc.rows(300).to_csv(tmp_path / "d.csv", index=False)
        assert run(["import", str(tmp_path / "r.pmml"), "-o", str(tmp_path / "r.rules"), "-q"]) == 0
        assert run(["verify", str(tmp_path / "r.rules"), str(tmp_path / "d.csv"),
                    "--backends", "python,sqlite,duckdb,onnx"]) == 0, capsys.readouterr()


@pytest.mark.parametrize("name", fast_cases(RULE_CASES, {"handmade_nominal", "learned_id3_multiway"}))
@pytest.mark.parametrize("order", ["first-hit", "vote"])
def test_rulekit_rule_sets_import_back_rule_for_rule(name, order):
    """rulekit's RuleSetModel export read back: the same number of rules (17-45 here; a decision
    list used to become a tree past 200,000 nodes) and the same labels and probabilities."""
    model, X = zoo.get(name)
    rb = rulekit.to_rules(model)
    if order == "vote":
        rb = rb.model_copy(update={"semantics": "vote"})
    back = loads(exporters.get("pmml")(rb))
    extra = 1 if order == "first-hit" and rb.default is not None else 0  # the default as a last True rule
    assert len(back.rules) == len(rb.rules) + extra
    frame = _probe_frame(model, X)
    assert list(back.predict(frame)) == list(rb.predict(frame))
    np.testing.assert_allclose(back.predict_proba(frame), rb.predict_proba(frame), rtol=1e-15, atol=0)


def _tiny(criterion: str, rules: str, extra_fields: str = "",
          default: str = ' defaultScore="no" defaultConfidence="1"') -> str:
    return ('<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4"><Header/><DataDictionary>'
            '<DataField name="x" optype="continuous" dataType="double"/>'
            '<DataField name="f" optype="continuous" dataType="float"/>'
            '<DataField name="c" optype="categorical" dataType="string"><Value value="red"/>'
            '<Value value="green"/></DataField>'
            '<DataField name="y" optype="categorical" dataType="string"><Value value="no"/>'
            '<Value value="yes"/><Value value="maybe"/></DataField></DataDictionary>'
            '<RuleSetModel functionName="classification"><MiningSchema><MiningField name="y" '
            f'usageType="target"/><MiningField name="x"/><MiningField name="c"/>{extra_fields}'
            f'</MiningSchema><RuleSet{default}>\n<RuleSelectionMethod criterion="{criterion}"/>\n'
            f'{rules}\n</RuleSet></RuleSetModel></PMML>')


def _rule(score, pred, weight="1", extra=""):
    return f'<SimpleRule score="{score}" weight="{weight}"{extra}>{pred}</SimpleRule>\n'


LT = '<SimplePredicate field="x" operator="lessThan" value="{}"/>'


def test_spec_choices_where_jpmml_departs():
    """weightedMax: the heaviest firing rule, the first of equal weights (JPMML-Evaluator picks the
    highest confidence among each score's heaviest rule); weightedSum: on equal totals the first
    class in the DataDictionary (JPMML: the score that fired first)."""
    rules = (_rule("maybe", LT.format(0), "2", ' confidence="0.3"') + _rule("yes", LT.format(5), "1", ' confidence="0.9"')
             + _rule("yes", LT.format(9), "2", ' confidence="0.9"'))
    X = pd.DataFrame({"x": [-1.0, 1.0, 6.0, 20.0, math.nan], "c": ["red"] * 5})
    heavy = loads(_tiny("weightedMax", rules))
    assert list(heavy.predict(X)) == ["maybe", "yes", "yes", "no", "no"]  # JPMML: yes on row 0
    tie = _rule("yes", LT.format(5)) + _rule("no", LT.format(3)) + _rule("maybe", LT.format(1))
    vote = loads(_tiny("weightedSum", tie))
    assert list(vote.predict(X)) == ["no", "no", "no", "no", "no"]
    X2 = pd.DataFrame({"x": [4.0, 2.0], "c": ["red"] * 2})  # yes alone; yes and no tie -> no (first)
    assert list(vote.predict(X2)) == ["yes", "no"]
    np.testing.assert_array_equal(vote.predict_proba(X2)[1], [0.5, 0.5, 0.0])
    # the departures docs/pmml.md names, as measured on the engine
    assert list(jpmml_score(_tiny("weightedMax", rules), X)["y"]) == ["yes", "yes", "yes", "no", "no"]
    assert list(jpmml_score(_tiny("weightedSum", tie), X2)["y"]) == ["yes", "yes"]


def test_header_text_cannot_inject_lines_into_the_rules_file(tmp_path):
    """The Application name becomes one comment line; a defaultConfidence that is not a number is
    refused (it would be written into a comment)."""
    text = _tiny("firstHit", _rule("yes", LT.format(0))).replace(
        "<Header/>", '<Header><Application name="x&#10;feature z: numeric&#13;default yes"/></Header>')
    rules = dsl.dumps(loads(text))
    assert "\nfeature z" not in rules and "\ndefault yes" not in rules
    assert [f.name for f in dsl.loads(rules).features] == ["x", "c"] and dsl.loads(rules).default.label == "no"
    with pytest.raises(PmmlError, match=r"<RuleSet> defaultConfidence='1\\nx' is not a number"):
        loads(_tiny("firstHit", _rule("yes", LT.format(0)), default=' defaultScore="no" defaultConfidence="1&#10;x"'))


def test_a_rule_set_is_not_written_as_a_model_file(tmp_path, capsys):
    src = tmp_path / "r.pmml"
    src.write_text(_tiny("firstHit", _rule("yes", LT.format(0))), encoding="utf-8")
    assert run(["import", str(src), "-o", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "name the output *.rules, not m.json" in err[0], err
    assert not (tmp_path / "m.json").exists()


def test_three_valued_predicates():
    """A predicate on a missing value is UNKNOWN: a rule needs TRUE; xor is UNKNOWN when either side
    is; surrogate moves on only when its predicate is UNKNOWN; a replacement is never missing."""
    xor = ('<CompoundPredicate booleanOperator="xor">' + LT.format(0)
           + '<SimplePredicate field="c" operator="equal" value="red"/></CompoundPredicate>')
    sur = ('<CompoundPredicate booleanOperator="surrogate">' + LT.format(0)
           + '<SimplePredicate field="c" operator="equal" value="red"/><False/></CompoundPredicate>')
    X = pd.DataFrame({"x": [-1.0, -1.0, 1.0, 1.0, math.nan, math.nan, math.nan, -1.0],
                      "c": ["red", "green", "red", "green", "red", "green", None, None]})
    assert list(loads(_tiny("firstHit", _rule("yes", xor))).predict(X)) == \
        ["no", "yes", "yes", "no", "no", "no", "no", "no"]
    assert list(loads(_tiny("firstHit", _rule("yes", sur))).predict(X)) == \
        ["yes", "yes", "no", "no", "yes", "no", "no", "yes"]
    # not-equal on a missing value is UNKNOWN too (the rule does not fire)
    ne = '<SimplePredicate field="c" operator="notEqual" value="red"/>'
    assert list(loads(_tiny("firstHit", _rule("yes", ne))).predict(X))[5:7] == ["yes", "no"]
    # x replaced by 0.5 when missing: x < 1 holds there, x < 0 does not
    rep = _tiny("firstHit", _rule("yes", LT.format(1)) + _rule("maybe", LT.format(0)))
    rep = rep.replace('<MiningField name="x"/>', '<MiningField name="x" missingValueReplacement="0.5"/>')
    assert list(loads(rep).predict(X))[4:7] == ["yes", "yes", "yes"]
    miss = '<SimplePredicate field="x" operator="isMissing"/>'
    assert list(loads(rep.replace(LT.format(1), miss)).predict(X))[4:7] == ["no", "no", "no"]
    # xor with True is PMML's only 'not': a surrogate that ends FALSE (not UNKNOWN) then fires
    neg = f'<CompoundPredicate booleanOperator="xor">{sur}<True/></CompoundPredicate>'
    assert list(loads(_tiny("firstHit", _rule("yes", neg))).predict(X)) == \
        ["no", "no", "yes", "yes", "no", "yes", "yes", "no"]
    docs = [_tiny("firstHit", _rule("yes", p)) for p in (xor, sur, ne, neg)] + [rep, rep.replace(LT.format(1), miss)]
    for text in docs:  # the engine agrees on each
        got = jpmml_score(text, X)
        assert list(loads(text).predict(X)) == list(got.iloc[:, 0]), text


def test_float_fields_compare_in_float32():
    pred = '<SimplePredicate field="f" operator="lessOrEqual" value="0.1"/>'
    rb = loads(_tiny("firstHit", _rule("yes", pred), '<MiningField name="f"/>'))
    f = np.float32(0.1)
    X = pd.DataFrame({"x": [0.0] * 3, "f": [float(f), float(np.nextafter(f, np.float32(1))), 0.1],
                      "c": ["red"] * 3})
    # 0.1 (double) is above 0.1 (double) but rounds to float32(0.1): the engine's float field holds
    assert rb.precision == "float32" and list(rb.predict(X)) == ["yes", "no", "yes"]


@pytest.mark.parametrize("rules,extra,message", [
    (_rule("yes", '<CompoundPredicate booleanOperator="xor">' + LT.format(0) * 3 + '</CompoundPredicate>'),
     "", "xor of 3 predicates"),
    (_rule("yes", '<CompoundPredicate booleanOperator="surrogate"><CompoundPredicate booleanOperator="and">'
              + LT.format(0) * 2 + '</CompoundPredicate>' + LT.format(1) + '</CompoundPredicate>'),
     "", "a surrogate's predicates before the last must be simple"),
    (_rule("yes", LT.format(0)) + _rule("yes", '<SimplePredicate field="f" operator="lessThan" value="1"/>'),
     '<MiningField name="f"/>', "this rule set compares float fields \\(in float32\\) and double fields"),
    (_rule("yes", '<SimplePredicate field="c" operator="equal" value="blue"/>'), "",
     "value 'blue' is not one of the field's values"),
    (_rule("yes", LT.format(0), "NaN"), "", "weight='NaN' is not a finite number"),
    (_rule("yes", LT.format(0), "-1"), "", "weight='-1': rulekit's vote \\(PMML's weightedSum\\) needs positive weights"),
    (_rule("yes", LT.format(0), extra=' id="a"') + _rule("no", LT.format(1), extra=' id="a"'), "",
     "a second SimpleRule with id 'a'"),
    (_rule("perhaps", LT.format(0)), "", "class 'perhaps' is not one of the target's values"),
])
def test_what_has_no_exact_form_is_refused_naming_the_line(rules, extra, message):
    criterion = "weightedSum" if "-1" in rules else "firstHit"
    with pytest.raises(PmmlError, match=r"^<pmml>:\d+: " + message):
        loads(_tiny(criterion, rules, extra))


def test_cli_refusal_is_one_line_with_the_file_and_line(tmp_path, capsys):
    src = tmp_path / "bad.pmml"
    src.write_text(_tiny("weightedSum", _rule("yes", LT.format(0), "0")), encoding="utf-8")
    assert run(["import", str(src), "-o", str(tmp_path / "out.rules")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"rulekit: {src}:3: weight='0'"), err
    assert not (tmp_path / "out.rules").exists()


# --- weighted majority votes -------------------------------------------------------------------
def _vote_doc(weights, method="weightedMajorityVote") -> str:
    trees = []
    for k, w in enumerate(weights):
        a, b = CLASSES[k % 3], CLASSES[(k + 1) % 3]
        t = float(k) - 1.5
        trees.append(E.Segment(E("True"),
                               E.TreeModel(
            E.MiningSchema(E.MiningField(name="y ✓'", usageType="target"), E.MiningField(name=A),
                           E.MiningField(name=C)),
            E.Node(E("True"),
                   E.Node(E.SimplePredicate(field=A, operator="lessOrEqual", value=repr(t)), score=a),
                   E.Node(E.SimplePredicate(field=C, operator="equal", value=CATS[k % 4]), score=b,),
                   E.Node(E("True"), E.ScoreDistribution(value=CLASSES[0], recordCount="1"),
                          E.ScoreDistribution(value=CLASSES[1], recordCount="3"),
                          E.ScoreDistribution(value=CLASSES[2], recordCount="2"), score=CLASSES[1]),
                   score=a),
            functionName="classification", missingValueStrategy="none",
            noTrueChildStrategy="returnLastPrediction"), weight=repr(w)))
    dd = E.DataDictionary(
        E.DataField(name=A, optype="continuous", dataType="double"),
        E.DataField(*[E.Value(value=v) for v in CATS], name=C, optype="categorical", dataType="string"),
        E.DataField(*[E.Value(value=v) for v in CLASSES], name="y ✓'", optype="categorical", dataType="string"))
    ms = E.MiningSchema(E.MiningField(name="y ✓'", usageType="target"), E.MiningField(name=A), E.MiningField(name=C))
    out = E.Output(E.OutputField(name="pred", feature="predictedValue"),
                   *[E.OutputField(name=f"probability({c})", feature="probability", value=c) for c in CLASSES])
    root = E.PMML(E.Header(), dd, E.MiningModel(ms, out, E.Segmentation(*trees, multipleModelMethod=method),
                                               functionName="classification"), version="4.4")
    return etree.tostring(root, encoding="unicode")


def _vote_rows() -> pd.DataFrame:
    nums = [v for k in range(6) for v in (k - 1.5, math.nextafter(k - 1.5, math.inf))] + [math.nan, -9.0]
    rng = np.random.default_rng(3)
    cats = CATS + [None]
    return pd.DataFrame({A: [nums[i] for i in rng.integers(len(nums), size=300)],
                         C: pd.Series([cats[i] for i in rng.integers(len(cats), size=300)], dtype=object)})


def test_weighted_majority_vote_is_the_weighted_share_of_each_trees_class():
    weights = [0.7, 1.9, 0.4, 2.25, 1.1]
    model = loads(_vote_doc(weights))
    frame = _vote_rows()
    votes = np.zeros((len(frame), 3))
    for k, w in enumerate(weights):  # each tree's class, by hand from the document above
        a, b = k % 3, (k + 1) % 3
        x = frame[A].to_numpy(float)
        cls = np.where(x <= k - 1.5, a, np.where(frame[C].to_numpy() == CATS[k % 4], b, 1))  # 1: the last node's score
        votes[np.arange(len(frame)), cls] += w
    np.testing.assert_allclose(model.predict_proba(frame), votes / sum(weights), rtol=1e-15, atol=1e-16)
    assert list(model.predict(frame)) == [CLASSES[i] for i in votes.argmax(axis=1)]


@pytest.mark.parametrize("weights", [[0.7, 1.9, 0.4, 2.25, 1.1], [1.0, 2.0, 1.0, 1.0, 3.0], [1.0, 1.0, 2.0]])
def test_weighted_majority_vote_agrees_with_the_engine(weights):
    """Probabilities to 1e-12 and labels on every row but exact ties (weights 1, 1, 2 tie on 122 of
    300 rows): there rulekit takes the first class in class order, JPMML the class of the earliest
    tree among the tied classes (measured; 40 of the 122 differ)."""
    text = _vote_doc(weights)
    model = loads(text)
    frame = _vote_rows()
    assert compare(model, jpmml_score(text, frame), frame, tol=1e-12) == len(frame)


def test_weighted_majority_vote_refuses_non_positive_weights():
    with pytest.raises(PmmlError, match=r"^<pmml>:\d+: weightedMajorityVote needs positive finite"):
        loads(_vote_doc([1.0, 0.0, 2.0]))
