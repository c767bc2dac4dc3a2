"""Sequential covering (IREP*/RIPPER family): rules learned directly from data, one at a time.

Seed 002: "rule induction is depth-first; one rule at a time". Classes are taken from the rarest to
the most frequent; for each, rules are grown on two thirds of the remaining cases by FOIL's
information gain (tests ``x <= t``, ``x > t``, ``f = v`` and ``f != v``: without ``!=`` a negated
condition takes one rule per other value), pruned on the other third (dropping the final conditions
that maximise (p - n) / (p + n)), and added while their precision on the pruning third stays above
one half and the description length stays within 64 bits of the best seen. Covered cases are removed
and the next rule is learned. Each class's rule set is then cut to its minimum description length on
all the training data (C4.5rules' measure: the exceptions plus half the theory bits; whole rules and
single conditions can go), which drops the rules that only fit noise. Before that cut, RIPPER's
optimisation (``optimize`` passes, 2 by default as in RIPPER2) weighs each rule against a
replacement and a revision, pruned for the whole rule set's error on held-out cases, by description
length. The most frequent class is the default. The result is an ordinary first-hit
:class:`~rulekit.rules.base.RuleBase`.

    >>> from rulekit.rules.induction import RuleInducer
    >>> est = RuleInducer(random_state=0).fit(X, y)          # doctest: +SKIP
    >>> est.rule_base_.predict(X)                             # doctest: +SKIP
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.rules import engine, induce_cuts
from rulekit.rules.base import And, Compare, Conclusion, Rule, RuleBase
from rulekit.rules.boxes import no_gc
from rulekit.rules.estimator import RuleBaseClassifier
from rulekit.rules.induce_cuts import foil as _foil
from rulekit.rules.simplify import simplify
from rulekit.rules.stats import class_codes
from rulekit.rules.vote import round_weight

NOMINAL_TESTS = ("equal", "negated")


class RuleInducer(RuleBaseClassifier):
    """A sequential-covering rule learner (IREP* growth and pruning, MDL clean-up).

    ``positive``      learn this class's rules first (binary: only its rules, the other class is the
                      default); by default classes go from the rarest to the most frequent.
    ``prune_ratio``   share of the cases held out to prune each rule (IREP's third).
    ``max_thresholds`` numeric split candidates per feature and step (quantiles of the covered cases),
                      the best then refined among the values between its neighbours (induce_cuts).
    ``mdl``           cut each class's rules to their minimum description length afterwards.
    ``nominal_features`` ``"auto"`` or the names of the columns to treat as nominal.
    ``optimize``      RIPPER's optimisation passes over each class's rules (0: IREP* alone).
    ``nominal_tests`` tests grown on nominal features: ``"negated"`` (``f = v`` and ``f != v``, chosen
                      by the same gain) or ``"equal"`` (``f = v`` only, as JRip: a ``f != v`` concept
                      then takes one rule per other value).
    """

    def __init__(self, *, positive: Any = None, prune_ratio: float = 1 / 3, max_thresholds: int = 48,
                 max_rules: int = 64, mdl: bool = True, theory_weight: float = 0.5,
                 nominal_features: Any = "auto", random_state: Any = 0, optimize: int = 2,
                 nominal_tests: str = "negated"):
        self.positive = positive
        self.prune_ratio = prune_ratio
        self.max_thresholds = max_thresholds
        self.max_rules = max_rules
        self.mdl = mdl
        self.theory_weight = theory_weight
        self.nominal_features = nominal_features
        self.random_state = random_state
        self.optimize = optimize
        self.nominal_tests = nominal_tests

    # --- fit --------------------------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> RuleInducer:
        if self.nominal_tests not in NOMINAL_TESTS:
            raise RulekitError(f"nominal_tests must be one of {', '.join(NOMINAL_TESTS)}, not {self.nominal_tests!r}")
        feats, labels, classes = self._read(X, y, "rule induction")
        shell = RuleBase(name="induced", task="classification", target=str(getattr(y, "name", None) or "target"),
                         classes=tuple(classes), features=tuple(feats), precision="float64")
        M = engine.matrix(shell, X)
        yc = class_codes(labels, classes)
        with no_gc():
            rb = _induce(shell, M, yc, self)
        return self._fitted(rb, classes, feats)


# --- the algorithm ----------------------------------------------------------------------------------------


class _Data:
    """The training matrix with the literal tests and their description lengths.

    Literals are ``(column, op, value)``: numeric ``<=``/``>`` with a cut, nominal ``=``/``!=`` with a
    domain code. ``!=`` holds for a value outside the domain and not for a missing one, as in the
    rule base."""

    def __init__(self, rb: RuleBase, M: np.ndarray, yc: np.ndarray, max_thresholds: int,
                 nominal_tests: str = "negated"):
        self.rb = rb
        self.nominal_tests = nominal_tests
        self.M = M
        self.yc = yc
        self.feats = list(rb.features)
        self.F = len(self.feats)
        self.max_thresholds = max_thresholds
        self.bits_feature = math.log2(max(2, self.F))
        self.bits = []
        for j, f in enumerate(self.feats):
            if f.kind == "nominal":
                self.bits.append(math.log2(max(2, len(f.domain or ()))))
            else:
                col = M[:, j]
                self.bits.append(math.log2(max(2, np.unique(col[~np.isnan(col)]).size)) + 1.0)

    def literal_truth(self, lit: tuple, rows: np.ndarray) -> np.ndarray:
        j, op, v = lit
        x = self.M[rows, j]
        if op == "=":
            return x == v
        if op == "!=":
            return (x != v) & ~np.isnan(x)
        if op == "<=":
            return x <= v
        return x > v

    def literal_bits(self, lit: tuple) -> float:
        """Bits of one literal: the feature, then its cut and side, or its value and (when ``!=`` may
        be grown) one bit for ``=`` or ``!=``."""
        j, op, _ = lit
        return self.bits_feature + self.bits[j] + (1.0 if op in ("=", "!=") and self.nominal_tests != "equal" else 0.0)

    def theory_bits(self, rule: list[tuple]) -> float:
        k = len(rule)
        return sum(self.literal_bits(lit) for lit in rule) - math.lgamma(k + 1) / math.log(2)


def _induce(shell: RuleBase, M: np.ndarray, yc: np.ndarray, est: RuleInducer) -> RuleBase:
    data = _Data(shell, M, yc, est.max_thresholds, est.nominal_tests)
    rng = np.random.default_rng(est.random_state if isinstance(est.random_state, (int, np.integer)) else None)
    K = len(shell.classes)
    counts = np.bincount(yc, minlength=K)
    order = sorted(range(K), key=lambda c: (counts[c], c))
    if est.positive is not None:
        pos_c = int(class_codes([est.positive], list(shell.classes))[0])
        if pos_c < 0:
            raise RulekitError(f"positive class {est.positive!r} is not one of the labels")
        order = [pos_c] + [c for c in order if c != pos_c]
    default = order[-1]
    remaining = np.arange(M.shape[0])
    learned: list[tuple[int, list[tuple]]] = []
    for c in order[:-1]:
        pos = remaining[yc[remaining] == c]
        neg = remaining[yc[remaining] != c]
        if pos.size == 0:
            continue
        rules = _learn_class(data, pos, neg, rng, est)
        for _ in range(est.optimize):
            if not rules:
                break
            rules = _optimize(data, rules, pos, neg, rng, est)
        if est.mdl and rules:
            rules = _mdl_cut(data, rules, pos, neg, est.theory_weight)
        learned.extend((c, r) for r in rules)
        remaining = remaining[yc[remaining] != c]
    return _to_rule_base(shell, data, learned, default)


def _learn_class(data: _Data, pos: np.ndarray, neg: np.ndarray, rng, est: RuleInducer) -> list[list[tuple]]:
    rules: list[list[tuple]] = []
    P, N = pos, neg
    best_dl = math.inf
    total_pos, total_neg = pos.size, neg.size
    covered_pos = np.zeros(0, np.int64)
    covered_neg = np.zeros(0, np.int64)
    theory = 0.0
    while P.size and len(rules) < est.max_rules:
        Pg, Pp = _split(P, est.prune_ratio, rng)
        Ng, Np = _split(N, est.prune_ratio, rng)
        rule = _settle(data, _grow(data, Pg, Ng), (Pg, Ng), (Pg, Ng))  # pruning rows unseen until pruned
        if not rule:
            break
        rule = _prune_rule(data, rule, Pp, Np) if Pp.size + Np.size else rule
        rule = _settle(data, rule, (Pg, Ng), (P, N))
        p_cov = int(_covers(data, rule, Pp).sum())
        n_cov = int(_covers(data, rule, Np).sum())
        if (p_cov + n_cov and p_cov <= n_cov) or (p_cov + n_cov == 0 and Pp.size + Np.size >= 20):
            break  # IREP*: a rule no better than a coin on unseen cases ends the class
        cp = P[_covers(data, rule, P)]
        cn = N[_covers(data, rule, N)]
        if cp.size == 0:
            break
        covered_pos = np.concatenate([covered_pos, cp])
        covered_neg = np.concatenate([covered_neg, cn])
        theory += data.theory_bits(rule)
        r = covered_pos.size + covered_neg.size
        fn = total_pos - covered_pos.size
        dl = _log2_binom(r, covered_neg.size) + _log2_binom(total_pos + total_neg - r, fn) + est.theory_weight * theory
        if dl > best_dl + 64:
            break
        best_dl = min(best_dl, dl)
        rules.append(rule)
        P = np.setdiff1d(P, cp, assume_unique=True)
        N = np.setdiff1d(N, cn, assume_unique=True)
    return rules


def _optimize(data: _Data, rules: list[list[tuple]], pos: np.ndarray, neg: np.ndarray, rng,
              est: RuleInducer) -> list[list[tuple]]:
    """RIPPER's optimisation pass: each rule against a replacement grown from scratch and a revision
    grown from the rule itself, both pruned for the error of the whole rule set on held-out cases;
    the variant giving the shortest description of the class wins. Then positives left uncovered
    get new rules (IREP*)."""
    rules = [list(r) for r in rules]
    w = est.theory_weight
    for i in range(len(rules)):
        Pg, Pp = _split(pos, est.prune_ratio, rng)
        Ng, Np = _split(neg, est.prune_ratio, rng)
        others = rules[:i] + rules[i + 1:]
        variants = [rules[i]]
        grow, rows = (Pg, Ng), (pos, neg)
        rep = _grow(data, Pg, Ng)
        if rep:
            variants.append(_settle(data, _prune_in_set(data, others, rep, Pp, Np), grow, rows))
        cp, cn = _covers(data, rules[i], Pg), _covers(data, rules[i], Ng)
        rev = rules[i] + _grow(data, Pg[cp], Ng[cn])
        if len(rev) > len(rules[i]):
            variants.append(_settle(data, _prune_in_set(data, others, rev, Pp, Np), grow, rows))
        costs = [_dl(data, others[:i] + [v] + others[i:], pos, neg, w) for v in variants]
        rules[i] = variants[int(np.argmin(costs))]
    covered = np.zeros(pos.size, bool)
    for r in rules:
        covered |= _covers(data, r, pos)
    if (~covered).any():
        rules += _learn_class(data, pos[~covered], neg, rng, est)
    return rules


def _settle(data: _Data, rule: list[tuple], grow: tuple, rows: tuple) -> list[tuple]:
    """``rule`` with its numeric cuts where the classes change (:func:`rulekit.rules.induce_cuts.settle`)."""
    return induce_cuts.settle(data, rule, grow, rows) if rule else rule


def _prune_in_set(data: _Data, others: list[list[tuple]], rule: list[tuple], Pp: np.ndarray,
                  Np: np.ndarray) -> list[tuple]:
    """The prefix of ``rule`` with the fewest errors of the whole rule set on the pruning cases."""
    base_p = np.zeros(Pp.size, bool)
    base_n = np.zeros(Np.size, bool)
    for r in others:
        base_p |= _covers(data, r, Pp)
        base_n |= _covers(data, r, Np)
    okp = np.ones(Pp.size, bool)
    okn = np.ones(Np.size, bool)
    best_k, best_e = len(rule), None
    errs = []
    for lit in rule:
        okp &= data.literal_truth(lit, Pp)
        okn &= data.literal_truth(lit, Np)
        errs.append(int((~(base_p | okp)).sum() + (base_n | okn).sum()))
    for k in range(len(rule), 0, -1):
        if best_e is None or errs[k - 1] <= best_e:
            best_k, best_e = k, errs[k - 1]
    return rule[:best_k]


def _dl(data: _Data, rules: list[list[tuple]], pos: np.ndarray, neg: np.ndarray, w: float) -> float:
    """Description length of a class's rules: exceptions plus ``w`` times the theory bits."""
    cov_p = np.zeros(pos.size, bool)
    cov_n = np.zeros(neg.size, bool)
    for r in rules:
        cov_p |= _covers(data, r, pos)
        cov_n |= _covers(data, r, neg)
    r_ = int(cov_p.sum() + cov_n.sum())
    fn = int((~cov_p).sum())
    N = pos.size + neg.size
    return (_log2_binom(r_, int(cov_n.sum())) + _log2_binom(N - r_, fn)
            + w * sum(data.theory_bits(r) for r in rules))


def _split(idx: np.ndarray, ratio: float, rng) -> tuple[np.ndarray, np.ndarray]:
    if idx.size < 3 or ratio <= 0:
        return idx, idx[:0]
    perm = rng.permutation(idx)
    k = int(round(idx.size * (1 - ratio)))
    k = min(max(k, 1), idx.size - 1)
    return np.sort(perm[:k]), np.sort(perm[k:])


def _covers(data: _Data, rule: list[tuple], rows: np.ndarray) -> np.ndarray:
    ok = np.ones(rows.size, bool)
    for lit in rule:
        ok &= data.literal_truth(lit, rows)
    return ok


def _grow(data: _Data, P: np.ndarray, N: np.ndarray) -> list[tuple]:
    """Add the literal with the best FOIL gain until no negative is covered (or nothing helps)."""
    rule: list[tuple] = []
    while P.size and N.size:
        best = None
        p0, n0 = P.size, N.size
        for j, f in enumerate(data.feats):
            xp, xn = data.M[P, j], data.M[N, j]
            if f.kind == "nominal":
                cand = _nominal_candidates(data, j, xp, xn, p0, n0)
            else:
                cand = _numeric_candidates(data, j, xp, xn, p0, n0)
            for gain, lit, pc, nc in cand:
                if gain > 0 and (best is None or gain > best[0] + 1e-12):
                    best = (gain, lit)
        if best is None:
            break
        lit = best[1]
        rule.append(lit)
        P = P[data.literal_truth(lit, P)]
        N = N[data.literal_truth(lit, N)]
    return rule


def _nominal_candidates(data: _Data, j: int, xp: np.ndarray, xn: np.ndarray, p0: float, n0: float):
    """The best ``f = v`` and, unless only ``=`` is asked for, the best ``f != v`` by the same FOIL gain."""
    size = len(data.feats[j].domain or ())
    okp, okn = ~np.isnan(xp) & (xp >= 0), ~np.isnan(xn) & (xn >= 0)
    cp = np.bincount(xp[okp].astype(np.int64), minlength=size).astype(float)
    cn = np.bincount(xn[okn].astype(np.int64), minlength=size).astype(float)
    g = _foil(p0, n0, cp, cn)
    v = int(np.argmax(g))
    out = [(g[v], (j, "=", float(v)), cp[v], cn[v])]
    if data.nominal_tests == "equal" or size < 3:
        return out  # with two values f != a is f = b
    # != holds for every value present other than v (codes outside the domain included)
    kp, kn = float((~np.isnan(xp)).sum()), float((~np.isnan(xn)).sum())
    ne_p, ne_n = kp - cp, kn - cn
    g = _foil(p0, n0, ne_p, ne_n)
    v = int(np.argmax(g))
    out.append((g[v], (j, "!=", float(v)), ne_p[v], ne_n[v]))
    return out


def _numeric_candidates(data: _Data, j: int, xp: np.ndarray, xn: np.ndarray, p0: float, n0: float):
    """The best ``x <= t`` and ``x > t`` (:func:`rulekit.rules.induce_cuts.numeric_candidates`)."""
    return induce_cuts.numeric_candidates(j, xp, xn, p0, n0, data.max_thresholds)


def _prune_rule(data: _Data, rule: list[tuple], Pp: np.ndarray, Np: np.ndarray) -> list[tuple]:
    """Keep the prefix maximising (p - n) / (p + n) on the pruning cases (shortest on ties)."""
    best_k, best_v = len(rule), -math.inf
    okp = np.ones(Pp.size, bool)
    okn = np.ones(Np.size, bool)
    values = []
    for lit in rule:
        okp &= data.literal_truth(lit, Pp)
        okn &= data.literal_truth(lit, Np)
        p, n = int(okp.sum()), int(okn.sum())
        values.append((p - n) / (p + n) if p + n else -1.0)
    for k in range(len(rule), 0, -1):
        if values[k - 1] >= best_v - 1e-12:
            best_k, best_v = k, values[k - 1]
    return rule[:best_k]


def _log2_binom(n: int, k: int) -> float:
    if k <= 0 or k >= n:
        return 0.0
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)


