"""Rule bases and data for the studio's tests and bench: numeric and nominal features (one with a
hostile name), thresholds written exactly, and rows on the thresholds, one float step either side
and missing."""

from __future__ import annotations

import csv
import random

import numpy as np

from rulekit import dsl
from rulekit.ir.schema import Feature
from rulekit.rules.base import (
    And,
    Compare,
    Conclusion,
    InSet,
    IsMissing,
    Or,
    Rule,
    RuleBase,
)

HOSTILE = 'dé"li;--m\'x'  # quotes, a SQL comment, a semicolon, a non-ASCII letter
COLOURS = ("red", "green", "blue")
CLASSES = ("a", "b", "c")


def rulebase(n_rules: int, *, seed: int = 0, semantics: str = "first-hit", n_numeric: int = 6,
             precision: str = "float64") -> RuleBase:
    rnd = random.Random(seed)
    names = [f"f{i}" for i in range(n_numeric - 1)] + [HOSTILE]
    feats = tuple(Feature(name=n, kind="numeric") for n in names) + (
        Feature(name="colour", kind="nominal", domain=COLOURS),)
    rules = []
    for i in range(n_rules):
        items = []
        for _ in range(rnd.randint(1, 3)):
            items.append(Compare(feature=rnd.choice(names), op=rnd.choice(["<=", ">", "<", ">="]),
                                 value=round(rnd.uniform(-10, 10), rnd.choice([0, 1, 3]))))
        roll = rnd.random()
        if roll < 0.25:
            items.append(InSet(feature="colour", values=tuple(rnd.sample(COLOURS, 2)),
                               negated=rnd.random() < 0.3))
        elif roll < 0.35:
            f = rnd.choice(names)
            items.append(Or(items=(Compare(feature=f, op="<=", value=0.5), IsMissing(feature=f))))
        cond = items[0] if len(items) == 1 else And(items=tuple(items))
        rules.append(Rule(id=f"r{i}", condition=cond,
                          conclusion=Conclusion(label=rnd.choice(CLASSES))))
    return RuleBase(name="studio", task="classification", target="y", classes=CLASSES, features=feats,
                    semantics=semantics, precision=precision, rules=tuple(rules),
                    default=Conclusion(label="a"))


def text(n_rules: int, **kw) -> str:
    return dsl.dumps(rulebase(n_rules, **kw))


def thresholds(rb: RuleBase) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    stack = [r.condition for r in rb.rules]
    while stack:
        c = stack.pop()
        if isinstance(c, (And, Or)):
            stack.extend(c.items)
        elif isinstance(c, Compare) and isinstance(c.value, float):
            out.setdefault(c.feature, []).append(c.value)
    return out


def columns(rb: RuleBase, n_rows: int, *, seed: int = 0) -> dict[str, list[str]]:
    """CSV cells: random values, then every threshold, its float neighbours, and missing cells."""
    rng = np.random.default_rng(seed)
    th = thresholds(rb)
    cols: dict[str, list[str]] = {}
    for f in rb.features:
        if f.kind == "nominal":
            vals = [str(v) for v in rng.choice(list(COLOURS) + [""], n_rows)]
        else:
            xs = rng.uniform(-12, 12, n_rows)
            special = []
            for t in th.get(f.name, []):
                special += [t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf)]
            k = min(len(special), n_rows // 2)
            xs[:k] = special[:k]
            vals = [repr(float(x)) for x in xs]
            for j in rng.choice(n_rows, max(1, n_rows // 20), replace=False):
                vals[j] = ""
        cols[f.name] = vals
    cols["y"] = [str(v) for v in rng.choice(CLASSES, n_rows)]
    return cols


def write_csv(path, cols: dict[str, list[str]]) -> None:
    names = list(cols)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        for row in zip(*(cols[n] for n in names)):
            w.writerow(row)


def edit(rb_text: str, seed: int) -> str:
    """A plausible edit of a rules text: a threshold changed, a label changed, a rule deleted or moved."""
    rnd = random.Random(seed)
    lines = rb_text.split("\n")
    rule_lines = [i for i, ln in enumerate(lines) if ln.startswith("r") and " if " in ln
                  and not (i + 1 < len(lines) and lines[i + 1].startswith(" "))]  # one-line rules
    i = rnd.choice(rule_lines)
    kind = rnd.randrange(4)
    if kind == 0:
        lines[i] = lines[i].replace(" then a", " then b").replace(" then c", " then a")
    elif kind == 1:
        del lines[i]
    elif kind == 2:
        j = rnd.choice(rule_lines)
        lines[i], lines[j] = lines[j], lines[i]
    else:
        head, _, tail = lines[i].partition(" then ")
        lines[i] = head + " and f0 > " + str(round(rnd.uniform(-5, 5), 2)) + " then " + tail
    return "\n".join(lines)
