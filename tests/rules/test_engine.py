"""The rule engine against a naive row-by-row oracle on random rule bases, threshold and missing rows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rulekit.errors import RulekitError
from rulekit.ir.model import Combiner, Feature
from rulekit.rules import decision_diagram as diagram, engine
from rulekit.rules.base import And, Compare, Conclusion, InSet, IsMissing, Linear, Not, Or, Rule, RuleBase
from tests.rules import reference

THRESHOLDS = [-1.5, 0.1, 0.7, 2.5, 1e30]
FEATURES = (Feature(name="a"), Feature(name="b"), Feature(name="it's x"),
            Feature(name="colour", kind="nominal", domain=("red", "green", "blue")),
            Feature(name="k", kind="nominal", domain=(0, 1, 2, 3)))


def _values(t: float) -> list[float]:
    f = np.float32(t)
    return [t, float(np.nextafter(t, math.inf)), float(np.nextafter(t, -math.inf)), float(f),
            float(np.nextafter(f, np.float32(math.inf))), float(np.nextafter(f, np.float32(-math.inf)))]


def random_literal(rng, *, linear: bool):
    r = rng.random()
    if r < 0.5:
        name = ["a", "b", "it's x"][rng.integers(3)]
        op = ["<", "<=", ">", ">=", "=", "!="][rng.integers(6)] if rng.random() < 0.9 else "="
        return Compare(feature=name, op=op, value=float(THRESHOLDS[rng.integers(len(THRESHOLDS))]))
    if r < 0.75:
        if rng.random() < 0.5:
            vals = tuple(sorted(rng.choice(["red", "green", "blue"], size=rng.integers(1, 3), replace=False)))
            return InSet(feature="colour", values=vals, negated=bool(rng.random() < 0.4))
        return Compare(feature="k", op=["=", "!="][rng.integers(2)], value=int(rng.integers(4)))
    if r < 0.88 or not linear:
        return IsMissing(feature=["a", "b", "colour", "k"][rng.integers(4)], negated=bool(rng.random() < 0.5))
    return Linear(terms=((0.5, "a"), (-2.0, "b")), op=["<=", ">", "<", ">="][rng.integers(4)], value=0.7)


def random_condition(rng, depth: int = 0, *, linear: bool = False):
    r = rng.random()
    if depth >= 3 or r < 0.35:
        return random_literal(rng, linear=linear)
    kids = tuple(random_condition(rng, depth + 1, linear=linear) for _ in range(rng.integers(0, 4)))
    if r < 0.7:
        return And(items=kids)
    if r < 0.9:
        return Or(items=kids)
    return Not(item=random_condition(rng, depth + 1, linear=linear))


def random_rule_base(seed: int, *, semantics="first-hit", task="classification", linear=False,
                     precision=None, n_rules=None):
    rng = np.random.default_rng(seed)
    rules = []
    for i in range(n_rules or int(rng.integers(1, 9))):
        if task == "classification":
            c = Conclusion(label=["yes", "no", "maybe"][rng.integers(3)])
        else:
            c = Conclusion(value=float(rng.normal()))
        rules.append(Rule(id=f"r{i}", condition=random_condition(rng, linear=linear), conclusion=c,
                          weight=float(rng.uniform(0.1, 2)) if rng.random() < 0.5 else None))
    default = Conclusion(label="maybe") if task == "classification" else Conclusion(value=0.25)
    return RuleBase(task=task, classes=("yes", "no", "maybe") if task == "classification" else None,
                    features=FEATURES, semantics=semantics, rules=tuple(rules), default=default,
                    precision=precision or ("float32" if rng.random() < 0.5 else "float64"))


def random_rows(seed: int, n: int = 120) -> list[dict]:
    rng = np.random.default_rng(seed)
    nums = [v for t in THRESHOLDS for v in _values(t)] + [math.nan, math.inf, -math.inf, 0.0]
    rows = []
    for _ in range(n):
        rows.append({
            "a": nums[rng.integers(len(nums))], "b": nums[rng.integers(len(nums))],
            "it's x": nums[rng.integers(len(nums))],
            "colour": [None, "red", "green", "blue", "purple"][rng.integers(5)],
            "k": [None, 0, 1, 2, 3, 7][rng.integers(6)],
        })
    return rows


def _frame(rows):
    return pd.DataFrame({k: pd.Series([r[k] for r in rows], dtype=object if k in ("colour", "k") else float)
                         for k in rows[0]})


@pytest.mark.parametrize("seed", range(40))
def test_first_hit_equals_oracle(seed):
    rb = random_rule_base(seed, linear=seed % 4 == 0)
    rows = random_rows(seed)
    X = _frame(rows)
    want = reference.first_hit(rb, rows)
    M = engine.matrix(rb, X)
    assert engine._first_hit_generic(rb, M, list(range(len(rb.rules)))).tolist() == want
    assert engine.first_hit(rb, M).tolist() == want  # the diagram when it compiles
    labels = [rb.rules[i].conclusion.label if i >= 0 else "maybe" for i in want]
    assert rb.predict(X).tolist() == labels


@pytest.mark.parametrize("seed", range(12))
def test_match_matrix_equals_oracle(seed):
    rb = random_rule_base(100 + seed, linear=True)
    rows = random_rows(seed)
    assert (engine.match_matrix(rb, engine.matrix(rb, _frame(rows))) == reference.matches(rb, rows)).all()


def test_compiled_conditions_are_used_and_exact():
    """Rules shaped AND of ORs of ANDs of literals take the compiled path (TRUE rows only); the rest
    fall back to the generic evaluator. Both shapes occur in these random bases, and the match
    matrix equals the row-by-row oracle either way."""
    compiled = fallback = 0
    for seed in range(30):
        rb = random_rule_base(700 + seed, linear=True)
        rows = random_rows(seed)
        terms = [engine.conjunction(r.condition) for r in rb.rules]
        compiled += sum(t is not None for t in terms)
        fallback += sum(t is None for t in terms)
        assert (engine.match_matrix(rb, engine.matrix(rb, _frame(rows))) == reference.matches(rb, rows)).all()
    assert compiled > 20 and fallback > 20


def test_path_rules_with_missing_sides_compile():
    """Extracted path rules (``x <= t or x is missing``, ``(a < x <= b) or x is missing``) all take
    the compiled path."""
    from sklearn.ensemble import RandomForestClassifier

    import rulekit
    from rulekit.rules.extract import extract

    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + X[:, 1] > 0).astype(int)
    rb = extract(rulekit.from_sklearn(RandomForestClassifier(5, max_depth=6, random_state=0).fit(X, y)),
                 simplify=True)
    assert any(isinstance(i, Or) for r in rb.rules for i in getattr(r.condition, "items", ()))
    assert all(engine.conjunction(r.condition) is not None for r in rb.rules)


def test_diagram_compiles_and_walks_exactly_on_larger_lists():
    for seed in range(5):
        rb = random_rule_base(500 + seed, n_rules=30)
        rows = random_rows(seed, 400)
        d = diagram.build(rb, tuple(range(len(rb.rules))), max_nodes=10**6, max_work=10**9)
        assert d is not None
        M = engine.matrix(rb, _frame(rows))
        assert d.first_hit(M).tolist() == reference.first_hit(rb, rows)
        if d.numeric_only:
            assert (d.rule[d._walk(M)] == d.first_hit(M)).all()  # numpy walker == C walker


@pytest.mark.parametrize("seed", range(8))
def test_vote_and_weighted_sum(seed):
    rows = random_rows(seed)
    X = _frame(rows)
    rb = random_rule_base(200 + seed, semantics="vote")
    match = reference.matches(rb, rows)
    classes = list(rb.classes)
    for j, row_m in enumerate(match):
        votes = np.zeros(3)
        for i in np.flatnonzero(row_m):
            r = rb.rules[i]
            votes[classes.index(r.conclusion.label)] += r.weight if r.weight is not None else 1.0
        want = "maybe" if not row_m.any() else classes[int(np.argmax(votes))]
        assert rb.predict(X)[j] == want
    rb = random_rule_base(300 + seed, semantics="weighted-sum", task="regression")
    match = reference.matches(rb, rows)
    want = [0.25 + sum((rb.rules[i].weight if rb.rules[i].weight is not None else 1.0)
                       * rb.rules[i].conclusion.value for i in np.flatnonzero(m)) for m in match]
    assert np.allclose(rb.predict(X), want, rtol=0, atol=1e-12)


def test_float32_thresholds_exact_at_every_neighbour():
    t = 0.1  # not a float32: float32(x) <= 0.1 differs from x <= 0.1 next to it
    rb = RuleBase(task="classification", classes=("lo", "hi"), features=(Feature(name="x"),), precision="float32",
                  rules=(Rule(condition=Compare(feature="x", op="<=", value=t), conclusion=Conclusion(label="lo")),),
                  default=Conclusion(label="hi"))
    xs = np.array(_values(t) + [np.nan])
    want = ["lo" if (not math.isnan(x) and float(np.float32(x)) <= t) else "hi" for x in xs]
    assert rb.predict(xs.reshape(-1, 1)).tolist() == want
    assert rb.model_copy(update={"precision": "float64"}).predict(xs.reshape(-1, 1)).tolist() != want


def test_missing_is_unknown_and_not_is_unknown_too():
    feats = (Feature(name="x"),)
    cond = Not(item=Compare(feature="x", op="<=", value=1.0))
    rb = RuleBase(task="regression", features=feats, rules=(Rule(condition=cond, conclusion=Conclusion(value=1.0)),),
                  default=Conclusion(value=0.0))
    assert rb.predict(np.array([[2.0], [0.0], [np.nan]])).tolist() == [1.0, 0.0, 0.0]
    cond = Or(items=(Compare(feature="x", op="<=", value=1.0), IsMissing(feature="x")))
    rb = rb.model_copy(update={"rules": (Rule(condition=cond, conclusion=Conclusion(value=1.0)),)})
    assert rb.predict(np.array([[2.0], [0.0], [np.nan]])).tolist() == [0.0, 1.0, 1.0]


def test_bad_rule_bases_raise_one_clear_error():
    feats = (Feature(name="x"), Feature(name="c", kind="nominal", domain=("a", "b")))

    def rb_with(cond):
        return RuleBase(task="classification", classes=("p", "q"), features=feats,
                        rules=(Rule(id="r1", condition=cond, conclusion=Conclusion(label="p")),))

    X = pd.DataFrame({"x": [1.0], "c": ["a"]})
    for cond, msg in [(Compare(feature="y", op="<=", value=1.0), "unknown feature 'y'"),
                      (Compare(feature="c", op="=", value="z"), "'z' is not a value"),
                      (Compare(feature="c", op="<", value="a"), "operator '<' on nominal"),
                      (Compare(feature="x", op="=", value="a"), "compared with 'a'"),
                      (InSet(feature="x", values=("a",)), "set test on numeric")]:
        with pytest.raises(RulekitError, match=msg) as err:
            rb_with(cond).predict(X)
        assert "rule r1" in str(err.value)
    bad = RuleBase(task="classification", classes=("p", "q"), features=feats,
                   rules=(Rule(condition=Compare(feature="x", op="<=", value=1.0), conclusion=Conclusion(label="zz")),))
    with pytest.raises(RulekitError, match="not one of the classes"):
        bad.predict(X)


def test_no_default_gives_missing_prediction():
    rb = RuleBase(task="classification", classes=("p", "q"), features=(Feature(name="x"),),
                  rules=(Rule(condition=Compare(feature="x", op="<=", value=1.0), conclusion=Conclusion(label="p")),))
    assert rb.predict(np.array([[0.0], [2.0]])).tolist() == ["p", None]
    P = rb.predict_proba(np.array([[0.0], [2.0]]))
    assert P[0].tolist() == [1.0, 0.0] and np.isnan(P[1]).all()


def test_ensemble_groups_combine_like_the_model():
    feats = (Feature(name="x"),)
    rules = (Rule(group=0, condition=Compare(feature="x", op="<=", value=0.0), conclusion=Conclusion(value=-1.0)),
             Rule(group=0, condition=Compare(feature="x", op=">", value=0.0), conclusion=Conclusion(value=2.0)),
             Rule(group=1, condition=Compare(feature="x", op="<=", value=1.0), conclusion=Conclusion(value=0.5)))
    rb = RuleBase(task="classification", classes=(0, 1), features=feats, rules=rules,
                  combiner=Combiner(kind="sum", base_score=(0.1,), link="sigmoid"))
    X = np.array([[-1.0], [0.5], [3.0]])
    raw = np.array([0.1 - 1.0 + 0.5, 0.1 + 2.0 + 0.5, 0.1 + 2.0])
    p = 1 / (1 + np.exp(-raw))
    assert np.allclose(rb.predict_proba(X)[:, 1], p, rtol=0, atol=1e-15)
    assert rb.predict(X).tolist() == [0, 1, 1]
    ex = rb.explain(X)
    assert ex[0].fired == (0, 2) and ex[2].fired == (1, -1)


def test_explain_structure_and_text():
    feats = (Feature(name="outlook", kind="nominal", domain=("sunny", "overcast", "rainy")),
             Feature(name="humidity", kind="nominal", domain=("high", "normal")))
    rules = (Rule(id="r1", condition=And(items=(Compare(feature="outlook", op="=", value="sunny"),
                                                Compare(feature="humidity", op="=", value="high"))),
                  conclusion=Conclusion(label="no")),)
    rb = RuleBase(task="classification", classes=("no", "yes"), features=feats, rules=rules,
                  default=Conclusion(label="yes"))
    X = pd.DataFrame({"outlook": ["sunny", "sunny", "rainy"], "humidity": ["high", "normal", "normal"]})
    ex = rb.explain(X)
    assert [e.fired for e in ex] == [0, None, None]
    assert ex[0].matched == (0,) and str(ex[0]).startswith("r1: if outlook = sunny and humidity = high then no")
    assert ex[1].near_misses[0].rule == 0
    assert ex[1].near_misses[0].failing == (Compare(feature="humidity", op="=", value="high"),)
    assert "near miss: r1 -> no fails humidity = high" in str(ex[1])
    assert ex[2].near_misses == ()  # fails twice: not a near miss
    assert str(ex[2]) == "default -> yes (no rule matched)"


@pytest.mark.parametrize("seed", range(24))
def test_explain_equals_oracle(seed):
    """Matched rules and near misses (exactly one top-level conjunct not TRUE, another conclusion,
    the first two in rule order) equal a row-by-row oracle, on compiled and fallback conditions,
    in chunks of a few rows (CHUNK_CELLS lowered) as well as in one."""
    from rulekit.rules.boxes import conjuncts

    rb = random_rule_base(900 + seed, semantics="vote" if seed % 3 == 0 else "first-hit", linear=True,
                          n_rules=int(np.random.default_rng(seed).integers(4, 14)))
    rows = random_rows(seed, 60)
    pred = rb.predict(_frame(rows))
    want_matched, want_near = [], []
    for row, p in zip(rows, pred):
        want_matched.append(tuple(i for i, r in enumerate(rb.rules) if reference.truth(r.condition, row, rb) is True))
        near = []
        for i, r in enumerate(rb.rules):
            failing = tuple(c for c in conjuncts(r.condition) if reference.truth(c, row, rb) is not True)
            if len(failing) == 1 and not reference._same_label(r.conclusion.label, p) and len(near) < 2:
                near.append((i, failing))
        want_near.append(tuple(near))
    for cells in (engine.CHUNK_CELLS, 7 * len(rb.rules)):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(engine, "CHUNK_CELLS", cells)
            ex = rb.explain(_frame(rows))
        assert [e.matched for e in ex] == want_matched
        assert [tuple((m.rule, m.failing) for m in e.near_misses) for e in ex] == want_near


def _nested_chain(n: int) -> RuleBase:
    """Rule i: x <= i + 0.5 -- every rule overlaps all later ones: the diagram costs O(n^2) to build."""
    rules = [Rule(id=f"r{i}", condition=Compare(feature="x", op="<=", value=i + 0.5),
                  conclusion=Conclusion(label=i % 3)) for i in range(n)]
    return RuleBase(task="classification", classes=(0, 1, 2), features=(Feature(name="x"),), rules=rules,
                    default=Conclusion(label=2))


@pytest.mark.slow
def test_diagram_gives_up_on_nested_chains_within_its_work_budget():
    # 6,000 nested rules took ~90 s to compile before the work budget (quadratic); now the compiler stops
    # after 64 units per rule and the generic evaluator answers.
    n = 6_000
    rb = _nested_chain(n)
    assert diagram.build(rb, tuple(range(n))) is None
    assert diagram.build(rb, tuple(range(50))) is not None  # small lists still compile
    xs = np.array([-1.0, 0.5, 0.5000001, 2.4, 3.5, 4777.5, 5999.5, 5999.6, 1e9, np.nan])
    want = [0, 0, 1, 2, 0, 1, 2, 2, 2, 2]
    assert engine.predict(rb, xs.reshape(-1, 1)).tolist() == want


@pytest.mark.parametrize("semantics", ["first-hit", "vote", "weighted-sum"])
def test_regression_without_default_gives_zero_in_every_backend(semantics):
    """base.py's semantics: a regression row no rule matches, with no default, is 0.0 (not NaN)."""
    from rulekit import runtimes
    from rulekit.table import from_data

    rb = RuleBase(task="regression", features=(Feature(name="x"),), semantics=semantics, rules=[
        Rule(id="a", condition=Compare(feature="x", op="<=", value=1.0), conclusion=Conclusion(value=3.0)),
        Rule(id="b", condition=Compare(feature="x", op="<=", value=0.5), conclusion=Conclusion(value=5.0))])
    frame = pd.DataFrame({"x": [0.0, 1.0, 5.0, np.nan]})
    first = {"first-hit": 3.0, "vote": 4.0, "weighted-sum": 8.0}[semantics]
    want = [first, 3.0, 0.0, 0.0]
    assert engine.predict(rb, frame).tolist() == want
    table = from_data(frame, rb.features)
    for name in ("python", "sqlite", "onnx"):
        try:
            got = runtimes.runner(name)(rb, table).prediction
        except runtimes.Unavailable:
            continue
        assert [float(v) for v in got] == want, name


