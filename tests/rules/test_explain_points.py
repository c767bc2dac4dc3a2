"""`explain` on a weighted-sum classification base (a scorecard): each class's points, most first,
as the default's start plus what each matching rule adds; the totals are the engine's sums."""

from __future__ import annotations

import numpy as np

from rulekit.ir.schema import Feature
from rulekit.rules.base import Compare, Conclusion, Rule, RuleBase
from rulekit.rules.explain import explain


def _card():
    return RuleBase(task="classification", classes=("no", "yes"), target="y", semantics="weighted-sum",
                    features=(Feature(name="a"), Feature(name="b")),
                    rules=(Rule(id="s1", condition=Compare(feature="a", op="<=", value=1.0),
                                conclusion=Conclusion(label="yes"), weight=2.5),
                           Rule(id="s2", condition=Compare(feature="b", op=">", value=0.0),
                                conclusion=Conclusion(label="yes"), weight=1.25),
                           Rule(id="s3", condition=Compare(feature="b", op=">", value=5.0),
                                conclusion=Conclusion(label="no", distribution=(0.75, 0.25)), weight=4.0)),
                    default=Conclusion(label="no", distribution=(3.0, 0.0)))


def test_points_per_class_with_start_and_rules():
    rb = _card()
    X = np.array([[0.5, 1.0], [0.5, 9.0], [3.0, 9.0], [3.0, np.nan]])
    got = [e.text.split(" | ")[0] for e in explain(rb, X)]
    assert got[0] == "points: yes 3.75 = s1 2.5 + s2 1.25; no 3 = start 3 -> yes"
    # s3 adds 0.75 * 4 to no and 0.25 * 4 to yes
    assert got[1] == "points: no 6 = start 3 + s3 3; yes 4.75 = s1 2.5 + s2 1.25 + s3 1 -> no"
    assert got[2].startswith("points: no 6 = start 3 + s3 3; yes 2.25 = s2 1.25 + s3 1 -> no")
    assert got[3].startswith("default -> no")  # nothing matched: NaN holds no test


def test_totals_are_the_engine_sums():
    rb = _card()
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 8, (200, 2))
    proba = rb.predict_proba(X)
    for e, p, row in zip(explain(rb, X), proba, X):
        if not e.matched:
            continue
        totals = dict(part.split(" = ")[0].rsplit(" ", 1) for part in e.text[len("points: "):].split(" -> ")[0].split("; "))
        t = np.array([float(totals["no"]), float(totals["yes"])])
        assert np.allclose(t / t.sum(), p, atol=1e-3), (row, e.text)
        assert e.text.endswith(f"-> {e.prediction}") or f"-> {e.prediction} |" in e.text


def test_vote_rows_read_as_tallies():
    rb = RuleBase(task="classification", classes=("no", "yes"), target="y", semantics="vote",
                  features=(Feature(name="a"),),
                  rules=(Rule(id="r1", condition=Compare(feature="a", op="<=", value=1.0),
                              conclusion=Conclusion(label="yes"), weight=0.9),
                         Rule(id="r2", condition=Compare(feature="a", op="<=", value=2.0),
                              conclusion=Conclusion(label="no"), weight=1.5),
                         Rule(id="r3", condition=Compare(feature="a", op="<=", value=3.0),
                              conclusion=Conclusion(label="yes"), weight=0.8)),
                  default=Conclusion(label="no"))
    X = np.array([[0.5], [2.5], [9.0]])
    got = [e.text.split(" | ")[0] for e in explain(rb, X)]
    assert got[0] == "votes: yes 1.7 = r1 0.9 + r3 0.8; no 1.5 = r2 1.5 -> yes"
    assert got[1] == "votes: yes 0.8 = r3 0.8 -> yes"
    assert got[2].startswith("default -> no")
    assert list(rb.predict(X)) == ["yes", "yes", "no"]