def _mdl_cut(data: _Data, rules: list[list[tuple]], pos: np.ndarray, neg: np.ndarray, w: float) -> list[list[tuple]]:
    """Drop whole rules or single conditions while the class's description length shrinks."""
    rows = np.concatenate([pos, neg])
    good = np.concatenate([np.ones(pos.size, bool), np.zeros(neg.size, bool)])
    rules = [list(r) for r in rules]

    def cost(rs: list[list[tuple]]) -> float:
        cov = np.zeros(rows.size, bool)
        for r in rs:
            cov |= _covers(data, r, rows)
        r_ = int(cov.sum())
        fp = int((cov & ~good).sum())
        fn = int((~cov & good).sum())
        return _log2_binom(r_, fp) + _log2_binom(rows.size - r_, fn) + w * sum(data.theory_bits(r) for r in rs)

    current = cost(rules)
    while rules:
        best = None
        for i in range(len(rules)):
            cands = [rules[:i] + rules[i + 1:]]
            if len(rules[i]) > 1:
                cands += [rules[:i] + [rules[i][:k] + rules[i][k + 1:]] + rules[i + 1:] for k in range(len(rules[i]))]
            for cand in cands:
                c = cost(cand)
                if best is None or c < best[0] - 1e-9:
                    best = (c, cand)
        if best is None or best[0] >= current - 1e-9:
            break
        current, rules = best
    # duplicates and rules inside another rule of the class go too
    out: list[list[tuple]] = []
    for r in rules:
        if any(set(o) <= set(r) for o in out):
            continue
        out = [o for o in out if not set(r) <= set(o)] + [r]
    return out


