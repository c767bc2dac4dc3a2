"""Pictures of a rule base: an SVG card per rule, and the decision list as Mermaid or Graphviz dot.

Each rule shows its condition (short text from :mod:`rulekit.rules.text`), its conclusion in its
class colour (the same palette as tree pictures), and, when the rule carries statistics, a bar for
its coverage and its confidence. Long conditions wrap onto more lines (nothing is cut off), and each
rule's card has its full text as a tooltip. Names are escaped by :mod:`rulekit.picture_text`.
"""

from __future__ import annotations

import textwrap

from rulekit.picture_text import dot_string, mermaid_text, visible, xml_text
from rulekit.pictures import PALETTE, mix_colours
from rulekit.render import count_text
from rulekit.rules import text as rtext
from rulekit.rules.base import Conclusion, RuleBase
from rulekit.rules.outcomes import outcomes

MAX_RULES = 500
START = "start points, added on every row"


def _colour(rb: RuleBase, c: Conclusion | None) -> str:
    if c is None or rb.task != "classification" or c.label is None:
        return "#dddddd"
    try:
        k = list(rb.classes or ()).index(c.label)
    except ValueError:
        return "#dddddd"
    return PALETTE[k % len(PALETTE)]


def _weighted(rb: RuleBase, i: int) -> str:
    """Rule ``i``'s conclusion, with what it adds where the rules add up: a vote's weight; a weighted
    sum's points per class, signed (``yes +8.754``, ``yes -2``; a split weight ``low +8.235 high
    +0.4887``), read from :func:`outcomes` as the engine and ``predict --explain`` read them. A
    scorecard drawn without them read as a decision list in which 'City Name = Zürich' alone made
    'yes' (audit 3); a negative weight was drawn ``yes +-2`` (review)."""
    r = rb.rules[i]
    c = r.conclusion
    if rb.semantics == "weighted-sum" and rb.task == "classification" and (
            c.label is not None or c.distribution is not None):
        oc = outcomes(rb)
        adds = [(k, float(oc.weight[i] * p)) for k, p in zip(oc.classes, oc.vec[i])]
        parts = sorted([kv for kv in adds if kv[1]], key=lambda kv: -kv[1])
        if not parts:  # weight 0: the rule adds nothing
            return f"{c.label if c.label is not None else oc.classes[int(oc.cls[i])]} +0"
        return " ".join(f"{k} {a:+.4g}" for k, a in parts)
    text = rtext.conclusion(c)
    if rb.semantics == "vote" and r.weight is not None:
        text += f" (weight {r.weight:.4g})"
    return text


def _start(rb: RuleBase) -> str:
    """A weighted sum's default: the points each class starts from, as the engine adds them (a
    default ``no`` without points per class starts 'no' at 1, which ``predict --explain`` shows as
    'start 1'; it was drawn as just ``no``)."""
    d = rb.default
    if rb.task != "classification" or (d.distribution is None and d.label is None):
        return rtext.conclusion(d)
    oc = outcomes(rb)
    shown = [(k, p) for k, p in zip(oc.classes, oc.vec[len(rb.rules)]) if p or d.distribution is not None]
    return " ".join(f"{k} {p:.4g}" for k, p in shown)


