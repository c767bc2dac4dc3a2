"""``--prune reduced-error`` keeps the most accurate list on its pruning rows of: the configured
choice (MDL, on the training and pruning rows), the pruned rules ordered on the pruning rows
without MDL, the pruned rules in the tree's order (audit finding 2: it fell straight back to the
tree's order, 46 rules that DNF merged into 14 rules of 153 conditions, whenever the MDL choice lost
pruning accuracy, and its step line still said 'MDL subset')."""

from __future__ import annotations

import numpy as np
import pytest

import rulekit
from rulekit.learners import CARTClassifier
from rulekit.rules import prune as _prune
from rulekit.rules.extract import extract
from rulekit.rules.pipeline import met_rules
from rulekit.rules.rep_choice import ORDERED_ON_PRUNING, TREE_ORDER, accuracy
from rulekit.rules.simplify import simplify
from rulekit.rules.steps import Steps
from tests.rules.helpers import dnf_concept


def _split(seed: int):
    X, y, _ = dnf_concept(seed, n=900, noise=0.05)
    return X.iloc[:500], y[:500], X.iloc[500:], y[500:]


# seeds where the list ordered on the pruning rows is right on more of them than both others
@pytest.mark.parametrize("seed", [0, 4, 6, 7, 24])
def test_reduced_error_keeps_the_most_accurate_list(seed):
    Xt, yt, Xp, yp = _split(seed)
    model = CARTClassifier(random_state=0).fit(Xt, yt).model_
    pruned = met_rules(_prune.reduced_error(simplify(extract(model)), Xp, yp), Xp)
    ordered = _prune.organize(pruned, Xp, yp, mdl=False)
    steps = Steps()
    rb = rulekit.to_rules(model, prune="reduced-error", prune_data=(Xp, yp), dnf=True, train_data=(Xt, yt),
                          steps=steps)
    assert accuracy(rb, Xp, yp) >= max(accuracy(pruned, Xp, yp), accuracy(ordered, Xp, yp))
    names = [s.name for s in steps.items]
    assert ORDERED_ON_PRUNING in names and not any("MDL" in n for n in names)
    assert any("reduced error: " in text for _, text in steps.notes)


def test_the_step_line_names_the_tree_order_when_it_is_kept():
    Xt, yt, Xp, yp = _split(3)  # the tree's order is right on 0.9525 of the pruning rows, the MDL choice 0.9025
    model = CARTClassifier(random_state=0).fit(Xt, yt).model_
    steps = Steps()
    rb = rulekit.to_rules(model, prune="reduced-error", prune_data=(Xp, yp), train_data=(Xt, yt), steps=steps)
    assert [s.name for s in steps.items][-1] == TREE_ORDER
    assert accuracy(rb, Xp, yp) == pytest.approx(0.9525)


def test_the_configured_choice_stays_when_nothing_is_more_accurate():
    Xt, yt, Xp, yp = _split(9)  # MDL choice, tree order: both 0.9325
    model = CARTClassifier(random_state=0).fit(Xt, yt).model_
    steps = Steps()
    rulekit.to_rules(model, prune="reduced-error", prune_data=(Xp, yp), dnf=True, train_data=(Xt, yt), steps=steps)
    assert any("MDL subset" in s.name for s in steps.items)
    assert not any("reduced error: " in text for _, text in steps.notes)
    assert np.isfinite(steps.items[-1].accuracy)
