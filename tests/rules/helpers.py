"""Shared builders for the rule tests: PlayGolf's ID3 tree and synthetic DNF concepts."""

from __future__ import annotations

import io
import itertools
from contextlib import redirect_stderr, redirect_stdout
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from rulekit.ir.model import Feature, Model
from rulekit.ir.tree import TreeBuilder


def playgolf() -> pd.DataFrame:
    with resources.files("rulekit").joinpath("data/playgolf.csv").open() as fh:
        return pd.read_csv(fh)


def playgolf_id3() -> Model:
    """The ID3 tree of PlayGolf: outlook, then humidity under sunny and wind under rainy."""
    df = playgolf()
    feats = [Feature(name=c, kind="nominal", domain=tuple(sorted(df[c].unique())))
             for c in ["outlook", "temperature", "humidity", "wind"]]
    dom = {f.name: f.domain for f in feats}

    def code(f, v):
        return dom[f].index(v)

    b = TreeBuilder()
    root = b.nominal(0, missing=1)
    sunny = b.nominal(2, missing=1)
    b.connect(root, sunny, 0, values=(code("outlook", "sunny"),))
    b.connect(root, b.leaf((0.0, 1.0), n_samples=4.0), 1, values=(code("outlook", "overcast"),))
    rainy = b.nominal(3, missing=1)
    b.connect(root, rainy, 2, values=(code("outlook", "rainy"),))
    b.connect(sunny, b.leaf((1.0, 0.0), n_samples=3.0), 0, values=(code("humidity", "high"),))
    b.connect(sunny, b.leaf((0.0, 1.0), n_samples=2.0), 1, values=(code("humidity", "normal"),))
    b.connect(rainy, b.leaf((1.0, 0.0), n_samples=2.0), 0, values=(code("wind", "strong"),))
    b.connect(rainy, b.leaf((0.0, 1.0), n_samples=3.0), 1, values=(code("wind", "weak"),))
    return Model([b.graph], feats, task="classification", classes=["no", "yes"], target="play")


def dnf_concept(seed: int, *, n: int, noise: float, n_terms: int | None = None):
    """Nominal data whose positive class is a random DNF (2-4 terms of 1-3 literals, disjoint
    attributes, each term covering at least ~2% of rows) plus label noise.
    Returns (X, y, terms) with terms as sets of (attribute, value)."""
    rng = np.random.default_rng(seed)
    while True:
        n_attr = int(rng.integers(8, 13))
        card = rng.integers(2, 5, n_attr)
        k = n_terms or int(rng.integers(2, 5))
        sizes = [int(rng.integers(1, 4)) for _ in range(k)]
        if sum(sizes) > n_attr:
            continue
        attrs = rng.permutation(n_attr)
        terms, used = [], 0
        for s in sizes:
            terms.append([(int(a), int(rng.integers(0, card[a]))) for a in attrs[used:used + s]])
            used += s
        cover = [np.prod([1.0 / card[a] for a, _ in t]) for t in terms]
        if min(cover) >= 0.02 and max(cover) <= 0.5:
            break
    X = {f"a{j}": rng.integers(0, card[j], n) for j in range(n_attr)}
    y = np.zeros(n, bool)
    for t in terms:
        m = np.ones(n, bool)
        for a, v in t:
            m &= X[f"a{a}"] == v
        y |= m
    y ^= rng.random(n) < noise
    frame = pd.DataFrame({k: np.array([f"v{x}" for x in v], dtype=object) for k, v in X.items()})
    concept = {frozenset((f"a{a}", f"v{v}") for a, v in t) for t in terms}
    return frame, np.where(y, "pos", "neg"), concept


# a small all-nominal rule base header and the full grid of its feature values, for hand-made
# rule bases in the MDL, join and organize tests
NOMINAL_HEAD = """rulebase t
target y: classes {0, 1}
feature a: nominal {p, q, r, s}
feature b: nominal {u, v}
feature z: nominal {k, l, m}
semantics first-hit
default 0

"""


def nominal_grid(repeat: int = 1) -> pd.DataFrame:
    """Every (a, b, z) of NOMINAL_HEAD's domains, ``repeat`` times."""
    rows = list(itertools.product("pqrs", "uv", "klm")) * repeat
    return pd.DataFrame(rows, columns=["a", "b", "z"], dtype=object)


def fit_default(tmp_path: Path) -> None:
    """``rulekit fit train.csv --target y -o m.json`` in ``tmp_path`` with the CLI's defaults, quietly
    (the default path's first step)."""
    from rulekit.commands import fit

    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        fit.run(data=tmp_path / "train.csv", target="y", algorithm="cart", task=None, criterion=None,
                max_depth=None, min_samples_leaf=1, prune="none", prune_data=None, ensemble=None,
                n_trees=100, seed=0, output=tmp_path / "m.json", quiet=True)


def default_path_rules(tmp_path: Path):
    """The whole default path in ``tmp_path``: :func:`fit_default`, then ``rulekit rules m.json
    --prune-data prune.csv --dnf -o r.rules`` quietly; the rule base it wrote."""
    import rulekit
    from rulekit.commands import rules

    fit_default(tmp_path)
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        rules.run(model=tmp_path / "m.json", prune_data=tmp_path / "prune.csv", dnf=True,
                  order="first-hit", output=tmp_path / "r.rules")
    return rulekit.load(tmp_path / "r.rules")
