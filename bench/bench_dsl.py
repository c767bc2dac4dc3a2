"""Rule DSL speed: parse (``dsl.loads``) and print (``dsl.dumps``) a 1 MB rules file.

The file looks like what ``rulekit rules`` writes for a big forest: ids, interval chains,
``(x <= t or x is missing)`` groups, nominal sets, distributions and statistics, float32-midpoint
thresholds printed at full precision. Goal: a 1 MB file parses in under a second. The peer is lark's
stock pipeline on the same grammar (its own contextual lexer, a parse tree, then
Transformer_NonRecursive), measured in the same run.
"""

from __future__ import annotations

import random
import time

from rulekit import dsl
from rulekit.ir.model import Feature
from rulekit.rules.base import And, Compare, Conclusion, InSet, IsMissing, Or, Rule, RuleBase


def make_rulebase(target_bytes: int, seed: int = 0) -> RuleBase:
    rnd = random.Random(seed)
    feats = [Feature(name=f"f{i}") for i in range(30)]
    feats += [Feature(name="colour", kind="nominal", domain=("red", "green", "blue", "light blue")),
              Feature(name="grade", kind="nominal", domain=(1, 2, 3, 4, 5))]
    rules, size = [], 600
    while size < target_bytes:
        items = []
        for _ in range(rnd.randint(3, 12)):
            f = f"f{rnd.randrange(30)}"
            t = float(rnd.uniform(-100, 100))
            r = rnd.random()
            if r < 0.45:
                items.append(Compare(feature=f, op=rnd.choice(["<=", ">"]), value=t))
            elif r < 0.7:
                items += [Compare(feature=f, op=">", value=t), Compare(feature=f, op="<=", value=t + 5.0)]
            elif r < 0.85:
                items.append(Or(items=(Compare(feature=f, op="<=", value=t), IsMissing(feature=f))))
            else:
                items.append(InSet(feature="colour", values=("red", "light blue")))
        p = [rnd.random() for _ in range(3)]
        s = sum(p)
        dist = tuple(x / s for x in p)
        rules.append(Rule(id=f"r{len(rules) + 1}", condition=And(items=tuple(items)),
                          conclusion=Conclusion(label="abc"[dist.index(max(dist))], distribution=dist),
                          stats={"train_n": float(rnd.randint(1, 500))}))
        size += 60 + 32 * len(items)
    return RuleBase(name="forest", task="classification", target="y", classes=("a", "b", "c"),
                    features=tuple(feats), rules=tuple(rules), precision="float32",
                    default=Conclusion(label="a"))


def make_text(target_bytes: int = 1_000_000) -> str:
    rb = make_rulebase(target_bytes)
    text = dsl.dumps(rb)
    while len(text.encode()) < target_bytes:  # top up: the estimate above is rough
        rb = make_rulebase(int(target_bytes * 1.1))
        text = dsl.dumps(rb)
    return text


def _best(fn, repeat: int, clock=time.perf_counter) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best


def _lark_stock(text: str):
    """lark's own pipeline on the same grammar: contextual lexer, tree, Transformer_NonRecursive."""
    try:
        from lark import Lark

        from rulekit.dsl.build import Builder
        from rulekit.dsl.grammar import grammar_text
    except ImportError:  # pragma: no cover
        return None
    parser = Lark(grammar_text(), parser="lalr", lexer="contextual", maybe_placeholders=True)

    def run():
        tree = parser.parse(text)
        b = Builder()
        b.reset(text, "bench")
        b.transform(tree)
        return b.finish()

    return run


def run(quick: bool) -> list[dict]:
    size = 200_000 if quick else 1_000_000
    text = make_text(size)
    mb = len(text.encode()) / 1e6
    rb = dsl.loads(text)
    n_rules = len(rb.rules)
    repeat = 1 if quick else 3
    t_load = _best(lambda: dsl.loads(text), repeat)
    cpu_load = _best(lambda: dsl.loads(text), repeat, time.process_time)
    t_dump = _best(lambda: dsl.dumps(rb), repeat)
    stock = _lark_stock(text)
    t_stock = _best(stock, 1) if stock is not None else None
    per_mb = t_load / mb
    return [
        {"benchmark": "dsl", "metric": f"parse {mb:.2f} MB ({n_rules} rules)", "unit": "s",
         "rulekit": t_load, "peer": "lark contextual lexer + tree + Transformer_NonRecursive",
         "peer_value": t_stock, "goal": "1 MB parses in < 1 s", "ok": per_mb < 1.0},
        {"benchmark": "dsl", "metric": "parse time per MB", "unit": "s/MB", "rulekit": per_mb, "peer": "",
         "peer_value": (t_stock / mb) if t_stock else None, "goal": "< 1 s/MB", "ok": per_mb < 1.0},
        {"benchmark": "dsl", "metric": "parse CPU time per MB (process time: robust to a busy machine)",
         "unit": "s/MB", "rulekit": cpu_load / mb, "peer": "", "peer_value": None, "goal": "< 1 s/MB",
         "ok": cpu_load / mb < 1.0},
        {"benchmark": "dsl", "metric": f"print {mb:.2f} MB", "unit": "s", "rulekit": t_dump, "peer": "",
         "peer_value": None, "goal": "faster than parsing", "ok": t_dump < t_load},
    ]


if __name__ == "__main__":
    for row in run(quick=False):
        print(row)
