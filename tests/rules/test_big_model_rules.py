"""The economies that make ``rulekit rules`` linear and lean on big trees (issue 25) change nothing.

Extract shares the literals it renders (``x is missing``, nominal tests, ``(x <= t or x is
missing)``), simplify skips conditions extract rendered from one box, and the readable printer
shortens each shared literal once: each must give exactly what the slow way gives.
"""

from __future__ import annotations

import numpy as np
import pytest

from rulekit import dsl
from rulekit.dsl.readable import _short_condition, _short_thresholds, readable
from rulekit.ir.model import Model
from rulekit.ir.schema import Feature
from rulekit.ir.tree import TreeBuilder
from rulekit.probe import probe_rows
from rulekit.rules import to_rules
from rulekit.rules.boxes import forget_boxes
from rulekit.rules.conditions import IsMissing, Or
from rulekit.rules.extract import extract
from rulekit.rules.simplify import simplify
from tests import zoo

NAMES = ["it's \"x\"", "naïve ü", "select", "colour; --"]


def _tree(depth: int = 7, seed: int = 0) -> Model:
    """A complete tree: float32 splits on three numeric features (hostile names), subset splits
    on a nominal one, a random missing branch everywhere; built level by level (no recursion)."""
    rng = np.random.default_rng(seed)
    feats = [Feature(name=n) for n in NAMES[:3]] + [
        Feature(name=NAMES[3], kind="nominal", domain=("red", "green", "blue", "it's"))]
    b = TreeBuilder()
    level = [(None, 0, ((-100.0, 100.0),) * 3)]
    level_kind: dict = {}
    for d in range(depth + 1):
        nxt = []
        for parent, branch, box in level:
            if d == depth:
                p = rng.dirichlet((1.0, 1.0))
                node = b.leaf(tuple(p), n_samples=float(rng.integers(1, 30)))
            elif d % 3 == 2:
                node = b.nominal(3, missing=int(rng.integers(0, 2)))
                kids = (box, box)
            else:
                f = d % 3
                lo, hi = box[f]
                v = float(np.float32(lo + (hi - lo) * rng.uniform(0.3, 0.7)))
                t = (v + float(np.nextafter(np.float32(v), np.float32(np.inf)))) / 2
                node = b.numeric(f, t, precision="float32", missing=int(rng.integers(0, 2)))
                kids = (box[:f] + ((lo, v),) + box[f + 1:], box[:f] + ((v, hi),) + box[f + 1:])
            if parent is not None:
                values = ((0, 2) if branch == 0 else None if rng.random() < 0.5 else (1, 3)) \
                    if level_kind[parent] else None
                b.connect(parent, node, branch, values=values)
            if d < depth:
                nxt.extend([(node, 0, kids[0]), (node, 1, kids[1])])
        level_kind = {n: b.graph.nodes[n]["kind"] == "nominal" for n, _, _ in nxt}
        level = nxt
    return Model([b.graph], feats, task="classification", classes=["no", "yes"])


@pytest.mark.parametrize("name", ["generated", *zoo.zoo_names()])
def test_simplify_shortcut_gives_what_simplifying_gives(name):
    """to_rules skips re-simplifying extract's one-box conditions; simplifying them anyway (the box
    cache emptied, so nothing is known to be rendered) gives the same rule base and text."""
    if name == "generated":
        model = _tree()
    else:
        try:
            model = zoo.get(name)[0]
        except ImportError as err:  # a zoo entry whose library is not installed
            pytest.skip(str(err))
    fast = to_rules(model)
    raw = extract(model, simplify=True)
    forget_boxes()
    slow = simplify(raw)
    assert fast.rules == slow.rules
    assert dsl.dumps(fast) == dsl.dumps(slow)


def test_rendered_literals_are_shared_and_rules_still_predict_the_tree():
    model = _tree()
    rb = extract(model, simplify=True)
    missing = {id(node) for r in rb.rules for node in _nodes(r.condition) if type(node) is IsMissing}
    pairs = [node for r in rb.rules for node in _nodes(r.condition) if type(node) is Or]
    assert len(rb.rules) >= 60 and len(pairs) >= 40
    assert len(missing) <= len(model.features)  # one `x is missing` per feature, not one per rule
    assert len({id(p) for p in pairs}) < len(pairs) / 2
    rng = np.random.default_rng(1)
    M = probe_rows(model, np.column_stack([rng.uniform(-100, 100, (300, 3)), rng.integers(-1, 4, 300)]),
                   n_missing=60)
    frame = zoo._frame(model, M)
    assert list(rb.predict(frame)) == list(model.predict(frame))
    assert np.array_equal(rb.predict_proba(frame), model.predict_proba(frame))


def test_readable_shortens_shared_literals_as_it_would_one_by_one():
    rb = to_rules(_tree())
    numeric = {f.name for f in rb.features if f.kind == "numeric"}
    memo = _short_thresholds(rb, numeric)
    short = readable(rb)
    assert short.rules != rb.rules  # some threshold was shortened
    for r, s in zip(rb.rules, short.rules):
        assert s.condition == _short_condition(r.condition, numeric, rb.precision, memo)  # fresh copies


def _nodes(cond):
    stack = [cond]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(getattr(node, "items", ()))
