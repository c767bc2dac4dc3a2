"""Pictures of a model people would rather look at than read: Mermaid text and standalone SVG.

Class colours are fixed per class index; a leaf's fill is its majority class, paler when impure.
Thresholds are shown at readable precision (6 significant digits), sample counts as whole numbers
(a weighted count is rounded, ``n ≈ 3``, its exact value in the node's tooltip); no Graphviz is
needed. The SVG uses only features every common renderer draws (no ``paint-order``: cairosvg
ignored it and painted the white halo over the edge labels); names are escaped by
:mod:`rulekit.picture_text`.
"""

from __future__ import annotations

from rulekit.ir.model import Model
from rulekit.layout import layout
from rulekit.picture_text import mermaid_text, visible, xml_text
from rulekit.render import branch_labels, branch_tests, count_text, readable

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac"]


def mix_colours(hex_colour: str, strength: float) -> str:
    """``hex_colour`` blended with white: strength 1 = full colour, 0 = white."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    s = max(0.15, min(1.0, strength))
    return "#%02x%02x%02x" % tuple(round(255 - (255 - c) * s) for c in (r, g, b))


def _leaf_lines(model: Model, a: dict) -> tuple[list[str], str]:
    value = a["value"]
    n = a.get("n_samples")
    tail = [count_text(n)] if n is not None else []
    if model.task == "regression" or model.combiner.kind == "sum":
        return [f"value = {readable(value[0])}"] + tail, "#dddddd"
    k = max(range(len(value)), key=lambda i: (value[i], -i))
    total = sum(value) or 1.0
    purity = value[k] / total
    k_min = 1.0 / len(value)
    strength = (purity - k_min) / (1 - k_min) if len(value) > 1 else 1.0
    dist = " / ".join(f"{v:.3g}" for v in value)
    return [str(model.classes[k]), f"[{dist}]"] + tail, mix_colours(PALETTE[k % len(PALETTE)], strength)


def _split_lines(model: Model, a: dict) -> list[str]:
    if a["kind"] == "linear":
        head = "linear split"
    else:
        head = model.features[a["feature"]].name  # the edges carry the tests
    n = a.get("n_samples")
    return [head] + ([count_text(n)] if n is not None else [])


def _tooltip(a: dict) -> str:
    """The exact sample count of a node whose count is weighted (shown rounded)."""
    n = a.get("n_samples")
    return f"n = {n!r} (weighted)" if n is not None and not float(n).is_integer() else ""


def tree_svg(model: Model, index: int = 0, *, max_nodes: int = 400) -> str:
    tree = model.trees[index]
    placed = layout(tree, max_nodes=max_nodes)
    boxes = {}
    for node, p in placed.items():
        a = tree.nodes[node]
        if p.hidden:
            lines, fill = [f"… {p.hidden} more nodes"], "#f4f4f4"
        elif a["kind"] == "leaf":
            lines, fill = _leaf_lines(model, a)
        else:
            lines, fill = _split_lines(model, a), "#ffffff"
        boxes[node] = ([visible(s) for s in lines], fill)  # widths count the escapes
    char_w, line_h, pad = 7.2, 16, 8
    slot_w = max(max(len(s) for s in ls) * char_w + 2 * pad for ls, _ in boxes.values()) + 24
    level_h = 110
    width = (max(p.x for p in placed.values()) + 1) * slot_w
    height = (max(p.depth for p in placed.values()) + 1) * level_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" '
           f'font-size="12">', '<rect width="100%" height="100%" fill="white"/>']

    def centre(node):
        p = placed[node]
        return (p.x + 0.5) * slot_w, p.depth * level_h + 20

    for node, p in placed.items():
        if not p.children:
            continue
        x1, y1 = centre(node)
        y1 += line_h * len(boxes[node][0]) + pad
        for child, text in zip(p.children, map(visible, branch_tests(model, tree, node))):
            x2, y2 = centre(child)
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#888"/>')
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            lw = len(text) * 6.2 + 6  # a white plate under the label keeps it readable over the line
            out.append(f'<rect x="{mx - lw / 2:.1f}" y="{my - 10:.1f}" width="{lw:.1f}" height="14" '
                       f'fill="white" fill-opacity="0.85"/>')
            out.append(f'<text x="{mx:.1f}" y="{my:.1f}" text-anchor="middle" fill="#444" '
                       f'font-size="11">{xml_text(text)}</text>')
    for node, (lines, fill) in boxes.items():
        cx, top = centre(node)
        w = max(len(s) for s in lines) * char_w + 2 * pad
        h = line_h * len(lines) + pad
        tip = "" if placed[node].hidden else _tooltip(tree.nodes[node])
        out.append(f"<g><title>{xml_text(tip)}</title>" if tip else "<g>")
        out.append(f'<rect x="{cx - w / 2:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" '
                   f'fill="{fill}" stroke="#555"/>')
        for i, s in enumerate(lines):
            weight = ' font-weight="bold"' if i == 0 else ""
            out.append(f'<text x="{cx:.1f}" y="{top + pad / 2 + line_h * (i + 0.8):.1f}" '
                       f'text-anchor="middle"{weight}>{xml_text(s)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def model_svg(model: Model, *, max_trees: int = 3) -> str:
    if len(model.trees) == 1:
        return tree_svg(model, 0)
    # an ensemble: the first trees stacked, each its own <svg> inside one document
    parts = [tree_svg(model, i) for i in range(min(max_trees, len(model.trees)))]
    heights, widths, inner = [], [], []
    for svg in parts:
        head = svg.split(">", 1)[0]
        widths.append(float(head.split('width="')[1].split('"')[0]))
        heights.append(float(head.split('height="')[1].split('"')[0]))
        inner.append(svg)
    y, body = 30.0, []
    for svg, h in zip(inner, heights):
        body.append(svg.replace("<svg ", f'<svg y="{y:.0f}" ', 1))
        y += h + 30
    note = (f"first {len(parts)} of {len(model.trees)} trees ({model.combiner.kind})")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{max(widths):.0f}" height="{y:.0f}" '
            f'font-family="Helvetica, Arial, sans-serif"><text x="10" y="20" font-size="14">'
            f'{xml_text(note)}</text>\n' + "\n".join(body) + "</svg>\n")


def model_mermaid(model: Model, index: int = 0, *, max_nodes: int = 400) -> str:
    tree = model.trees[index]
    placed = layout(tree, max_nodes=max_nodes)
    out = ["flowchart TD"]
    for node, p in placed.items():
        a = tree.nodes[node]
        if p.hidden:
            out.append(f'  n{node}["{mermaid_text(f"… {p.hidden} more nodes")}"]')
        elif a["kind"] == "leaf":
            lines, fill = _leaf_lines(model, a)
            out.append(f'  n{node}(["{"<br/>".join(map(mermaid_text, lines))}"])')
            out.append(f"  style n{node} fill:{fill}")
        else:
            out.append(f'  n{node}{{"{"<br/>".join(map(mermaid_text, _split_lines(model, a)))}"}}')
    for node, p in placed.items():
        if p.children:
            for child, label in zip(p.children, branch_labels(model, tree, node)):
                out.append(f'  n{node} -->|"{mermaid_text(label)}"| n{child}')
    return "\n".join(out) + "\n"
