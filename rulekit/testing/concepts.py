"""Planted concepts: synthetic data whose true rule base is known, to measure rule learners.

A :class:`Concept` is a DNF over a small domain: nominal features (values ``v0``..``v{k-1}``) with
literals ``f = v`` / ``f != v``, integer-valued numeric features (0..``grid - 1``) with literals
``x <= t`` / ``x > t``, or one oblique boundary ``x0 + x1 > t``. Irrelevant features are sampled
the same way and never used. ``sample`` draws uniform rows, labels them by the concept and flips a
share of the training labels (noise); test labels stay clean. Because every domain is finite,
:func:`recovered` can tell *exactly* whether a learned predictor is the concept: it enumerates every
combination of values of the features either side uses (too many combinations: not recovered).

Used by ``bench/bench_concepts.py`` at full size and by the rule tests at small sizes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

MAX_DOMAIN_POINTS = 1 << 20


@dataclass(frozen=True)
class Literal:
    """``feature op value``: op ``=``/``!=`` (nominal, value a label) or ``<=``/``>`` (numeric)."""

    feature: str
    op: str
    value: Any


@dataclass
class Concept:
    """A planted concept: ``terms`` OR-ed (each an AND of literals), or ``oblique`` when set."""

    kind: str  # "nominal", "boxes" or "oblique"
    features: dict[str, tuple]  # name -> its domain (labels, or integers for numeric features)
    terms: list[list[Literal]] = field(default_factory=list)
    oblique: tuple[str, str, float] | None = None  # x + y > t
    noise: float = 0.0
    name: str = ""

    @property
    def relevant(self) -> list[str]:
        if self.oblique is not None:
            return [self.oblique[0], self.oblique[1]]
        seen: dict[str, None] = {}
        for t in self.terms:
            for lit in t:
                seen.setdefault(lit.feature, None)
        return list(seen)

    @property
    def literals(self) -> int:
        return 2 if self.oblique is not None else sum(len(t) for t in self.terms)

    def numeric(self, name: str) -> bool:
        return not isinstance(self.features[name][0], str)

    def label(self, X: pd.DataFrame) -> np.ndarray:
        """The concept's class (0/1) of every row."""
        if self.oblique is not None:
            a, b, t = self.oblique
            return (X[a].to_numpy(float) + X[b].to_numpy(float) > t).astype(np.int64)
        out = np.zeros(len(X), bool)
        for term in self.terms:
            ok = np.ones(len(X), bool)
            for lit in term:
                col = X[lit.feature].to_numpy()
                if lit.op == "=":
                    ok &= col == lit.value
                elif lit.op == "!=":
                    ok &= col != lit.value
                elif lit.op == "<=":
                    ok &= col.astype(float) <= lit.value
                else:
                    ok &= col.astype(float) > lit.value
            out |= ok
        return out.astype(np.int64)

    def text(self) -> str:
        if self.oblique is not None:
            return f"{self.oblique[0]} + {self.oblique[1]} > {self.oblique[2]:g}"
        return " or ".join("(" + " and ".join(f"{l.feature} {l.op} {l.value}" for l in t) + ")"
                           for t in self.terms)

    def sample(self, n: int, rng: np.random.Generator, *, noisy: bool = True) -> tuple[pd.DataFrame, np.ndarray]:
        """``n`` uniform rows and their labels (a ``noise`` share flipped when ``noisy``)."""
        cols = {}
        for name, dom in self.features.items():
            idx = rng.integers(0, len(dom), n)
            cols[name] = np.asarray(dom, dtype=object if isinstance(dom[0], str) else np.float64)[idx]
        X = pd.DataFrame(cols)
        y = self.label(X)
        if noisy and self.noise > 0:
            flip = rng.random(n) < self.noise
            y = np.where(flip, 1 - y, y)
        return X, y


def _positive_rate(c: Concept) -> float:
    rel = c.relevant
    grid = list(itertools.product(*(c.features[f] for f in rel)))
    X = pd.DataFrame(grid, columns=rel)
    return float(c.label(X).mean())


def nominal_dnf(seed: int, *, terms: tuple[int, int] = (2, 6), term_size: tuple[int, int] = (1, 4),
                values: tuple[int, int] = (2, 6), irrelevant: tuple[int, int] = (5, 20),
                noise: float | None = None, positives: tuple[float, float] = (0.10, 0.50),
                min_share: float = 0.02) -> Concept:
    """A random nominal DNF: 2-6 terms of 1-4 literals (some negated, terms sharing literals so they
    overlap), 2-6 values per feature, 5-20 irrelevant features, 0-15% noise, 10-50% positives.
    Every term alone covers at least ``min_share`` of the domain (2%: ~60 of 3,000 training rows),
    so that the data can show it at all."""
    rng = np.random.default_rng(seed)
    for _ in range(1000):
        n_rel = int(rng.integers(2, 7))
        feats: dict[str, tuple] = {}
        for j in range(n_rel):
            k = int(rng.integers(values[0], values[1] + 1))
            feats[f"a{j}"] = tuple(f"v{i}" for i in range(k))
        rel = list(feats)
        n_terms = int(rng.integers(terms[0], terms[1] + 1))
        dnf: list[list[Literal]] = []
        for t in range(n_terms):
            size = int(rng.integers(term_size[0], min(term_size[1], n_rel) + 1))
            if dnf and rng.random() < 0.4:  # overlap: start from a literal of an earlier term
                base = dnf[int(rng.integers(0, len(dnf)))]
                first = [base[int(rng.integers(0, len(base)))]]
            else:
                first = []
            used = {lit.feature for lit in first}
            chosen = list(first)
            for f in rng.permutation(rel):
                if len(chosen) >= size:
                    break
                if f in used:
                    continue
                used.add(f)
                v = feats[f][int(rng.integers(0, len(feats[f])))]
                op = "!=" if len(feats[f]) > 2 and rng.random() < 0.3 else "="
                chosen.append(Literal(str(f), op, v))
            dnf.append(chosen)
        c = Concept("nominal", feats, dnf)
        if not _irredundant(c) or _smallest_share(c) < min_share:
            continue
        rate = _positive_rate(c)
        if positives[0] <= rate <= positives[1]:
            break
    n_irr = int(rng.integers(irrelevant[0], irrelevant[1] + 1))
    for j in range(n_irr):
        k = int(rng.integers(values[0], values[1] + 1))
        c.features[f"z{j}"] = tuple(f"v{i}" for i in range(k))
    c.noise = float(rng.uniform(0, 0.15)) if noise is None else noise
    c.name = f"dnf{seed}"
    return c