def _rows(rb: RuleBase):
    rules = list(rb.rules[:MAX_RULES])
    for i, r in enumerate(rules):
        yield (r.id or f"#{i + 1}", rtext.condition(r.condition), _weighted(rb, i),
               _colour(rb, r.conclusion), r.stats)
    if len(rb.rules) > MAX_RULES:
        yield ("…", f"{len(rb.rules) - MAX_RULES} more rules", "", "#f4f4f4", {})
    if rb.default is not None:
        # a weighted sum starts from the default's points on every row; only the others fall back on it
        if rb.semantics == "weighted-sum":
            yield ("default", START, _start(rb), _colour(rb, rb.default), {})
        else:
            yield ("default", "otherwise", rtext.conclusion(rb.default), _colour(rb, rb.default), {})


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces (long words split)."""
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def rules_svg(rb: RuleBase) -> str:
    rows = [(visible(rid), visible(cond), visible(concl), colour, stats)
            for rid, cond, concl, colour, stats in _rows(rb)]
    char_w, line_h, pad = 7.0, 16, 10
    id_w = max(len(r[0]) for r in rows) * char_w + 2 * pad
    cond_w = min(900.0, max(len(r[1]) for r in rows) * char_w + 2 * pad)
    per_line = max(8, int((cond_w - 2 * pad) / char_w))
    concl_w = max(len(r[2]) for r in rows) * char_w + 2 * pad + 20
    bar_w = 160
    width = id_w + cond_w + concl_w + bar_w + 4 * pad
    wrapped = [_wrap(r[1], per_line) for r in rows]
    heights = [max(44, 26 + line_h * (len(lines) - 1) + 18) for lines in wrapped]
    height = 44 + sum(heights) + pad
    n_max = max([r[4].get("n", 0) for r in rows] + [1])
    head = (f"{rb.name}: {len(rb.rules)} {'rule' if len(rb.rules) == 1 else 'rules'}, {rb.semantics}"
            + (f", target {rb.target}" if rb.target else ""))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{pad}" y="26" font-size="14" font-weight="bold">{xml_text(head)}</text>']
    y = 44
    for i, ((rid, cond, concl, colour, stats), lines, row_h) in enumerate(zip(rows, wrapped, heights)):
        out.append(f"<g><title>{xml_text(rid)}: {xml_text(cond)} \u2192 {xml_text(concl)}</title>")
        if i % 2 == 0:
            out.append(f'<rect x="0" y="{y}" width="{width:.0f}" height="{row_h}" fill="#f7f7f7"/>')
        out.append(f'<text x="{pad}" y="{y + 26}" font-weight="bold">{xml_text(rid)}</text>')
        for k, line in enumerate(lines):  # the whole condition, wrapped: nothing is cut off
            out.append(f'<text x="{id_w + pad}" y="{y + 26 + line_h * k}">{xml_text(line)}</text>')
        x = id_w + cond_w + 2 * pad
        out.append(f'<rect x="{x}" y="{y + 12}" width="14" height="18" rx="3" fill="{colour}"/>')
        out.append(f'<text x="{x + 20}" y="{y + 26}">{xml_text(concl)}</text>')
        if stats.get("n"):
            bx = x + concl_w
            frac = stats["n"] / n_max
            conf = stats.get("confidence")
            out.append(f'<rect x="{bx}" y="{y + 10}" width="{bar_w}" height="10" fill="#eee"/>')
            out.append(f'<rect x="{bx}" y="{y + 10}" width="{bar_w * frac:.1f}" height="10" '
                       f'fill="{mix_colours(colour, 0.8)}"/>')
            label = count_text(stats["n"]).replace(" ", "") + (f", conf {conf:.3f}" if conf is not None else "")
            out.append(f'<text x="{bx}" y="{y + 34}" font-size="10" fill="#555">{xml_text(label)}</text>')
        out.append("</g>")
        y += row_h
    out.append("</svg>")
    return "\n".join(out) + "\n"


def rules_mermaid(rb: RuleBase) -> str:
    """First-hit: the decision list as a chain of questions; vote/sum: every rule feeds the outcome."""
    rows = list(_rows(rb))
    out = ["flowchart TD"]
    ordered = rb.semantics == "first-hit" and rb.combiner is None
    for i, (rid, cond, concl, colour, _) in enumerate(rows):
        out.append(f'  q{i}{{"{mermaid_text(rid + ": " + cond)}"}}')
        out.append(f'  c{i}(["{mermaid_text(concl)}"])')
        out.append(f"  style c{i} fill:{mix_colours(colour, 0.7)}")
        out.append(f'  q{i} -->|"yes"| c{i}' if cond not in ("otherwise", START) else f"  q{i} --> c{i}")  # no |""|:
        # Mermaid's grammar rejects an empty edge label
        if ordered and i + 1 < len(rows):
            out.append(f'  q{i} -->|"no"| q{i + 1}')
    return "\n".join(out) + "\n"


def rules_dot(rb: RuleBase) -> str:
    rows = list(_rows(rb))
    out = ["digraph rules {", '  node [fontname="Helvetica", shape=box, style=rounded];', "  rankdir=TB;"]
    ordered = rb.semantics == "first-hit" and rb.combiner is None
    for i, (rid, cond, concl, colour, _) in enumerate(rows):
        out.append(f"  q{i} [label={dot_string(rid + ': ' + cond)}];")
        out.append(f'  c{i} [label={dot_string(concl)}, style="rounded,filled", fillcolor="{mix_colours(colour, 0.7)}"];')
        out.append(f'  q{i} -> c{i} [label="yes"];' if cond not in ("otherwise", START) else f"  q{i} -> c{i};")
        if ordered and i + 1 < len(rows):
            out.append(f'  q{i} -> q{i + 1} [label="no"];')
    out.append("}")
    return "\n".join(out) + "\n"
