"""PMML ``SimpleSetPredicate`` refusals (``pmml_tree.set_predicate``, shared by the tree and the rule
set readers): a set test on a continuous field, a ``booleanOperator`` other than isIn/isNotIn (or
none), and no ``<Array>`` are each refused with the file and the line of the predicate, in a
TreeModel and in a RuleSetModel alike; a well-formed set test next to them is read."""

from __future__ import annotations

import pytest

from rulekit.importers.pmml import load_file
from rulekit.importers.pmml_xml import PmmlError

HEAD = '<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4">\n<Header/>\n'
DD = ('<DataDictionary><DataField name="x" optype="continuous" dataType="double"/>'
      '<DataField name="c" optype="categorical" dataType="string"><Value value="red"/>'
      '<Value value="green"/></DataField>'
      '<DataField name="y" optype="categorical" dataType="string"><Value value="no"/>'
      '<Value value="yes"/></DataField></DataDictionary>\n')
MS = ('<MiningSchema><MiningField name="y" usageType="target"/><MiningField name="x"/>'
      '<MiningField name="c"/></MiningSchema>\n')
LINE = 7  # the line the set predicate is on in both documents below


def tree_doc(pred: str) -> str:
    return (HEAD + DD + '<TreeModel functionName="classification">\n' + MS + '<Node score="no"><True/>\n'
            + f'<Node score="yes">{pred}</Node>\n<Node score="no"><True/></Node></Node></TreeModel></PMML>\n')


def rules_doc(pred: str) -> str:
    return (HEAD + DD + '<RuleSetModel functionName="classification">\n' + MS
            + '<RuleSet defaultScore="no"><RuleSelectionMethod criterion="firstHit"/>\n'
            + f'<SimpleRule score="yes">{pred}</SimpleRule>\n</RuleSet></RuleSetModel></PMML>\n')


def set_pred(field: str = "c", op: str | None = "isIn", array: bool = True) -> str:
    attr = f' booleanOperator="{op}"' if op is not None else ""
    arr = '<Array n="1" type="string">red</Array>' if array else ""
    return f'<SimpleSetPredicate field="{field}"{attr}>{arr}</SimpleSetPredicate>'


DOCS = {"tree": tree_doc, "rules": rules_doc}
REFUSALS = [
    (set_pred(field="x"), "SimpleSetPredicate on a continuous field is not supported"),
    (set_pred(op="isEqual"), "SimpleSetPredicate booleanOperator='isEqual'"),
    (set_pred(op="in"), "SimpleSetPredicate booleanOperator='in'"),
    (set_pred(op=None), "<SimpleSetPredicate> needs the attribute booleanOperator"),
    (set_pred(array=False), "SimpleSetPredicate needs an <Array>"),
]


@pytest.mark.parametrize("kind", sorted(DOCS))
@pytest.mark.parametrize(("pred", "message"), REFUSALS, ids=["continuous", "isEqual", "in", "no-op", "no-array"])
def test_set_predicate_refusals_name_the_file_and_line(tmp_path, kind, pred, message):
    path = tmp_path / f"{kind}.pmml"
    text = DOCS[kind](pred)
    assert "<SimpleSetPredicate" in text.splitlines()[LINE - 1]
    path.write_text(text)
    with pytest.raises(PmmlError) as err:
        load_file(path)
    assert str(err.value) == f"{path}:{LINE}: {message}"


@pytest.mark.parametrize("kind", sorted(DOCS))
@pytest.mark.parametrize("op", ["isIn", "isNotIn"])
def test_a_well_formed_set_predicate_is_read(tmp_path, kind, op):
    path = tmp_path / f"{kind}.pmml"
    path.write_text(DOCS[kind](set_pred(op=op)))
    assert load_file(path) is not None
