"""show --format mermaid|svg: well-formed pictures, hostile names escaped, huge trees cut, no recursion."""

import xml.etree.ElementTree as ET

import pytest

from rulekit.pictures import model_mermaid, model_svg
from tests import zoo
from tests.marks import zoo_cases


@pytest.mark.parametrize("name", zoo_cases(zoo.zoo_names()))
def test_svg_is_well_formed_xml(name):
    model, _ = zoo.get(name)
    root = ET.fromstring(model_svg(model))
    assert root.tag.endswith("svg")
    texts = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    if model.task == "classification" and model.combiner.kind != "sum":
        assert any(str(c) in texts for c in model.classes)


def test_hostile_names_are_escaped():
    model, _ = zoo.get("sklearn_tree_multiclass_hostile")
    svg = model_svg(model)
    ET.fromstring(svg)  # quotes, ampersands and angle brackets must not break the XML
    mer = model_mermaid(model)
    for line in mer.splitlines()[1:]:
        if '["' in line or '{"' in line or '(["' in line:
            inner = line.split('"', 1)[1].rsplit('"', 1)[0]
            assert '"' not in inner


def test_huge_tree_is_cut_not_recursed():
    model = zoo.chain_model(20_000)
    svg = model_svg(model)
    assert "more nodes" in svg and svg.count("<rect") < 1000
    assert "more nodes" in model_mermaid(model)


def test_text_of_a_huge_chain_grows_linearly():
    """Indentation stops at render.MAX_INDENT levels (it once made a 2.4 GB file of a 20,000-deep chain)."""
    from rulekit import render

    text = render.model_text(zoo.chain_model(20_000))
    lines = text.splitlines()
    assert len(lines) > 40_000 and max(map(len, lines)) < 300 and len(text) < 12_000_000
    assert "[depth 19999] " in text and "|   " * (render.MAX_INDENT + 3) not in text


@pytest.mark.parametrize("name", ["sklearn_tree_multiclass_hostile", "handmade_nominal", "handmade_linear"])
def test_rule_base_pictures(name):
    import rulekit
    from rulekit.rule_pictures import rules_dot, rules_mermaid, rules_svg

    model, _ = zoo.get(name)
    rb = rulekit.to_rules(model)
    root = ET.fromstring(rules_svg(rb))
    assert sum(1 for t in root.iter() if t.tag.endswith("text")) >= len(rb.rules)
    mer = rules_mermaid(rb)
    assert mer.startswith("flowchart TD") and mer.count("-->") >= len(rb.rules)
    assert rules_dot(rb).startswith("digraph rules")


@pytest.mark.parametrize("fmt", ["text", "dot", "mermaid", "svg"])
def test_show_rules_file(tmp_path, fmt, capsys):
    import rulekit
    from rulekit.cli import main

    model, _ = zoo.get("sklearn_tree_binary")
    path = tmp_path / "m.rules"
    path.write_text(rulekit.dsl.dumps(rulekit.to_rules(model)), encoding="utf-8")
    with pytest.raises(SystemExit) as ex:
        main(["show", str(path), "--format", fmt])
    assert ex.value.code == 0
    assert capsys.readouterr().out.strip()
