"""Pictures of a rule base: an SVG card per rule, and the decision list as Mermaid or Graphviz dot.

Each rule shows its condition (short text from :mod:`rulekit.rules.text`), its conclusion in its
class colour (the same palette as tree pictures), and, when the rule carries statistics, a bar for
its coverage and its confidence.
"""

from __future__ import annotations

import json
from html import escape

from rulekit.pictures import PALETTE, _mermaid_text, _mix
from rulekit.rules import text as rtext
from rulekit.rules.base import Conclusion, RuleBase

MAX_RULES = 500


def _colour(rb: RuleBase, c: Conclusion | None) -> str:
    if c is None or rb.task != "classification" or c.label is None:
        return "#dddddd"
    try:
        k = list(rb.classes or ()).index(c.label)
    except ValueError:
        return "#dddddd"
    return PALETTE[k % len(PALETTE)]


def _rows(rb: RuleBase):
    rules = list(rb.rules[:MAX_RULES])
    for i, r in enumerate(rules):
        yield (r.id or f"#{i + 1}", rtext.condition(r.condition), rtext.conclusion(r.conclusion),
               _colour(rb, r.conclusion), r.stats)
    if len(rb.rules) > MAX_RULES:
        yield ("…", f"{len(rb.rules) - MAX_RULES} more rules", "", "#f4f4f4", {})
    if rb.default is not None:
        yield ("default", "otherwise", rtext.conclusion(rb.default), _colour(rb, rb.default), {})


def rules_svg(rb: RuleBase) -> str:
    rows = list(_rows(rb))
    char_w, row_h, pad = 7.0, 44, 10
    id_w = max(len(r[0]) for r in rows) * char_w + 2 * pad
    cond_w = min(900.0, max(len(r[1]) for r in rows) * char_w + 2 * pad)
    concl_w = max(len(r[2]) for r in rows) * char_w + 2 * pad + 20
    bar_w = 160
    width = id_w + cond_w + concl_w + bar_w + 4 * pad
    height = row_h * (len(rows) + 1) + pad
    n_max = max([r[4].get("n", 0) for r in rows] + [1])
    head = (f"{rb.name}: {len(rb.rules)} rules, {rb.semantics}"
            + (f", target {rb.target}" if rb.target else ""))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{pad}" y="26" font-size="14" font-weight="bold">{escape(head)}</text>']
    for i, (rid, cond, concl, colour, stats) in enumerate(rows):
        y = row_h * (i + 1)
        if i % 2 == 0:
            out.append(f'<rect x="0" y="{y}" width="{width:.0f}" height="{row_h}" fill="#f7f7f7"/>')
        cond_text = cond if len(cond) * char_w < cond_w else cond[: int(cond_w / char_w) - 2] + "…"
        out.append(f'<text x="{pad}" y="{y + 26}" font-weight="bold">{escape(rid)}</text>')
        out.append(f'<text x="{id_w + pad}" y="{y + 26}">{escape(cond_text)}</text>'
                   f'<title>{escape(cond)}</title>')
        x = id_w + cond_w + 2 * pad
        out.append(f'<rect x="{x}" y="{y + 12}" width="14" height="18" rx="3" fill="{colour}"/>')
        out.append(f'<text x="{x + 20}" y="{y + 26}">{escape(concl)}</text>')
        if stats.get("n"):
            bx = x + concl_w
            frac = stats["n"] / n_max
            conf = stats.get("confidence")
            out.append(f'<rect x="{bx}" y="{y + 10}" width="{bar_w}" height="10" fill="#eee"/>')
            out.append(f'<rect x="{bx}" y="{y + 10}" width="{bar_w * frac:.1f}" height="10" '
                       f'fill="{_mix(colour, 0.8)}"/>')
            label = f"n={stats['n']:.0f}" + (f", conf {conf:.3f}" if conf is not None else "")
            out.append(f'<text x="{bx}" y="{y + 34}" font-size="10" fill="#555">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def rules_mermaid(rb: RuleBase) -> str:
    """First-hit: the decision list as a chain of questions; vote/sum: every rule feeds the outcome."""
    rows = list(_rows(rb))
    out = ["flowchart TD"]
    ordered = rb.semantics == "first-hit" and rb.combiner is None
    for i, (rid, cond, concl, colour, _) in enumerate(rows):
        out.append(f'  q{i}{{"{_mermaid_text(rid + ": " + cond)}"}}')
        out.append(f'  c{i}(["{_mermaid_text(concl)}"])')
        out.append(f"  style c{i} fill:{_mix(colour, 0.7)}")
        out.append(f'  q{i} -->|"{"yes" if cond != "otherwise" else ""}"| c{i}')
        if ordered and i + 1 < len(rows):
            out.append(f'  q{i} -->|"no"| q{i + 1}')
    return "\n".join(out) + "\n"


def rules_dot(rb: RuleBase) -> str:
    rows = list(_rows(rb))
    q = lambda s: json.dumps(s, ensure_ascii=False)  # noqa: E731 - dot accepts JSON-style strings
    out = ["digraph rules {", '  node [fontname="Helvetica", shape=box, style=rounded];', "  rankdir=TB;"]
    ordered = rb.semantics == "first-hit" and rb.combiner is None
    for i, (rid, cond, concl, colour, _) in enumerate(rows):
        out.append(f"  q{i} [label={q(rid + ': ' + cond)}];")
        out.append(f'  c{i} [label={q(concl)}, style="rounded,filled", fillcolor="{_mix(colour, 0.7)}"];')
        out.append(f'  q{i} -> c{i} [label="yes"];')
        if ordered and i + 1 < len(rows):
            out.append(f'  q{i} -> q{i + 1} [label="no"];')
    out.append("}")
    return "\n".join(out) + "\n"
