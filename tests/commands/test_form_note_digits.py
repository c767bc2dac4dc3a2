"""The --scorecard path's note says induced rules label clearly more held-out rows right; its two
shares are printed with as many decimals as make them differ. On 30,000 customers it said 'label
0.986 of held-out rows right (5 folds), scorecards 0.986: ...', a tie on its face (audit 3, #13)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from rulekit.commands import form_notes
from rulekit.rules import induction, scorecard


class _Fake:
    """A learner whose predictions are the truth except on the rows its column flags."""

    column = ""

    def __init__(self, *args, **kwargs):
        pass

    def fit(self, X, y):
        return self

    def predict(self, X):
        truth = X["truth"].to_numpy()
        return np.where(X[self.column].to_numpy(), 1 - truth, truth)


class _Card(_Fake):
    column = "card_wrong"


class _Rules(_Fake):
    column = "rules_wrong"


def test_the_shares_differ_in_print_when_the_sign_test_tells_them_apart(monkeypatch):
    n = 10_000
    truth = np.arange(n) % 2
    rules_wrong = np.zeros(n, bool)
    rules_wrong[:100] = True
    card_wrong = rules_wrong.copy()
    card_wrong[100:104] = True  # 9,900 against 9,896 right: 0.9900 and 0.9896
    X = pd.DataFrame({"truth": truth, "rules_wrong": rules_wrong, "card_wrong": card_wrong})
    monkeypatch.setattr(scorecard, "ScorecardLearner", _Card)
    monkeypatch.setattr(induction, "RuleInducer", _Rules)
    note = form_notes.rule_list_note(X, pd.Series(truth), 12, "d.csv", "y", None)
    got = re.search(r"label (0\.\d+) of held-out rows right \(5 folds\), scorecards (0\.\d+): ", note or "")
    assert got, note
    assert got.group(1) != got.group(2), note
    assert (got.group(1), got.group(2)) == ("0.9900", "0.9896")


def test_apart_keeps_three_decimals_where_they_differ():
    assert form_notes.apart(0.5, 0.25) == ("0.500", "0.250")
    assert form_notes.apart(0.98633, 0.98631) == ("0.98633", "0.98631")
