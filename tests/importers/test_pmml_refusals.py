"""PMML import without a JVM: hostile XML (XXE, billion laughs) refused, what rulekit cannot express
refused with FILE:LINE, hand-written documents read with PMML's exact semantics (missing-value and
no-true-child strategies, compound predicates, float fields, categorical sets, RuleSets), and the CLI
(format sniffed from the bytes, exit 2 with one line)."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from lxml import etree

import rulekit
from rulekit import exporters
from rulekit.cli import main
from rulekit.errors import RulekitError
from rulekit.importers import pmml_tree
from rulekit.importers.pmml import load_file, loads
from rulekit.importers.pmml_fields import parse_float32
from rulekit.importers.pmml_xml import PmmlError
from tests import zoo
from tests.importers.test_pmml_fields import DOC as MAP_DOC
from tests.importers.test_pmml_fields import SCALE, TREE
from tests.importers.test_pmml_rules import Doc, _vote_doc

HEAD = '<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4"><Header/>'
DD = ('<DataDictionary><DataField name="x" optype="continuous" dataType="double"/>'
      '<DataField name="c" optype="categorical" dataType="string"><Value value="red"/>'
      '<Value value="green"/><Value value="blue blue"/></DataField>'
      '<DataField name="y" optype="categorical" dataType="string"><Value value="no"/>'
      '<Value value="yes"/></DataField></DataDictionary>')
MS = ('<MiningSchema><MiningField name="y" usageType="target"/><MiningField name="x"/>'
      '<MiningField name="c"/></MiningSchema>')


def tree(body: str, attrs: str = "") -> str:
    return (HEAD + DD + f'<TreeModel functionName="classification" {attrs}>' + MS
            + f'<Node score="no"><True/>{body}</Node></TreeModel></PMML>')


def rows(*pairs):

    return pd.DataFrame({"x": [float(x) for x, _ in pairs], "c": pd.Series([c for _, c in pairs], dtype=object)})


NAN = math.nan
RED, GREEN, BLUE = "red", "green", "blue blue"


def test_xxe_entity_is_not_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    path = tmp_path / "xxe.pmml"
    path.write_text(f'<?xml version="1.0"?><!DOCTYPE PMML [<!ENTITY s SYSTEM "file://{secret}">]>'
                    + tree('<Node score="yes"><SimplePredicate field="x" operator="lessOrEqual" '
                           'value="1"/></Node>').replace('<Header/>', '<Header description="&s;"/>'))
    with pytest.raises(PmmlError) as err:
        load_file(path)
    assert "TOPSECRET" not in str(err.value) and ("DOCTYPE" in str(err.value) or "entity" in str(err.value))
    assert str(err.value).startswith(f"{path}:1:")


def test_billion_laughs_is_refused_quickly(tmp_path):
    ents = '<!ENTITY a0 "lol">' + "".join(f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10))
    path = tmp_path / "lol.pmml"
    path.write_text(f'<?xml version="1.0"?><!DOCTYPE PMML [{ents}]>'
                    + tree("").replace("<Header/>", '<Header description="&a9;"/>'))
    with pytest.raises(PmmlError, match="DOCTYPE|entit|not well-formed"):
        load_file(path)


def test_not_xml_and_not_pmml_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.pmml"
    bad.write_text("<PMML><Header></PMML>")
    with pytest.raises(PmmlError, match=r"bad\.pmml:1:\d+: not well-formed XML"):
        load_file(bad)
    other = tmp_path / "other.xml"
    other.write_text("<html/>")
    with pytest.raises(PmmlError, match="not <PMML>"):
        load_file(other)
    with pytest.raises(PmmlError, match="holds no model"):
        loads(HEAD + DD + "</PMML>")


def test_missing_strategies_route_exactly():
    body = ('<Node score="yes"><SimplePredicate field="x" operator="lessOrEqual" value="1.5"/></Node>'
            '<Node score="no" id="2"><SimplePredicate field="x" operator="greaterThan" value="1.5"/></Node>')
    # none: UNKNOWN is FALSE, no true child -> the node's own score (returnLastPrediction)
    m = loads(tree(body, 'missingValueStrategy="none" noTrueChildStrategy="returnLastPrediction"')
              .replace('<Node score="no"><True/>', '<Node score="yes"><True/>'))
    assert list(m.predict(rows((1.5, RED), (np.nextafter(1.5, 2), RED), (NAN, RED)))) == ["yes", "no", "yes"]
    # none with a true child left: UNKNOWN moves on to it (not the node's own score)
    m = loads(tree('<Node score="no"><SimplePredicate field="x" operator="lessOrEqual" value="1.5"/></Node>'
                   '<Node score="yes"><True/></Node>', 'noTrueChildStrategy="returnLastPrediction"'))
    assert list(m.predict(rows((1.0, RED), (2.0, RED), (NAN, RED)))) == ["no", "yes", "yes"]
    # defaultChild: a missing x enters the default child
    m = loads(tree(body, 'missingValueStrategy="defaultChild"').replace('<Node score="no"><True/>',
                                                                        '<Node score="no" defaultChild="2"><True/>'))
    assert list(m.predict(rows((1.0, RED), (NAN, RED)))) == ["yes", "no"]
    # lastPrediction: the score of the node where the value was missing
    m = loads(tree(body, 'missingValueStrategy="lastPrediction"').replace('<Node score="no"><True/>',
                                                                          '<Node score="yes"><True/>'))
    assert list(m.predict(rows((2.0, RED), (NAN, RED)))) == ["no", "yes"]


def test_what_rulekit_cannot_express_is_refused_naming_the_element():
    body = '<Node score="yes"><SimplePredicate field="x" operator="lessOrEqual" value="1"/></Node>'
    with pytest.raises(PmmlError, match=r"<pmml>:1: .*noTrueChildStrategy='returnNullPrediction'"):
        loads(tree(body))
    text = tree(body + '<Node score="no"><True/></Node>', 'missingValueStrategy="weightedConfidence"')
    with pytest.raises(PmmlError, match="weightedConfidence"):
        loads(text)
    multiline = tree(body + '<Node score="no"><True/></Node>', 'missingValueStrategy="nullPrediction"').replace(
        "<TreeModel", "\n\n<TreeModel")
    with pytest.raises(PmmlError, match=r"<pmml>:3: missingValueStrategy='nullPrediction'"):
        loads(multiline)
    m = loads(multiline, assume_complete=True)
    assert m.source["assume_complete"] is True
    with pytest.raises(PmmlError, match="<Apply function='log'>: rulekit folds Apply"):
        loads(tree(body + '<Node score="no"><True/></Node>').replace(
            "<MiningSchema>", '<LocalTransformations><DerivedField name="z" optype="continuous" '
            'dataType="double"><Apply function="log"><FieldRef field="x"/><Constant>1</Constant></Apply>'
            '</DerivedField></LocalTransformations><MiningSchema>', 1).replace(MS, MS, 1))
    with pytest.raises(PmmlError, match="<pmml>:1: a <Value> of 'y' is not of dataType 'integer'"):
        loads(tree(body + '<Node score="no"><True/></Node>').replace(
            'name="y" optype="categorical" dataType="string"', 'name="y" optype="categorical" dataType="integer"'))
    with pytest.raises(PmmlError, match="<Value> needs the attribute value"):
        loads(tree(body + '<Node score="no"><True/></Node>').replace('<Value value="green"/>', '<Value/>'))
    with pytest.raises(PmmlError, match=r"<pmml>:1: Targets on a classification model"):
        loads(tree(body + '<Node score="no"><True/></Node>').replace(
            MS, MS + '<Targets><Target field="y" rescaleConstant="1"/></Targets>'))
    with pytest.raises(PmmlError, match="xor"):
        loads(tree('<Node score="yes"><CompoundPredicate booleanOperator="xor">'
                   '<SimplePredicate field="x" operator="isMissing"/><True/></CompoundPredicate></Node>'
                   '<Node score="no"><True/></Node>'))


def test_float_fields_compare_in_float32_at_the_threshold():
    text = tree('<Node score="yes"><SimplePredicate field="x" operator="lessOrEqual" value="0.1"/></Node>'
                '<Node score="no"><True/></Node>').replace(
        'name="x" optype="continuous" dataType="double"', 'name="x" optype="continuous" dataType="float"')
    m = loads(text)
    f = float(np.float32(0.1))
    up = float(np.nextafter(np.float32(0.1), np.float32(1)))
    xs = [f, np.nextafter(f, 1), (f + up) / 2, np.nextafter((f + up) / 2, 1), up]
    want = ["yes" if np.float32(x) <= np.float32(0.1) else "no" for x in xs]
    assert list(m.predict(rows(*[(x, RED) for x in xs]))) == want
    assert want.count("yes") == 3 - (float(np.float32((f + up) / 2)) == up)


def test_float32_literals_round_once_from_the_decimal():
    # halfway between two float32 values only after rounding to double first
    assert parse_float32("0.1") == float(np.float32(0.1))
    text = "1.00000005960464477539062500000000001"  # just above the midpoint of 1 and 1+2^-23
    assert parse_float32(text) == float(np.nextafter(np.float32(1), np.float32(2)))


def test_categorical_sets_compound_and_replacement():
    body = ('<Node score="yes"><CompoundPredicate booleanOperator="and">'
            '<SimpleSetPredicate field="c" booleanOperator="isIn"><Array type="string" n="2">red '
            '"blue blue"</Array></SimpleSetPredicate>'
            '<SimplePredicate field="x" operator="greaterOrEqual" value="0"/></CompoundPredicate></Node>'
            '<Node score="no"><True/></Node>')
    m = loads(tree(body))
    got = m.predict(rows((0.0, RED), (-1.0, RED), (5.0, GREEN), (5.0, BLUE), (NAN, RED), (1.0, None)))
    assert list(got) == ["yes", "no", "no", "yes", "no", "no"]
    # surrogate: the second test decides when x is missing
    body2 = ('<Node score="yes"><CompoundPredicate booleanOperator="surrogate">'
             '<SimplePredicate field="x" operator="lessThan" value="0"/>'
             '<SimplePredicate field="c" operator="equal" value="green"/></CompoundPredicate></Node>'
             '<Node score="no"><True/></Node>')
    m = loads(tree(body2))
    assert list(m.predict(rows((-1.0, RED), (1.0, GREEN), (NAN, GREEN), (NAN, RED)))) == ["yes", "no", "yes", "no"]
    # missingValueReplacement: a missing x is scored as 5
    m = loads(tree(body).replace('<MiningField name="x"/>', '<MiningField name="x" missingValueReplacement="5"/>'))
    assert list(m.predict(rows((NAN, RED), (NAN, GREEN)))) == ["yes", "no"]


def test_ruleset_first_hit_and_weighted_max():
    rules = ('<SimpleRule score="yes" weight="1"><SimplePredicate field="x" operator="lessThan" value="0"/>'
             '<ScoreDistribution value="no" recordCount="1"/><ScoreDistribution value="yes" recordCount="3"/>'
             '</SimpleRule><SimpleRule score="no" weight="5"><SimplePredicate field="c" operator="equal" '
             'value="red"/></SimpleRule>')
    doc = (HEAD + DD + '<RuleSetModel functionName="classification">' + MS
           + '<RuleSet defaultScore="no"><RuleSelectionMethod criterion="{c}"/>' + rules
           + '</RuleSet></RuleSetModel></PMML>')
    first = loads(doc.format(c="firstHit"))
    X = rows((-1.0, RED), (-1.0, GREEN), (1.0, GREEN), (NAN, GREEN))
    assert list(first.predict(X)) == ["yes", "yes", "no", "no"]
    np.testing.assert_array_equal(first.predict_proba(X)[0], [0.25, 0.75])
    heavy = loads(doc.format(c="weightedMax"))
    assert list(heavy.predict(X)) == ["no", "yes", "no", "no"]
    vote = loads(doc.format(c="weightedSum"))  # yes 1 against no 5 where both fire
    assert vote.semantics == "vote" and list(vote.predict(X)) == ["no", "yes", "no", "no"]
    with pytest.raises(PmmlError, match=r"<pmml>:1: weight='0': rulekit's vote"):
        loads(doc.format(c="weightedSum").replace('weight="5"', 'weight="0"'))


def test_cli_sniffs_pmml_and_refuses_with_one_line(tmp_path, capsys):

    good = tmp_path / "m.xml"
    good.write_text(tree('<Node score="yes"><SimplePredicate field="x" operator="lessOrEqual" value="1"/>'
                         '</Node><Node score="no"><True/></Node>'))
    out = tmp_path / "m.json"

    def run(args):
        try:
            return main(args)
        except SystemExit as err:
            return err.code

    assert run(["import", str(good), "-o", str(out), "-q"]) in (0, None)
    assert out.exists()
    bad = tmp_path / "bad.pmml"
    bad.write_text(tree('<Node score="yes"><SimplePredicate field="x" operator="lessOrEqual" value="1"/></Node>'))
    capsys.readouterr()
    assert run(["import", str(bad), "-o", str(tmp_path / "z.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and f"{bad}:1:" in err, err
    assert not (tmp_path / "z.json").exists()


@pytest.mark.parametrize("seed", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_mutated_documents_give_a_rulekit_error_or_a_model(seed):
    """Random mutations (attributes blanked/garbled/removed, elements dropped/duplicated) of
    rulekit's own PMML: every one is read or refused with a RulekitError, never another exception."""



    rng = random.Random(seed)
    bases = [exporters.get("pmml")(zoo.get(n)[0]) for n in ("sklearn_tree_binary", "handmade_nominal")]
    bases.append(HEAD + DD + '<RuleSetModel functionName="classification">' + MS
                 + '<RuleSet defaultScore="no"><RuleSelectionMethod criterion="firstHit"/><SimpleRule '
                 'score="yes"><SimplePredicate field="x" operator="lessThan" value="0"/></SimpleRule>'
                 '<SimpleRule score="no"><SimplePredicate field="c" operator="equal" value="red"/>'
                 '</SimpleRule></RuleSet></RuleSetModel></PMML>')
    # rule sets read as rule bases (xor, surrogate, CompoundRules), weighted votes, MapValues, Apply
    bases += [Doc(3, c, 8).text for c in ("firstHit", "weightedMax", "weightedSum")] + [_vote_doc([1.0, 2.0, 0.5])]
    bases += [MAP_DOC.format(attrs=' mapMissingTo="0"', odd="<row><in>odd</in><out>7</out></row>"),
              TREE.format(dtype="double", expr=SCALE, op="equal", rep=' missingValueReplacement="4"')]
    for _ in range(60 if seed == 2 else 400):
        root = etree.fromstring(rng.choice(bases).encode("utf-8"))
        els = list(root.iter())
        for _ in range(rng.randint(1, 3)):
            el = rng.choice(els)
            r = rng.random()
            if r < 0.3 and el.attrib:
                el.set(rng.choice(list(el.attrib)), rng.choice(["", "abc", "-1", "1e400", "NaN", "0", "isIn"]))
            elif r < 0.5 and el.getparent() is not None:
                el.getparent().remove(el)
            elif r < 0.7 and el.attrib:
                del el.attrib[rng.choice(list(el.attrib))]
            elif el.getparent() is not None:
                el.getparent().append(etree.fromstring(etree.tostring(el)))
        try:
            loads(etree.tostring(root))
        except RulekitError:
            pass


