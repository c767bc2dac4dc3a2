"""Pictures other programs open: names holding control characters, separators, quotes, entity-like
text and markup come out well-formed and shown as written, in SVG (an XML parser, cairosvg), dot
(Graphviz, when installed) and Mermaid (Mermaid's own parser under node, when tests/js is installed:
``npm ci --prefix tests/js``); edge labels are drawn by cairosvg and rsvg; counts print as whole numbers."""

import html
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.picture_text import mermaid_text, visible
from rulekit.pictures import model_mermaid, model_svg
from rulekit.render import model_dot, model_text
from rulekit.rule_pictures import rules_dot, rules_mermaid, rules_svg
from rulekit.rules import text as rtext

NAMES = ["esc\x1bname", "ctl\x01\x7f", "ls\u2028ps\u2029nel\x85", "cr\rlf\ntab\t", 'q"uote `tick` [b]{c}(p)|',
         "#35;hash;semi %%{init: {}}%% style x:#a;", "<br/>&amp; it's", "lone\ud800 bidi\u202e \ufffe"]
CLASSES = ["=c\x1b", 'c"2\u2028', "#quot;`x`"]
JS = Path(__file__).resolve().parents[1] / "js"


@pytest.fixture(scope="module")
def model():
    """A tree over hostile feature names and class labels, fitted with sample weights (fractional
    node counts)."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    M = np.round(rng.normal(size=(300, len(NAMES))), 2)
    k = (M[:, 0] > 0).astype(int) + (M[:, 5] > 0.5).astype(int)
    y = np.array(CLASSES)[k]
    M[:, 7] = M[:, 7] + 3 * k  # every feature gets used somewhere
    # object columns: pandas 3's arrow strings cannot hold the lone surrogate among NAMES
    X = pd.DataFrame(M, columns=pd.Index(NAMES, dtype=object))
    est = DecisionTreeClassifier(max_depth=5, random_state=0)
    est.fit(X, y, sample_weight=rng.uniform(0.5, 1.5, len(y)))
    return rulekit.from_sklearn(est)


def _used_names(model):
    tree = model.trees[0]
    return {model.features[a["feature"]].name for _, a in tree.nodes(data=True) if a["kind"] != "leaf"}


def _svg_texts(svg: str, tags=("text", "title")) -> list[str]:
    root = ET.fromstring(svg)  # expat: a real XML 1.0 parser
    return ["".join(t.itertext()) for t in root.iter() if t.tag.rsplit("}", 1)[-1] in tags]


def _expected(model, draw: str) -> set[str]:
    """What a picture must show: tree pictures print names as they are, rule pictures as rule text
    (quoted when not plain), both through :func:`visible`."""
    if draw == "tree":
        return {visible(n) for n in _used_names(model) | set(CLASSES)}
    return {visible(rtext.label(c)) for c in CLASSES}


def test_visible_leaves_no_character_xml_or_a_line_break_would_take():
    s = visible("".join(map(chr, range(0x10000))))
    assert re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff\u202a-\u202e]", s) is None
    assert visible("a\x1bb") == "a\\u001bb" and visible("naïve ü 列") == "naïve ü 列"


def test_svg_is_well_formed_and_shows_every_name(model):
    assert len(_used_names(model)) >= 5
    for draw, svg in (("tree", model_svg(model)), ("rules", rules_svg(rulekit.to_rules(model)))):
        texts = "\n".join(_svg_texts(svg))
        for shown in _expected(model, draw):
            assert shown in texts, shown


def test_text_tree_sends_no_control_character_to_the_terminal(model):
    text = model_text(model)
    assert re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]", text) is None
    assert visible(NAMES[0]) in text


def test_counts_are_whole_numbers_with_the_exact_value_in_a_tooltip(model):
    svg = model_svg(model)
    counts = [t for t in _svg_texts(svg, ("text",)) if t.startswith("n ")]
    assert counts and all(re.fullmatch(r"n [=≈] \d+", t) for t in counts), counts[:5]
    assert any(re.fullmatch(r"n = \d+\.\d+ \(weighted\)", t) for t in _svg_texts(svg))
    dot = model_dot(model)
    assert re.search(r"\\nn[=≈]\d+\"", dot) and not re.search(r"n[=≈]\d+\.\d", dot)
    assert re.search(r'tooltip="n = \d+\.\d+ \(weighted\)"', dot)


def _render(renderer: str, svg: str, png: Path) -> None:
    if renderer == "cairosvg":
        cairosvg = pytest.importorskip("cairosvg")
        cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(png))
    else:
        if shutil.which("rsvg-convert") is None:
            pytest.skip("rsvg-convert (librsvg2-bin) is not installed")
        subprocess.run(["rsvg-convert", "-o", str(png)], input=svg.encode("utf-8"), check=True, timeout=60)


@pytest.mark.parametrize("renderer", ["cairosvg", "rsvg"])
def test_renderers_draw_every_edge_label(model, tmp_path, renderer):
    """cairosvg ignores paint-order: a white halo stroke once hid every threshold on the edges
    (rsvg drew them); both must show the text."""
    from PIL import Image

    svg = model_svg(model)
    png = tmp_path / "t.png"
    _render(renderer, svg, png)
    img = np.asarray(Image.open(png).convert("L"))
    labels = [t for t in ET.fromstring(svg).iter() if t.tag.endswith("text") and t.get("font-size") == "11"]
    assert len(labels) >= 4
    for t in labels:  # the text colour (#444) must show inside each label's box
        x, y = float(t.get("x")), float(t.get("y"))
        box = img[int(y) - 9:int(y) + 2, int(x) - 12:int(x) + 12]
        assert (box < 110).sum() > 5, (t.text, int(x), int(y))


def test_rules_picture_wraps_long_conditions_instead_of_cutting_them(model):
    rb = rulekit.to_rules(model, simplify=False)
    texts = _svg_texts(rules_svg(rb))
    assert not any(t.endswith("…") for t in texts)
    shown = " ".join(texts)
    longest = max((visible(rtext.condition(r.condition)) for r in rb.rules), key=len)
    assert len(longest) > 150  # long enough to need wrapping
    assert " ".join(longest.split()) in " ".join(shown.split())


def _decode_ours(label: str) -> str:
    return re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), label)


def _mermaid_labels(text: str) -> list[str]:
    """The quoted labels of our Mermaid output (node shapes and edges), still encoded."""
    return re.findall(r'"([^"]*)"', text)


@pytest.mark.parametrize("draw", ["tree", "rules"])
def test_mermaid_labels_hold_only_safe_characters_and_entity_codes(model, draw):
    text = model_mermaid(model) if draw == "tree" else rules_mermaid(rulekit.to_rules(model))
    assert not re.search("[\r\x85\u2028\u2029]", text)
    assert text.count("\n") == len(text.splitlines())  # no line break but the statements'
    meant = []
    for label in _mermaid_labels(text):
        for part in label.split("<br/>"):
            assert re.fullmatch(r"(?:[\w .,\-+*/=!?'@]|#\d+;)*", part), part
            meant.append(_decode_ours(part))
    for shown in _expected(model, draw):
        assert any(shown in m for m in meant), shown
    assert "#quot;" not in "".join(map(mermaid_text, NAMES))  # names that look like entities stay text


def _node_available() -> bool:
    return shutil.which("node") is not None and (JS / "node_modules" / "mermaid").is_dir()


@pytest.mark.skipif(not _node_available(), reason="Mermaid's parser needs node and `npm ci --prefix tests/js`")
def test_mermaid_itself_reads_the_labels_we_meant(model):
    texts = [model_mermaid(model), rules_mermaid(rulekit.to_rules(model))]
    run = subprocess.run(["node", str(JS / "mermaid_labels.mjs")], input=json.dumps(texts),
                         capture_output=True, text=True, timeout=120, check=True)
    for text, result in zip(texts, json.loads(run.stdout)):
        assert result["ok"], result.get("error")
        ours = re.findall(r'^\s*(\w+)[\[({]+"([^"]*)"', text, flags=re.M)
        for node, label in ours:
            got = [html.unescape(p) for p in re.split(r"<br\s*/?>", result["nodes"][node])]
            assert got == [_decode_ours(p) for p in label.split("<br/>")], node
        edges = re.findall(r'^\s*(\w+) -->(?:\|"([^"]*)"\|)? (\w+)$', text, flags=re.M)
        got_edges = {(a, b): html.unescape(t) for a, b, t in result["edges"]}
        assert len(edges) == len(result["edges"])
        for a, label, b in edges:
            assert got_edges[a, b] == _decode_ours(label)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
@pytest.mark.parametrize("draw", ["tree", "rules"])
def test_graphviz_renders_the_dot_as_well_formed_svg_showing_every_name(model, draw):
    src = model_dot(model) if draw == "tree" else rules_dot(rulekit.to_rules(model))
    run = subprocess.run(["dot", "-Tsvg"], input=src.encode("utf-8"), capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr
    shown = "\n".join(_svg_texts(run.stdout.decode("utf-8")))
    for text in _expected(model, draw):
        assert text in shown, text
