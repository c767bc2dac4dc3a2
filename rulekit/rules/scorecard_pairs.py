"""Two-test rules for a scorecard: conjunctions of the strongest single tests (``x <= a and z > b``).

A sum of one-test rules cannot say "both": on data whose classes depend on a combination of two
features (wine's class 1 against the rest) a card adds and subtracts many one-test rules to
approximate one cell. Each round the learner also scores the conjunctions of the strongest
``<=`` test of each of the :data:`PAIR_FEATURES` best features (numeric, no missing value), both
sides of each cut (``x <= a`` and ``x > a``): 4 directions x 6 pairs of features. A conjunction is
taken only when its score (the square root of the Newton gain, as every test's) is above
:data:`PAIR_BAR` times the best single test's: its gain at least 2.89 times the single's, so that it
is worth its two literals where two one-test rules would not do as well; its two cuts are then
moved, each with the other held, to the best cut of the whole feature (:func:`refined`).
Measured on the bench's four real data sets, 16 cv seeds (docs/rules.md, session 12): a lower bar
(sqrt 2, gain 2x) grew cards of more literals (iris +2.8) and lower accuracy (iris -0.75 pt); a bar
of 2 (gain 4x) never took a pair.
"""

from __future__ import annotations

import itertools

import numpy as np

PAIR_FEATURES = 4  # the best features whose strongest cuts are paired
PAIR_BAR = 1.7  # a conjunction's score over the best single test's (gain 2.89x)
PAIR_PASSES = 4  # rounds of moving each cut with the other held (two sufficed on the data measured)


def is_pair(test: tuple) -> bool:
    """Whether a candidate test is a conjunction ``("and", test_a, test_b)``."""
    return isinstance(test[0], str)


def parts(test: tuple) -> tuple:
    """The single tests ``(feature, op, value)`` a candidate test is made of: two for a conjunction."""
    return test[1:] if is_pair(test) else (test,)


def literals(test: tuple) -> int:
    """The literals a test writes: 2 for a conjunction, else 1."""
    return len(parts(test))


def strongest(cands, sc: np.ndarray) -> list[int]:
    """The indices of the best-scoring ``<=`` test of each of the :data:`PAIR_FEATURES` best numeric
    features with no missing value (``sc``: the candidates' scores, taken tests below 0)."""
    best: list[tuple[float, int]] = []
    for kind, start, data in cands.blocks:
        if kind != "numeric" or not cands.complete[data[0]]:
            continue
        size = data[4]["<="].size
        if size:
            i = start + int(np.argmax(sc[start:start + size]))
            best.append((float(sc[i]), i))
    return [i for _, i in sorted(best, reverse=True)[:PAIR_FEATURES]]


def conjunctions(cands, sc: np.ndarray) -> tuple[list[tuple], np.ndarray, list[tuple[int, int]]]:
    """The conjunction tests of the strongest cuts (:func:`strongest`), both sides of each, that hold
    and fail on at least ``cands.min_rows`` rows, their indicators (rows x tests) and, per test, the
    indices of the two single tests it was made of. The lower feature's test comes first: the order of
    :func:`strongest` changes between rounds, and a pair must be the same test in either order."""
    tests, columns, sources = [], [], []
    for a, b in itertools.combinations(strongest(cands, sc), 2):
        (ja, _, ta), (jb, _, tb) = cands.tests[a], cands.tests[b]
        ia, ib = cands.indicator(a), cands.indicator(b)
        for (xa, oa), (xb, ob) in itertools.product([(ia, "<="), (1.0 - ia, ">")], [(ib, "<="), (1.0 - ib, ">")]):
            hit = xa * xb
            held = int(hit.sum())
            if cands.min_rows <= held <= cands.n - cands.min_rows:
                first, second, made_of = (ja, oa, ta), (jb, ob, tb), (a, b)
                if jb < ja:  # one order per pair (the lower feature first): 'b and a' is no new rule
                    first, second, made_of = second, first, (b, a)
                tests.append(("and", first, second))
                columns.append(hit)
                sources.append(made_of)
    return tests, (np.column_stack(columns) if columns else np.zeros((cands.n, 0))), sources


def refined(cands, pair: tuple, sources: tuple[int, int], GW: np.ndarray, lam: float, score, cut) -> tuple:
    """``pair`` with each cut in turn moved to the best-scoring cut of its whole feature, the other
    test held, until neither moves (at most :data:`PAIR_PASSES` passes), where the conjunction still
    holds and fails on ``cands.min_rows`` rows. The pair starts from the single tests' strongest
    cuts, which need not be where the conjunction is best (in an XOR cell they are noise). ``score``:
    the Newton score of per-test sums (scorecard._score); ``cut``: the threshold between two values
    (scorecard.short_cut)."""
    parts = [pair[1], pair[2]]
    total = GW.sum(axis=0)
    for _ in range(PAIR_PASSES):
        moved = False
        for side, i in enumerate(sources):
            j, order, v, ops, _ = cands.blocks[cands.where[i][0]][2]
            fine = ops["<="]
            if fine.size <= 1:
                continue
            jo, oo, to = parts[1 - side]
            col = cands.M[order, jo]
            other = (col <= to if oo == "<=" else col > to).astype(np.float64)
            cs = np.cumsum(np.column_stack([GW[order] * other[:, None], other]), axis=0)
            op = parts[side][1]
            sums = cs[fine] if op == "<=" else cs[-1] - cs[fine]
            sc = score(sums[:, :-1], total, lam)
            held = sums[:, -1]
            sc[(held < cands.min_rows) | (held > cands.n - cands.min_rows)] = -1.0
            p = int(fine[int(np.argmax(sc))])
            new = (j, op, cut(float(v[p]), float(v[p + 1])))
            if sc.max() >= 0 and new != parts[side]:
                parts[side], moved = new, True
        if not moved:
            break
    return ("and", parts[0], parts[1])
