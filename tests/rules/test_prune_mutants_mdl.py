"""``rules/prune.py``'s minimum-description-length choices (C4.5rules' subset choice, issue #23: the
mutation run of prune.py found them pinned by no test; docs/testing.md lists the run):

- the bit counts: ``log2 C(n, k)``, bits to name a feature and a test on it, a rule's theory bits
  (its units' bits less ``log2 k!`` for their order), a class's cost (false positives and negatives
  as exceptions plus ``w`` times the theory);
- ``_mdl_subset``: the cheapest subset of one class's rules (every subset up to 10 rules, the first
  on a tie; hill climbing from the full set above that);
- ``_mdl_refine``: single conditions or whole rules dropped while the cost shrinks (the cheapest
  step first, a whole rule before a condition at equal cost), rules a widened rule subsumes going
  with it;
- ``_shortest_list``: C4.5rules' list, or another class as the default with the other classes'
  rules, when that is shorter by more than 1e-9 bits (and ``min_rules`` allows it).
Each is compared with a literal re-statement on random rules and data; the building blocks a
re-statement uses are pinned by their own tests here and in test_prune_mutants_units.py.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rulekit.ir.model import Feature
from rulekit.rules.base import And, Compare, Conclusion, Or, Rule, RuleBase
from rulekit.rules.boxes import Box, count_literals
from rulekit.rules.prune import (_class_cost, _context, _delete_rules, _errors, _feature_stats, _log2_binom,
                                 _mdl_refine, _mdl_subset, _shortest_list, _single_box, _theory_bits, _truths,
                                 box_of, units_of)
from tests.rules.test_prune_mutants_passes import FEATURES, _case


def _lb(n: int, k: int) -> float:
    return math.log2(math.comb(n, k)) if 0 <= k <= n else 0.0


def test_log2_binom_is_log2_of_n_choose_k():
    for n in range(0, 40):
        for k in range(-2, n + 3):
            assert _log2_binom(n, k) == pytest.approx(_lb(n, k), rel=1e-12, abs=1e-9), (n, k)
    assert _log2_binom(1000, 500) == pytest.approx(_lb(1000, 500), rel=1e-12)


def test_feature_stats_name_a_feature_and_a_test():
    feats = (Feature(name="a"), Feature(name="b"), Feature(name="c", kind="nominal", domain=("x", "y", "z")),
             Feature(name="d"), Feature(name="e", kind="nominal", domain=("only",)),
             Feature(name="f"), Feature(name="g", kind="nominal", domain=("u", "v", "w", "x", "y")))
    rb = RuleBase(task="classification", target="y", classes=("p", "q"), features=feats, rules=(),
                  default=Conclusion(label="p"), semantics="first-hit")
    X = pd.DataFrame({"a": [1.0, 2.0, 2.0, 3.0, np.nan], "b": [5.0] * 5, "c": pd.Series(["x"] * 5, dtype=object),
                      "d": [np.nan] * 5, "e": pd.Series(["only"] * 5, dtype=object),
                      "f": [0.0, 1.0, 2.0, 3.0, 4.0], "g": pd.Series(["u"] * 5, dtype=object)})
    stats = _feature_stats(_context(rb, X, np.array(["p"] * 5)))
    assert stats == pytest.approx({"feature": math.log2(7), 0: math.log2(3) + 1, 1: 2.0, 2: math.log2(3),
                                   3: 2.0, 4: 1.0, 5: math.log2(5) + 1, 6: math.log2(5)}, rel=1e-15)
    one = RuleBase(task="classification", target="y", classes=("p", "q"), features=feats[:1], rules=(),
                   default=Conclusion(label="p"), semantics="first-hit")
    assert _feature_stats(_context(one, X[["a"]], np.array(["p"] * 5)))["feature"] == 1.0


def test_theory_bits_sum_the_units_less_their_order():
    stats = {"feature": 3.0, 0: 2.5, 1: 4.0}
    rb, lits, X, y = _case(7)
    ctx = _context(rb, X, y)
    assert _theory_bits(None, stats) == 64.0
    assert _theory_bits(Box({}), stats) == 0.0
    for r in rb.rules:
        box = _single_box(ctx, r)
        if box is None:
            continue
        units = units_of(box)
        want = sum(3.0 + stats.get(u.key, 8.0) for u in units) - math.log2(math.factorial(len(units)))
        assert _theory_bits(box, stats) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_class_cost_is_exceptions_plus_weighted_theory():
    rng = np.random.default_rng(0)
    for _ in range(50):
        N = int(rng.integers(1, 40))
        good = rng.random(N) < 0.5
        k = int(rng.integers(0, 4))
        matches = [rng.random(N) < 0.3 for _ in range(k)]
        theory = [float(rng.uniform(1, 30)) for _ in range(k)]
        w = float(rng.choice([0.5, 1.0, 0.25]))
        cov = np.zeros(N, bool)
        for m in matches:
            cov |= m
        r, fp, fn = int(cov.sum()), int((cov & ~good).sum()), int((~cov & good).sum())
        want = _lb(r, fp) + _lb(N - r, fn) + w * sum(theory)
        assert _class_cost(matches, theory, good, w) == pytest.approx(want, rel=1e-12, abs=1e-9)


def _class_lists(seed: int, n_rules: int | None = None):
    """(ctx, stats, {class: candidate list as organize builds it})."""
    rb, lits, X, y = _case(seed)
    if n_rules is not None:  # many rules of one class: the hill climbing
        more = [_case(seed * 31 + j)[0].rules for j in range(6)]
        rules = [r for rs in more for r in rs][:n_rules]
        rules = [Rule(id=f"m{i}", condition=r.condition, conclusion=Conclusion(label=rb.classes[0]))
                 for i, r in enumerate(rules)]
        rb = rb.model_copy(update={"rules": tuple(rules)})
    return _lists_of(rb, X, y)


def _lists_of(rb, X, y):
    ctx = _context(rb, X, y)
    stats = _feature_stats(ctx)
    by_class: dict = {}
    seen = set()
    for r in rb.rules:
        c = rb.classes.index(r.conclusion.label)
        box = _single_box(ctx, r)
        sig = (c, box.signature() if box is not None else id(r))
        if sig in seen:
            continue
        seen.add(sig)
        by_class.setdefault(c, []).append((r, c, ctx.ev.true(r.condition), box))
    return ctx, stats, by_class


def _cost(lst, sel, good, stats, w):
    return _class_cost([cd[2] for cd, s in zip(lst, sel) if s],
                       [_theory_bits(cd[3], stats) for cd, s in zip(lst, sel) if s], good, w)


def _reference_subset(lst, good, stats, w):
    k = len(lst)
    if k <= 1:
        return list(lst)
    if k <= 10:
        sels = [tuple(bool(b >> j & 1) for j in range(k)) for b in range(1, 1 << k)]
        costs = [_cost(lst, s, good, stats, w) for s in sels]
        lo = min(costs)
        best = sels[[c <= lo + 1e-9 for c in costs].index(True)]
    else:
        best = (True,) * k
        best_c = _cost(lst, best, good, stats, w)
        improved = True
        while improved:
            improved = False
            for j in range(k):
                cand = best[:j] + (not best[j],) + best[j + 1:]
                c = _cost(lst, cand, good, stats, w)
                if c < best_c - 1e-9:
                    best, best_c, improved = cand, c, True
    return [cd for cd, s in zip(lst, best) if s]


@pytest.mark.parametrize("seed", range(30))
def test_mdl_subset_is_the_cheapest_subset(seed):
    ctx, stats, by_class = _class_lists(3000 + seed, n_rules=14 if seed % 6 == 5 else None)
    w = (0.5, 1.0, 0.2)[seed % 3]
    for c, lst in by_class.items():
        got = _mdl_subset(lst, ctx.yc == c, stats, w)
        want = _reference_subset(lst, ctx.yc == c, stats, w)
        assert [cd[0].id for cd in got] == [cd[0].id for cd in want]


def _reference_refine(ctx, lst, good, stats, w):
    """(rule id, kept unit indices or None) per rule left."""
    units = [units_of(cd[3]) if cd[3] is not None else None for cd in lst]
    keep = [[True] * len(u) if u is not None else None for u in units]
    alive = [True] * len(lst)
    n = good.size

    def state_cost(keep, alive):
        ms, ts = [], []
        for j, cd in enumerate(lst):
            if not alive[j]:
                continue
            if units[j] is None:
                ms.append(cd[2])
                ts.append(_theory_bits(None, stats))
                continue
            kept = [u for u, k in zip(units[j], keep[j]) if k]
            T = _truths(ctx, kept)
            ms.append(T.all(axis=0) if len(kept) else np.ones(n, bool))
            ts.append(_theory_bits(box_of(cd[3], kept), stats))
        return _class_cost(ms, ts, good, w)

    def box_now(j, keep):
        return box_of(lst[j][3], [u for u, k in zip(units[j], keep[j]) if k])

    current = state_cost(keep, alive)
    while True:
        best = None
        for j in range(len(lst)):
            if not alive[j]:
                continue
            a2 = alive[:j] + [False] + alive[j + 1:]
            c = state_cost(keep, a2)
            if best is None or c < best[0]:
                best = (c, keep, a2)
            if units[j] is None:
                continue
            for u in range(len(units[j])):
                if not keep[j][u]:
                    continue
                k2 = [list(k) if k is not None else None for k in keep]
                k2[j][u] = False
                wide = box_now(j, k2)
                a3 = [a and (i == j or lst[i][3] is None or not wide.subsumes(box_now(i, keep)))
                      for i, a in enumerate(alive)]
                c = state_cost(k2, a3)
                if c < best[0]:
                    best = (c, k2, a3)
        if best is None or best[0] >= current - 1e-9:
            break
        current, keep, alive = best
    return [(cd[0].id, None if units[j] is None or all(keep[j]) else [i for i, k in enumerate(keep[j]) if k])
            for j, cd in enumerate(lst) if alive[j]]


@pytest.mark.parametrize(("seed", "w"), [(s, (0.5, 1.0, 0.2)[s % 3]) for s in range(30)] + [(13, 0.2)])
def test_mdl_refine_drops_while_the_description_shrinks(seed, w):
    _check_refine(*_class_lists(4000 + seed), w)


def _check_refine(ctx, stats, by_class, w):
    assert _mdl_refine(ctx, [], np.ones(ctx.ev.n, bool), stats, w) == []
    for c, lst in by_class.items():
        good = ctx.yc == c
        got = _mdl_refine(ctx, lst, good, stats, w)
        want = _reference_refine(ctx, lst, good, stats, w)
        assert [cd[0].id for cd in got] == [i for i, _ in want]
        for cd, (rid, kept) in zip(got, want):
            src = next(x for x in lst if x[0].id == rid)
            if kept is None:
                assert cd is src
                continue
            units = units_of(src[3])
            box = box_of(src[3], [units[i] for i in kept])
            assert cd[3] == box and cd[1] == c
            T = _truths(ctx, [units[i] for i in kept])
            assert cd[2].tolist() == (T.all(axis=0) if kept else np.ones(ctx.ev.n, bool)).tolist()
            assert ctx.ev.true(cd[0].condition).tolist() == cd[2].tolist()
            assert cd[0].conclusion == src[0].conclusion and cd[0].id == src[0].id
    return {c: [cd[0] for cd in _mdl_refine(ctx, lst, ctx.yc == c, stats, w)] for c, lst in by_class.items()}


def C(f, op, v):
    return Compare(feature=f, op=op, value=v)


def _p_rules(*conds):
    return RuleBase(task="classification", target="y", classes=("p", "q"), features=FEATURES,
                    rules=tuple(Rule(id=f"r{i + 1}", condition=c, conclusion=Conclusion(label="p"))
                                for i, c in enumerate(conds)), default=Conclusion(label="q"), semantics="first-hit")


def _rows(*groups):
    """(count, a, b, d, label) groups -> X, y."""
    X = pd.DataFrame([(a, b, "x", d) for n, a, b, d, _ in groups for _ in range(n)], columns=["a", "b", "c", "d"])
    return X, np.array([lab for n, *_, lab in groups for _ in range(n)])


def test_mdl_refine_looks_past_a_rule_that_is_not_one_conjunction():
    rb = _p_rules(Or(items=(C("a", "<=", 0.5), C("b", ">", 3.5))), And(items=(C("d", ">", 2.5), C("b", ">", 1.5))))
    X, y = _rows((60, 0.0, 0.0, 0.0, "p"), (20, 2.0, 2.0, 3.0, "p"), (40, 3.0, 1.0, 0.0, "q"))
    out = _check_refine(*_lists_of(rb, X, y), 0.5)[0]
    assert [r.id for r in out] == ["r1", "r2"]
    assert out[0].condition == rb.rules[0].condition
    assert count_literals(out[1].condition) == 1  # b > 1.5 says nothing on these rows


def test_mdl_refine_drops_the_first_of_two_equally_cheap_rules():
    rb = _p_rules(C("a", "<=", 1.5), C("b", "<=", 1.5))  # the same rows: a == b everywhere
    X, y = _rows((30, 0.0, 0.0, 0.0, "p"), (10, 1.0, 1.0, 0.0, "p"), (30, 3.0, 3.0, 0.0, "q"), (3, 2.0, 2.0, 0.0, "p"))
    out = _check_refine(*_lists_of(rb, X, y), 0.5)[0]
    assert [r.id for r in out] == ["r2"]


def _reference_shortest(ctx, by_class, order, ordered, default, stats, w, min_rules):
    n, K = ctx.ev.n, len(ctx.classes)

    def bits(lst, d):
        e = _errors(ctx, lst, d)
        return _lb(n, e) + e * math.log2(max(1, K - 1)) + w * sum(_theory_bits(cd[3], stats) for cd in lst)

    best = (bits(ordered, default), ordered, default)
    counts = [int((ctx.yc == c).sum()) for c in range(K)]
    for d in sorted(range(K), key=lambda c: (-counts[c], c)):
        lst = _delete_rules(ctx, [cd for c in order if c != d for cd in by_class[c]], d, min_rules)
        b = bits(lst, d)
        if b < best[0] - 1e-9 and (len(lst) >= min_rules or len(lst) >= len(best[1])):
            best = (b, lst, d)
    return best[1], best[2]


def _check_shortest(seed, w, min_rules, backwards):
    ctx, stats, by_class = _class_lists(5000 + seed)
    order = sorted(by_class)[::-1] if backwards else sorted(by_class)
    ordered = [cd for c in order for cd in by_class[c]]
    default = int(seed % len(ctx.classes))
    got = _shortest_list(ctx, by_class, order, ordered, default, stats, w, min_rules) if min_rules else \
        _shortest_list(ctx, by_class, order, ordered, default, stats, w)
    want = _reference_shortest(ctx, by_class, order, ordered, default, stats, w, min_rules)
    assert got[1] == want[1]
    assert [cd[0].id for cd in got[0]] == [cd[0].id for cd in want[0]]


@pytest.mark.parametrize("seed", range(40))
def test_shortest_list_may_make_another_class_the_default(seed):
    _check_shortest(seed, (0.5, 1.0, 0.2, 2.0)[seed % 4], (0, 0, 1, 3)[seed % 4], seed % 2)


def test_a_shorter_list_below_min_rules_is_taken_only_if_no_shorter_than_the_best():
    _check_shortest(15, 0.5, 4, False)  # a candidate of fewer than 4 rules, as long as the best so far


@pytest.mark.parametrize("seed", [7002, 7004])
def test_mdl_subset_of_ten_rules_tries_every_subset(seed):
    ctx, stats, by_class = _class_lists(seed, n_rules=10)
    lst = by_class[0]
    assert len(lst) == 10
    good = ctx.yc == 0
    got = _mdl_subset(lst, good, stats, 0.5)
    assert [cd[0].id for cd in got] == [cd[0].id for cd in _reference_subset(lst, good, stats, 0.5)]
    many = _mdl_subset(lst + [lst[0]], good, stats, 0.5)  # 11: hill climbing, which stops elsewhere here
    assert [cd[0].id for cd in many] != [cd[0].id for cd in got]