def _to_rule_base(shell: RuleBase, data: _Data, learned: list[tuple[int, list[tuple]]], default: int) -> RuleBase:
    classes = list(shell.classes)
    K = len(classes)
    rules = []
    for c, lits in learned:
        items = []
        for lit in lits:
            items.append(_condition(data, lit))
        cond = items[0] if len(items) == 1 else And(items=tuple(items))
        rules.append(Rule(id=f"r{len(rules) + 1}", condition=cond, conclusion=Conclusion(label=classes[c])))
    rb = shell.model_copy(update={"rules": tuple(rules), "default": Conclusion(label=classes[default])})
    rb = simplify(rb)
    # conclusions: class frequencies of the training cases each rule decides
    hit = engine.first_hit(rb, data.M)
    out = []
    for i, r in enumerate(rb.rules):
        out.append(r.model_copy(update={"conclusion": _freq(r.conclusion, data.yc[hit == i], K)}))
    return rb.model_copy(update={"rules": tuple(out), "default": _freq(rb.default, data.yc[hit < 0], K)})


def _condition(data: _Data, lit: tuple) -> Compare:
    """One literal in the IR: a nominal value by its label."""
    j, op, v = lit
    f = data.feats[j]
    return Compare(feature=f.name, op=op, value=f.domain[int(v)] if f.kind == "nominal" else v)


def _freq(c: Conclusion, ys: np.ndarray, K: int) -> Conclusion:
    counts = np.bincount(ys, minlength=K).astype(float)
    if counts.sum() <= 0:
        return c
    return c.model_copy(update={"distribution": tuple(float(v) for v in counts / counts.sum())})




def as_vote(rb: RuleBase) -> RuleBase:
    """``rb`` voting (``--order vote``) with each rule's weight its ``confidence`` statistic rounded
    to 4 significant digits (:func:`rulekit.rules.vote.round_weight`, as the scorecard rounds its
    weights) and written as the rule's ``weight``: the rounded weights are the model that is then
    measured and written, not ``confidence = 0.9527896995708155`` on every rule. A rule without
    that statistic, or with a weight already, keeps what it has."""
    rules = []
    for r in rb.rules:
        conf = r.stats.get("confidence")
        if r.weight is None and conf is not None and conf > 0:
            r = r.model_copy(update={"weight": round_weight(conf)})
        rules.append(r)
    return rb.model_copy(update={"semantics": "vote", "rules": tuple(rules)})