def test_diagrams_of_a_large_ensemble_are_built_once(monkeypatch):
    """A 100-group rule base (a forest's rules) predicts twice with one diagram build per group."""
    rules = []
    for g in range(100):
        rules.append(Rule(condition=Compare(feature="a", op="<=", value=float(g)),
                          conclusion=Conclusion(value=1.0), group=g))
        rules.append(Rule(condition=And(), conclusion=Conclusion(value=0.0), group=g))
    rb = RuleBase(task="regression", features=[Feature(name="a")], rules=rules,
                  combiner=Combiner(kind="sum", base_score=(0.0,)))
    calls = []
    real = diagram.build
    monkeypatch.setattr(diagram, "build", lambda *a, **k: calls.append(1) or real(*a, **k))
    M = np.array([[-1.0], [50.0], [99.5], [np.nan]])
    first = engine.predict(rb, M)
    assert engine.predict(rb, M).tolist() == first.tolist() == [100.0, 50.0, 0.0, 0.0]
    assert len(calls) == 100


def test_vote_regression_sums_in_rule_order_as_the_python_export():
    """Vote regression's weighted mean: the engine adds weight * value rule by rule over the matching
    rows (not a BLAS product, whose order differs by CPU), so it equals the Python export bit for bit,
    also where the order of the additions changes the float result."""
    from rulekit import runtimes
    from rulekit.table import from_data

    vals = [1e16, 1.0, -1e16, 3.0, 0.1, 0.2, 0.3, -0.7]
    rules = [Rule(id=f"r{i}", condition=Compare(feature="x", op="<=", value=float(i)),
                  conclusion=Conclusion(value=v), weight=1.0 + i / 7) for i, v in enumerate(vals)]
    rb = RuleBase(task="regression", features=(Feature(name="x"),), semantics="vote", rules=tuple(rules),
                  default=Conclusion(value=0.0))
    frame = pd.DataFrame({"x": [-1.0, 0.5, 1.5, 2.0, 3.5, 6.5, 9.0, np.nan]})
    got = engine.predict(rb, frame)
    try:
        want = runtimes.runner("python")(rb, from_data(frame, rb.features)).prediction
    except runtimes.Unavailable as why:
        pytest.skip(str(why))
    assert [float(v) for v in got] == [float(v) for v in want]
