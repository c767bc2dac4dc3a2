"""The passes of ``rules/prune.py`` checked against slow, literal re-statements of what they do
(issue #23: the mutation run of prune.py found most of ``reduced_error`` and ``organize`` pinned
by no test; docs/testing.md lists the run). Random first-hit rule bases over numeric and nominal
features (one- and two-sided bounds, ``or is missing``, set tests, ``if true``, rules that are not
one conjunction, duplicates, labels outside the classes, no default) on small random data:

- ``reduced_error``: per rule in order, drop the condition whose removal gains most first-hit
  accuracy (the first on a tie, while no worse, one condition left at least), then the whole rule
  while no worse; accuracy recomputed from scratch for every candidate.
- ``organize``: duplicates out, classes by false positives, the default from the uncovered rows,
  rules deleted while the errors do not grow (fewest errors, then the longest rule, then the last),
  conclusions with the class frequencies of the rows each rule decides; with MDL, each class's
  subset and refinement and the shortest list (those steps pinned in test_prune_mutants_mdl.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.ir.model import Feature
from rulekit.rules import engine
from rulekit.rules.base import TRUE, And, Compare, Conclusion, InSet, IsMissing, Or, Rule, RuleBase
from rulekit.rules.boxes import LiteralSchema, count_literals
from rulekit.errors import RulekitError
from rulekit.rules.prune import (_context, _feature_stats, _mdl_refine, _mdl_subset, _shortest_list, _single_box,
                                 organize, reduced_error)

FEATURES = (Feature(name="a"), Feature(name="b"), Feature(name="c", kind="nominal", domain=("x", "y", "z")),
            Feature(name="d"))
NUMERIC = ("a", "b", "d")
VALUES = [0.0, 1.0, 2.0, 3.0, 4.0, np.nan]
GRID = pd.DataFrame({"a": np.repeat(VALUES, 6 * 4 * 6), "b": np.tile(np.repeat(VALUES, 4 * 6), 6),
                     "c": pd.Series(np.tile(np.repeat(["x", "y", "z", None], 6), 36), dtype=object),
                     "d": np.tile(VALUES, 6 * 6 * 4)})


def C(f, op, v):
    return Compare(feature=f, op=op, value=v)


def _feature(lit) -> str:
    return lit.items[0].feature if isinstance(lit, Or) else lit.feature


def _literals(rng) -> list:
    """One rule's prunable conditions, in feature order, one feature each (two for a range): the order
    of the units ``reduced_error`` tries (a range's lower bound first)."""
    out = []
    for f in ("a", "b", "c", "d"):
        if rng.random() < 0.45:
            continue
        if f == "c":
            out.append(InSet(feature="c", values=tuple(sorted(rng.choice(["x", "y", "z"], rng.integers(1, 3),
                                                                           replace=False)))))
            continue
        kind = rng.integers(0, 4)
        t = float(rng.integers(0, 4)) + 0.5
        if kind == 0:
            out.append(C(f, "<=", t))
        elif kind == 1:
            out.append(C(f, ">", t))
        elif kind == 2 and t < 3.0:
            out += [C(f, ">", t), C(f, "<=", t + 1.0 + float(rng.integers(0, 2)))]
        else:
            out.append(Or(items=(C(f, "<=", t), IsMissing(feature=f))))
    return out


def _case(seed: int, *, default=True):
    """(rule base, its rules' prunable conditions (None: not one conjunction), X, y)."""
    rng = np.random.default_rng(seed)
    classes = ("p", "q", "s")[:int(rng.integers(2, 4))]
    lits, rules = [], []
    for i in range(int(rng.integers(2, 7))):
        roll = rng.random()
        if roll < 0.1:
            lit, cond = None, Or(items=(C("a", "<=", 1.5), C("b", ">", 2.5)))
        elif roll < 0.15:
            lit, cond = [], TRUE
        elif roll < 0.25 and lits and lits[-1]:
            groups: dict = {}  # the same conditions, features in the reverse order (the same box)
            for item in lits[-1]:
                groups.setdefault(_feature(item), []).append(item)
            lit = [item for g in reversed(list(groups.values())) for item in g]
            cond = And(items=tuple(lit)) if len(lit) > 1 else lit[0]
        else:
            lit = _literals(rng) or [C("a", "<=", 2.5)]
            cond = And(items=tuple(lit)) if len(lit) > 1 else lit[0]
        lits.append(lit)
        label = rules[-1].conclusion.label if lit is not None and roll < 0.25 and rules else str(rng.choice(classes))
        rules.append(Rule(id=f"r{i + 1}", condition=cond, conclusion=Conclusion(label=label)))
    dft = Conclusion(label=str(rng.choice(classes))) if default else None
    rb = RuleBase(task="classification", target="y", classes=classes, features=FEATURES, rules=tuple(rules),
                  default=dft, semantics="first-hit")
    n = int(rng.integers(20, 70))
    X = pd.DataFrame({f: rng.choice(VALUES, n) for f in NUMERIC})
    X["c"] = pd.Series(rng.choice(np.array(["x", "y", "z", None], dtype=object), n), dtype=object)
    X = X[["a", "b", "c", "d"]]
    y = rng.choice(np.array(list(classes) + (["zz"] if rng.random() < 0.3 else [])), n)
    return rb, lits, X, y


def _truth(rb: RuleBase, X: pd.DataFrame):
    ev = engine.Evaluator(LiteralSchema(rb), engine.matrix(rb, X))
    return ev.true


def _conj(truth, lits, n) -> np.ndarray:
    out = np.ones(n, bool)
    for lit in lits:
        out &= truth(lit)
    return out


def _first_hit(matches, labels, default, n) -> np.ndarray:
    pred = np.full(n, default, dtype=object)
    open_ = np.ones(n, bool)
    for m, lab in zip(matches, labels):
        pred[m & open_] = lab
        open_ &= ~m
    return pred


def _reference_reduced_error(rb, lits, X, y):
    """Kept rule indices and, per kept rule, its kept conditions (None: kept as written)."""
    truth, n = _truth(rb, X), len(X)
    labels = [r.conclusion.label for r in rb.rules]
    default = rb.default.label if rb.default is not None else None
    keep = [list(lit) if lit is not None else None for lit in lits]
    alive = [True] * len(lits)

    def correct(keep, alive) -> int:
        ms, ls = [], []
        for i, r in enumerate(rb.rules):
            if alive[i]:
                ms.append(truth(r.condition) if keep[i] is None else _conj(truth, keep[i], n))
                ls.append(labels[i])
        return int((_first_hit(ms, ls, default, n) == y).sum())

    for i in range(len(lits)):
        if keep[i] is None:
            continue
        while len(keep[i]) > 1:
            base = correct(keep, alive)
            best, best_d = None, None
            for u in range(len(keep[i])):
                trial = list(keep)
                trial[i] = keep[i][:u] + keep[i][u + 1:]
                d = correct(trial, alive) - base
                if best_d is None or d > best_d:
                    best, best_d = u, d
            if best_d < 0:
                break
            keep[i] = keep[i][:best] + keep[i][best + 1:]
        without = alive[:i] + [False] + alive[i + 1:]
        if correct(keep, without) >= correct(keep, alive):
            alive = without
    return [(i, keep[i]) for i in range(len(lits)) if alive[i]]


@pytest.mark.parametrize("seed", range(60))
def test_reduced_error_is_greedy_first_hit_accuracy(seed):
    rb, lits, X, y = _case(seed, default=seed % 7 != 3)
    out = reduced_error(rb, X, y)
    want = _reference_reduced_error(rb, lits, X, y)
    assert [r.id for r in out.rules] == [rb.rules[i].id for i, _ in want]
    truth, n = _truth(rb, GRID), len(GRID)
    for r, (i, kept) in zip(out.rules, want):
        if kept is None:
            assert r.condition == rb.rules[i].condition
        else:
            assert truth(r.condition).tolist() == _conj(truth, kept, n).tolist(), (r.id, kept)
        assert r.conclusion == rb.rules[i].conclusion
    assert out.default == rb.default


def _reference_organize(rb, lits, X, y, positive=None, min_rules=0, mdl=False, w=0.5):
    """The rules in order, the default class, and per rule / the default the rows it decides. With
    ``mdl``, each class's rules go through prune's own ``_mdl_subset`` and ``_mdl_refine`` (pinned in
    test_prune_mutants_mdl.py) and the list through ``_shortest_list``."""
    truth, n = _truth(rb, X), len(X)
    classes = list(rb.classes)
    K = len(classes)
    yc = np.array([classes.index(v) if v in classes else -1 for v in y])
    pos = classes.index(positive) if positive is not None else None
    ctx = _context(rb, X, y) if mdl else None
    cands, seen = [], set()
    for i, r in enumerate(rb.rules):
        c = classes.index(r.conclusion.label)
        if pos is not None and c != pos:
            continue
        key = (c, frozenset(map(repr, lits[i]))) if lits[i] is not None else ("rule", i)
        if key in seen:
            continue
        seen.add(key)
        cands.append((r, c, truth(r.condition), _single_box(ctx, r) if mdl else None))
    by_class = {}
    for cd in cands:
        by_class.setdefault(cd[1], []).append(cd)
    if mdl:
        stats = _feature_stats(ctx)
        for c in by_class:
            by_class[c] = _mdl_refine(ctx, _mdl_subset(by_class[c], yc == c, stats, w), yc == c, stats, w)

    def fp(c):
        cov = np.zeros(n, bool)
        for cd in by_class[c]:
            cov |= cd[2]
        return int((cov & (yc != c)).sum())

    order = sorted(by_class, key=lambda c: (fp(c), c))
    ordered = [cd for c in order for cd in by_class[c]]
    cov = np.zeros(n, bool)
    for cd in ordered:
        cov |= cd[2]
    counts = [int(((yc == c) & ~cov).sum()) if c != pos else -1 for c in range(K)]
    overall = [int((yc == c).sum()) if c != pos else -1 for c in range(K)]
    if max(counts) <= 0:
        counts = overall
    default = max((c for c in range(K) if counts[c] == max(counts)), key=lambda c: (overall[c], -c))

    def errors(lst):
        pred = _first_hit([cd[2] for cd in lst], [cd[1] for cd in lst], default, n)
        return int((pred != yc).sum())

    current = errors(ordered)
    while len(ordered) > min_rules:
        trials = [(errors(ordered[:j] + ordered[j + 1:]), -count_literals(ordered[j][0].condition), -j)
                  for j in range(len(ordered))]
        best = min(trials)
        if best[0] > current:
            break
        current = best[0]
        del ordered[-best[2]]
    if mdl and pos is None:
        ordered, default = _shortest_list(ctx, by_class, order, ordered, default, stats, w, min_rules)
    open_ = np.ones(n, bool)
    decided = []
    for cd in ordered:
        decided.append(cd[2] & open_)
        open_ &= ~cd[2]
    return [(cd[0].condition, cd[1]) for cd in ordered], default, decided, open_, yc


def _dist(yc, rows, c, K):
    counts = np.bincount(yc[rows & (yc >= 0)], minlength=K).astype(float)
    if counts.sum() > 0:
        return tuple(float(v) for v in counts / counts.sum())
    return tuple(1.0 if k == c else 0.0 for k in range(K))


@pytest.mark.parametrize("seed", range(60))
def test_organize_is_c45rules_order_default_and_deletion(seed):
    _check_organize(1000 + seed, positive=seed % 5 == 1, min_rules=2 if seed % 5 == 2 else 0)


@pytest.mark.parametrize("seed", range(30))
def test_organize_with_mdl_chooses_subsets_then_the_shortest_list(seed):
    _check_organize(1100 + seed, positive=seed % 5 == 1, min_rules=2 if seed % 5 == 2 else 0, mdl=True,
                    w=(0.5, 1.0, 0.2)[seed % 3])


def _check_organize(seed, positive, min_rules, mdl=False, w=0.5):
    rb, lits, X, y = _case(seed)
    positive = rb.classes[seed % len(rb.classes)] if positive else None
    if mdl:
        out = organize(rb, X, y, positive=positive, min_rules=min_rules, mdl=True,
                       **({"theory_weight": w} if w != 0.5 else {}))
    else:  # the defaults of min_rules (0) and theory_weight used as well
        out = organize(rb, X, y, positive=positive, **({"min_rules": min_rules} if min_rules else {}))
    rules, default, decided, rest, yc = _reference_organize(rb, lits, X, y, positive, min_rules, mdl, w)
    K = len(rb.classes)
    assert [r.condition for r in out.rules] == [cond for cond, _ in rules]
    assert [r.id for r in out.rules] == [f"r{j + 1}" for j in range(len(rules))]
    for r, (_, c), rows in zip(out.rules, rules, decided):
        assert r.conclusion == Conclusion(label=rb.classes[c], distribution=_dist(yc, rows, c, K))
        assert r.stats == {}
    assert out.default == Conclusion(label=rb.classes[default], distribution=_dist(yc, rest, default, K))
    assert out.semantics == "first-hit"


def test_organize_keeps_every_rule_that_is_not_one_conjunction_and_names_a_bad_positive_class():
    rb, lits, X, y = _case(1003)
    two = (Or(items=(C("a", "<=", 1.5), C("b", ">", 2.5))), Or(items=(C("a", ">", 2.5), C("d", "<=", 0.5))))
    rules = tuple(Rule(id=f"n{i}", condition=cond, conclusion=Conclusion(label=rb.classes[0]))
                  for i, cond in enumerate(two))
    rb = rb.model_copy(update={"rules": rules})
    out = organize(rb, X, y, min_rules=2)
    assert {repr(r.condition) for r in out.rules} == {repr(c) for c in two}  # neither is a duplicate
    with pytest.raises(RulekitError, match=r"^positive class: label 'nope' is not one of the classes \("):
        organize(rb, X, y, positive="nope")


def _ab_rules(*rules, classes=("p", "q", "s"), semantics="first-hit", stats=None):
    return RuleBase(task="classification", target="y", classes=classes, features=FEATURES, semantics=semantics,
                    rules=tuple(Rule(id=f"r{i + 1}", condition=cond, conclusion=Conclusion(label=lab),
                                     stats=stats or {}) for i, (cond, lab) in enumerate(rules)),
                    default=Conclusion(label=classes[0]))


def _a_rows(*groups):
    """(count, a, label) groups -> X, y."""
    a = [v for n, v, _ in groups for _ in range(n)]
    X = pd.DataFrame({"a": a, "b": 0.0, "c": pd.Series(["x"] * len(a), dtype=object), "d": 0.0})
    return X, np.array([lab for n, _, lab in groups for _ in range(n)])


def test_the_default_class_when_a_class_has_no_rows_or_ties():
    low, high = C("a", "<=", 1.5), C("a", ">", 1.5)
    # every row covered, no row of the last class: the largest class overall
    X, y = _a_rows((3, 0.0, "p"), (2, 3.0, "q"))
    assert organize(_ab_rules((low, "p"), (high, "q")), X, y, min_rules=2).default.label == "p"
    # the uncovered rows show no row of the last class either
    X, y = _a_rows((3, 0.0, "p"), (2, 3.0, "q"), (1, 5.0, "p"))
    assert organize(_ab_rules((low, "p")), X, y, min_rules=1).default.label == "q"
    # a tie among the uncovered rows and overall: the earlier class
    X, y = _a_rows((2, 0.0, "p"), (2, 3.0, "s"), (2, 3.0, "q"))
    assert organize(_ab_rules((low, "p")), X, y, min_rules=1).default.label == "q"
    # the positive class is never the default, even when every row is of it
    X, y = _a_rows((3, 0.0, "p"), (2, 3.0, "p"))
    assert organize(_ab_rules((low, "p"), classes=("p", "q")), X, y, positive="p").default.label == "q"


def test_a_rule_deciding_one_row_of_another_class_concludes_that_rows_class():
    X, y = _a_rows((3, 0.0, "p"), (1, 3.0, "p"))
    rb = _ab_rules((C("a", "<=", 1.5), "p"), (C("a", ">", 1.5), "q"), classes=("p", "q"), semantics="vote",
                   stats={"covered": 3})
    out = organize(rb, X, y, min_rules=2)
    assert [r.conclusion for r in out.rules] == [Conclusion(label="p", distribution=(1.0, 0.0)),
                                                 Conclusion(label="q", distribution=(1.0, 0.0))]
    assert out.semantics == "first-hit" and all(r.stats == {} for r in out.rules)
