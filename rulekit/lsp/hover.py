"""Hover text: a feature's kind and domain, a value's feature, a rule's conclusion and statistics."""

from __future__ import annotations

from rulekit.dsl import literals, printer
from rulekit.dsl.grammar import VALUE_WORDS
from rulekit.lsp.analysis import Analysis, feature_at, rule_at

_SHOWN_VALUES = 30


def hover_text(a: Analysis, line: int, column: int) -> str | None:
    """Markdown for the thing at (line, column), or None."""
    rb = a.rulebase
    if rb is None:
        return None
    hit = feature_at(a, line, column)
    if hit is not None:
        return _feature(a, hit[0])
    value = _value_at(a, line, column)
    if value is not None:
        return value
    i = rule_at(a, line)
    return _rule(a, i) if i is not None else None


def _feature(a: Analysis, name: str) -> str:
    rb = a.rulebase
    f = rb.feature(name)
    used = sum(1 for _, n in a.uses if n == name)
    head = f"**feature** `{literals.name(name, frozenset())}`: {f.kind}"
    if f.kind == "nominal":
        dom = ", ".join(literals.typed(v, VALUE_WORDS) for v in f.domain[:_SHOWN_VALUES])
        more = f", ... ({len(f.domain)} values)" if len(f.domain) > _SHOWN_VALUES else ""
        head += f" {{{dom}{more}}}"
    return f"{head}\n\ntested {used} time{'s' * (used != 1)} in {len(rb.rules)} rules"


def _value_at(a: Analysis, line: int, column: int) -> str | None:
    """A domain value written right of a nominal feature's test on the same line."""
    text = a.lines[line - 1] if 0 < line <= len(a.lines) else ""
    start, end = column - 1, column - 1
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.-"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] in "_.-"):
        end += 1
    word = text[start:end]
    if not word:
        return None
    before = [(s, n) for s, n in a.uses if s.line == line and s.column <= start]
    if not before:
        return None
    name = before[-1][1]
    f = a.rulebase.feature(name)
    if f.kind != "nominal" or all(str(v) != word for v in f.domain):
        return None
    return f"value `{word}` of the nominal feature `{literals.name(name, frozenset())}` " \
           f"(one of {len(f.domain)} values)"


def _rule(a: Analysis, i: int) -> str:
    rb = a.rulebase
    r = rb.rules[i]
    who = f"rule `{r.id}`" if r.id is not None else f"rule {i + 1}"
    parts = [f"**{who}** ({i + 1} of {len(rb.rules)}, {rb.semantics})",
             "then " + printer.conclusion(r.conclusion, rb.task, rb.classes)]
    if r.stats:
        parts.append(", ".join(f"{k} {v:.4g}" for k, v in r.stats.items()))
    return "\n\n".join(parts)