def test_a_tree_that_grows_past_the_node_limit_is_refused_with_its_line(monkeypatch):
    """A child behind an ``or`` is reached on two paths and copied on each: 12 nested ``or`` nodes
    make ~2**12 copies of the innermost leaf."""
    body = '<Node score="yes"><True/></Node>'
    for i in range(12):
        body = (f'<Node score="no"><CompoundPredicate booleanOperator="or"><SimplePredicate field="x" '
                f'operator="lessThan" value="{i}"/><SimplePredicate field="c" operator="equal" value="red"/>'
                f'</CompoundPredicate>{body}</Node>')
    text = tree(body, 'noTrueChildStrategy="returnLastPrediction"')
    assert loads(text).trees[0].number_of_nodes() > 2_000
    monkeypatch.setattr(pmml_tree, "MAX_NODES", 2_000)
    with pytest.raises(PmmlError, match=r"<pmml>:1: this model grows past 2000 rulekit nodes"):
        loads(text)


@pytest.mark.parametrize("command", ["import", "export"])
def test_without_lxml_the_cli_says_which_extra_to_install(tmp_path, command):
    """lxml blocked in a fresh interpreter: one line naming the pmml extra, exit 2, no traceback."""

    model, _ = zoo.get("sklearn_tree_binary")
    src = tmp_path / "m.json"
    model.save(src)
    doc = tmp_path / "m.pmml"
    doc.write_text(tree('<Node score="no"><True/></Node>'))
    args = (["import", str(doc), "--format", "pmml", "-o", str(tmp_path / "z.json")] if command == "import"
            else ["export", str(src), "--to", "pmml", "-o", str(tmp_path / "z.pmml")])
    code = ("import sys; sys.modules['lxml'] = None; sys.modules['lxml.etree'] = None\n"
            "from rulekit.cli import main\nsys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "rulekit[pmml]" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_assume_complete_reads_null_prediction_trees(tmp_path, capsys):
    """sklearn2pmml writes missingValueStrategy="nullPrediction" on every scikit-learn tree: the
    plain import refuses it (naming the flag), `--assume-complete` reads it and records that."""
    body = ('<Node score="yes"><SimplePredicate field="x" operator="lessOrEqual" value="1"/></Node>'
            '<Node score="no"><True/></Node>')
    src = tmp_path / "null.pmml"
    src.write_text(tree(body, 'missingValueStrategy="nullPrediction"'))
    out = tmp_path / "m.json"

    def run(args):
        try:
            return main(args)
        except SystemExit as err:
            return err.code

    capsys.readouterr()
    assert run(["import", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--assume-complete" in err and not out.exists()
    assert run(["import", str(src), "-o", str(out), "--assume-complete", "-q"]) in (0, None)
    model = rulekit.load(out)
    assert model.source["assume_complete"] is True
    got = model.predict(rows((1.0, RED), (np.nextafter(1.0, 2.0), RED), (-5.0, GREEN)))
    assert [str(v) for v in got] == ["yes", "no", "yes"]
    # the flag belongs to PMML: another format refuses it in one line
    lgb = tmp_path / "model.txt"
    lgb.write_text("tree\nversion=v4\n")
    assert run(["import", str(lgb), "-o", str(tmp_path / "o.json"), "--assume-complete"]) == 2
    assert "--assume-complete applies to PMML files" in capsys.readouterr().err
