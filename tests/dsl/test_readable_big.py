"""The batched threshold shortening of ``readable`` (one vectorized check per digit step, for big
rule bases) gives exactly what :func:`short_threshold` gives one threshold at a time."""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.dsl import readable as rd
from rulekit.rules.base import Compare


def _thresholds(seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.integers(-6, 6, 300).astype(float)
    f32 = (rng.normal(size=300) * scale).astype(np.float32).astype(float)
    mids = [round(v, int(d)) for v, d in zip(rng.random(200) * 100.0, rng.integers(0, 8, 200))]
    out = [*f32, *mids, *np.nextafter(f32, np.inf), *np.nextafter(f32, -np.inf),
           1e-45, 1.5e-45, -3.4028234663852886e38, 3.4028235677973366e38, 1e300, -1e-300, 0.5, -7.0]
    return [float(t) for t in out]


@pytest.mark.parametrize("seed", [0, 1])
def test_batch_equals_one_at_a_time(seed):
    ts = _thresholds(seed)
    ops = ("<=", ">", "<", ">=", "=", "!=")
    memo = rd._short_many([(rd._KIND[op], t) for op in ops for t in ts], "float32")
    differ = [(op, t) for op in ops for t in ts
              if repr(memo[(rd._KIND[op], t)]) != repr(rd.short_threshold(op, t, "float32"))]
    assert not differ, differ[:5]
    assert sum(memo[(rd._KIND[op], t)] != t for op in ops for t in ts) > len(ts)  # it shortens


def test_readable_rule_base_unchanged_by_batching():
    sklearn = pytest.importorskip("sklearn.tree")
    import rulekit
    from rulekit.rules.extract import extract

    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 4))
    X[::7, 1] = 0.0
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    tree = sklearn.DecisionTreeClassifier(max_leaf_nodes=300, random_state=0).fit(X, y)
    rb = extract(rulekit.from_sklearn(tree), simplify=True)
    assert rb.precision == "float32"
    numeric = {f.name for f in rb.features}
    batched = rd.readable(rb)
    single = [rd._short_condition(r.condition, numeric, rb.precision) for r in rb.rules]
    assert [r.condition for r in batched.rules] == single
    values = [lit.value for r in batched.rules for lit in _compares(r.condition)]
    assert values and all(repr(a) == repr(b) for a, b in zip(
        values, [lit.value for c in single for lit in _compares(c)]))


def _compares(cond):
    stack, out = [cond], []
    while stack:
        node = stack.pop()
        if isinstance(node, Compare):
            out.append(node)
        stack.extend(getattr(node, "items", ()) or ([node.item] if hasattr(node, "item") else []))
    return out