def _smallest_share(c: Concept) -> float:
    """The smallest share of the domain that one term covers and no other term does."""
    rel = c.relevant
    grid = pd.DataFrame(list(itertools.product(*(c.features[f] for f in rel))), columns=rel)
    hits = np.stack([Concept("nominal", c.features, [t]).label(grid) for t in c.terms]).astype(bool)
    only = hits & (hits.sum(axis=0) == 1)
    return float(only.mean(axis=1).min())


def _irredundant(c: Concept) -> bool:
    """No term or literal can go without changing the concept (the planted size is its own)."""
    rel = c.relevant
    grid = pd.DataFrame(list(itertools.product(*(c.features[f] for f in rel))), columns=rel)
    full = c.label(grid)
    if full.all() or not full.any():
        return False
    for i in range(len(c.terms)):
        cands = [c.terms[:i] + c.terms[i + 1:]]
        if len(c.terms[i]) > 1:
            cands += [c.terms[:i] + [c.terms[i][:k] + c.terms[i][k + 1:]] + c.terms[i + 1:]
                      for k in range(len(c.terms[i]))]
        for terms in cands:
            if np.array_equal(Concept("nominal", c.features, terms).label(grid), full):
                return False
    return True


def numeric_boxes(seed: int, *, grid: int = 20, irrelevant: int = 6, noise: float = 0.05) -> Concept:
    """1-3 axis-parallel boxes over 2-3 integer-valued features (0..grid-1)."""
    rng = np.random.default_rng(1000 + seed)
    n_rel = int(rng.integers(2, 4))
    feats = {f"x{j}": tuple(range(grid)) for j in range(n_rel)}
    for _ in range(1000):
        terms = []
        for _ in range(int(rng.integers(1, 4))):
            term = []
            for f in rng.permutation(list(feats))[: int(rng.integers(1, n_rel + 1))]:
                lo, hi = sorted(int(v) for v in rng.choice(np.arange(-1, grid), 2, replace=False))
                if lo >= 0:
                    term.append(Literal(str(f), ">", float(lo)))
                if hi < grid - 1:
                    term.append(Literal(str(f), "<=", float(hi)))
            if term:
                terms.append(term)
        c = Concept("boxes", dict(feats), terms)
        if terms and _irredundant(c) and 0.1 <= _positive_rate(c) <= 0.5:
            break
    for j in range(irrelevant):
        c.features[f"z{j}"] = tuple(range(grid))
    c.noise = noise
    c.name = f"boxes{seed}"
    return c


def oblique(seed: int, *, grid: int = 20, irrelevant: int = 6, noise: float = 0.05) -> Concept:
    """``x0 + x1 > t`` on integer features: no axis-parallel rule base is exact."""
    rng = np.random.default_rng(2000 + seed)
    t = float(rng.integers(grid, int(1.5 * grid)))
    feats = {"x0": tuple(range(grid)), "x1": tuple(range(grid))}
    for j in range(irrelevant):
        feats[f"z{j}"] = tuple(range(grid))
    return Concept("oblique", feats, oblique=("x0", "x1", t), noise=noise, name=f"oblique{seed}")


def recovered(concept: Concept, predict: Callable[[pd.DataFrame], np.ndarray], used: set[str]) -> bool:
    """True when ``predict`` gives the concept's label on every combination of values of the
    concept's features and ``used`` (the features the learned predictor reads)."""
    names = list(dict.fromkeys(concept.relevant + [f for f in concept.features if f in used]))
    size = 1
    for f in names:
        size *= len(concept.features[f])
        if size > MAX_DOMAIN_POINTS:
            return False
    grid = list(itertools.product(*(concept.features[f] for f in names)))
    X = pd.DataFrame(grid, columns=names)
    for f, dom in concept.features.items():
        if f not in X:
            X[f] = dom[0]
    for f in concept.features:
        if concept.numeric(f):
            X[f] = X[f].astype(np.float64)
        else:
            X[f] = X[f].astype(object)
    X = X[list(concept.features)]
    pred = np.asarray(predict(X))
    return bool(np.array_equal(pred.astype(np.int64), concept.label(X)))
