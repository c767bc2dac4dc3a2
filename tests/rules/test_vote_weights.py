"""Vote weights of ``to_rules(..., order="vote")`` (``rules/vote.py``, issue #18): evidence-based
weights (m-estimate, m = K, the class's share of the rows as prior) instead of raw confidence, so two
error-free rules of different classes no longer tie where they meet (raw confidence is kept where it
labels more rows right), and an exact tie that remains is resolved to the class the rows support more
(equal support: the class listed first), with the lint's vote-tie check finding nothing afterwards."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rulekit.ir.model import Feature
from rulekit.rules.base import And, Compare, Conclusion, Rule, RuleBase
from rulekit.rules import to_rules
from rulekit.rules.vote import vote_weights
from tests import zoo

NAMES = ("a", "b c", 'q"uote')


def C(f, op, v):
    return Compare(feature=f, op=op, value=v)


def _rb(*rules, classes=("p", "q", "z")) -> RuleBase:
    """A vote base whose default ("z", a class without rows) is no rule's class: no rule is dead weight."""
    out = tuple(Rule(id=f"r{i + 1}", condition=c, conclusion=Conclusion(label=lab)) for i, (c, lab) in enumerate(rules))
    return RuleBase(task="classification", target="y", classes=classes, features=tuple(Feature(name=n) for n in NAMES),
                    rules=out, default=Conclusion(label="z"), semantics="vote")


def _rows(a, y, b=0.0):
    return pd.DataFrame({"a": a, "b c": b, 'q"uote': 0.0}), np.asarray(y, dtype=object)


def _ties(rb):
    return [f for f in rb.lint() if f.message.startswith("ties the vote")]


# rule r1 (p): a <= 2, r2 (q): a > 1; they meet on (1, 2], where no row lies
OVERLAP = (C("a", "<=", 2.0), "p"), (C("a", ">", 1.0), "q")
PROBE = _rows([1.0, np.nextafter(1.0, 2.0), 1.5, 2.0, np.nextafter(2.0, 3.0), np.nan], ["p"] * 6)[0]


def test_confidence_weights_tie_evidence_weights_do_not():
    X, y = _rows([0.0, 0.5, 3.0, 4.0, 5.0, 6.0], ["p", "p", "q", "q", "q", "q"])
    rb = _rb(*OVERLAP)
    conf = rb.model_copy(update={"rules": tuple(r.model_copy(update={"weight": 1.0}) for r in rb.rules)})
    assert _ties(conf)  # both rules are error-free: confidence 1 each, a tie the lint reports
    out = vote_weights(rb, X, y)
    # (n - e + K p) / (n + K), K = 3: r1 (2 + 3 * 2/6) / 5, r2 (4 + 3 * 4/6) / 7, to 4 digits
    assert [r.weight for r in out.rules] == [0.6, 0.8571]
    assert _ties(out) == [] and out.lint() == []
    assert out.predict(PROBE).tolist() == ["p", "q", "q", "q", "q", "z"]  # r2's 4 rows outweigh r1's 2


def test_equal_evidence_resolves_to_the_more_common_class():
    # r1 (p) and r2 (q) cover 3 rows each, no errors; 'q' has more rows overall (a row no rule covers)
    X, y = _rows([0.0, 0.5, 0.7, 3.0, 4.0, 5.0, 9.0], ["p", "p", "p", "q", "q", "q", "q"], b=[0, 0, 0, 0, 0, 0, 7.0])
    rb = _rb((C("a", "<=", 2.0), "p"), (And(items=(C("a", ">", 1.0), C("b c", "<=", 5.0))), "q"))
    out = vote_weights(rb, X, y)
    assert out.rules[0].weight < out.rules[1].weight and out.lint() == []
    assert out.predict(PROBE).tolist() == ["p", "q", "q", "q", "q", "z"]


def test_an_exact_tie_is_resolved_explicitly():
    # same rows, same errors, same class shares: the m-estimates are equal; the tie goes explicitly to
    # the class listed first by one unit in the weight's last digit
    X, y = _rows([0.0, 0.5, 3.0, 4.0], ["p", "p", "q", "q"])
    rb = _rb(*OVERLAP)
    plain = vote_weights(rb, X, y, resolve_ties=False)
    assert [r.weight for r in plain.rules] == [0.7, 0.7] and _ties(plain)
    out = vote_weights(rb, X, y)
    assert [r.weight for r in out.rules] == [0.7001, 0.7] and out.lint() == []
    swapped = vote_weights(_rb(*OVERLAP, classes=("q", "p", "z")), X, y)
    assert [r.weight for r in swapped.rules] == [0.7, 0.7001] and swapped.lint() == []
    assert out.predict(PROBE).tolist() == ["p", "p", "p", "p", "q", "z"]



def test_confidence_kept_where_it_labels_more_rows_right():
    # on this zoo set the evidence weights label 251 of the 259 pruning rows right, confidence 255:
    # confidence stays, its two error-free ties resolved; nothing predicts worse than before
    model, data = zoo.get("learned_c45_fractional")
    y = np.asarray(model.predict(data), dtype=object)
    rb = to_rules(model, prune="pessimistic", prune_data=(data, y), order="vote")
    old = rb.model_copy(update={"rules": tuple(r.model_copy(update={"weight": None}) for r in rb.rules)})
    assert old.lint() and rb.lint() == []  # confidence alone (the stats' weight) ties; the pass does not
    hits = int(np.sum(np.asarray(rb.predict(data), dtype=object) == y))
    assert hits == int(np.sum(np.asarray(old.predict(data), dtype=object) == y)) == 255
