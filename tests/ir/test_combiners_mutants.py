"""semantics.combiners: what its mutation run (docs/testing.md) found untested.

Every field of the :class:`Reduction` that ``reduction`` reads from each kind of combiner (the data
every exporter spells: precision, scale, link, label, summed components, tree count), the identity
link refused for a boosted classifier, the raw-score argmax where float32 softmax ties, and a
``proba`` passed to ``label_index`` being the one used.
"""

from __future__ import annotations

import numpy as np
import pytest

from rulekit.errors import RulekitError
from rulekit.ir.schema import Combiner
from rulekit.semantics import combiners
from rulekit.semantics.combiners import Reduction

CASES = [
    (Combiner(kind="single"), 1, "classification", 3,
     Reduction("single", 1, 3, (), (), "float64", "none", "identity", "argmax", (0, 1, 2))),
    (Combiner(kind="single"), 1, "regression", 1,
     Reduction("single", 1, 1, (), (), "float64", "none", "identity", "argmax", (0,))),
    (Combiner(kind="average"), 4, "classification", 3,
     Reduction("average", 4, 3, (), (), "float64", "end", "identity", "argmax", (0, 1, 2))),
    (Combiner(kind="average", arithmetic="float32"), 4, "classification", 2,
     Reduction("average", 4, 2, (), (), "float32", "term", "complement", "argmax", (1,))),
    (Combiner(kind="average", arithmetic="float32"), 4, "classification", 3,
     Reduction("average", 4, 3, (), (), "float32", "term", "identity", "argmax", (0, 1, 2))),
    (Combiner(kind="vote"), 5, "classification", 2,
     Reduction("vote", 5, 2, (), (), "float64", "end", "identity", "argmax", (0, 1))),
    (Combiner(kind="sum", base_score=(0.5,), link="sigmoid", decision="raw>0"), 3, "classification", 1,
     Reduction("sum", 3, 1, (0, 0, 0), (0.5,), "float64", "none", "sigmoid", "raw>0", (0,))),
    (Combiner(kind="sum", base_score=(0.5,), link="sigmoid"), 2, "classification", 1,
     Reduction("sum", 2, 1, (0, 0), (0.5,), "float64", "none", "sigmoid", "argmax", (0,))),
    (Combiner(kind="sum", base_score=(0.0, 1.0, 2.0), link="softmax", tree_output=(0, 1, 2, 0),
              decision="raw>=0", arithmetic="float32"), 4, "classification", 1,
     Reduction("sum", 4, 3, (0, 1, 2, 0), (0.0, 1.0, 2.0), "float32", "none", "softmax", "raw-argmax", (0,))),
    (Combiner(kind="sum", base_score=(1.5,), decision="raw>=0"), 2, "regression", 1,
     Reduction("sum", 2, 1, (0, 0), (1.5,), "float64", "none", "identity", "argmax", (0,))),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_reduction_fields(case):
    comb, n_trees, task, value_size, want = CASES[case]
    got = combiners.reduction(comb, n_trees, task=task, value_size=value_size)
    assert got == want
    assert type(got.outputs) is tuple and type(got.base) is tuple and type(got.summed) is tuple


def test_identity_link_refused_for_a_boosted_classifier():
    red = Reduction("sum", 1, 1, (0,), (0.0,), "float64", "none", "identity", "argmax", (0,))
    with pytest.raises(RulekitError, match=r"^a boosted classifier needs a sigmoid or softmax link$"):
        combiners.probabilities(red, np.zeros((2, 1)))


def test_raw_argmax_where_float32_softmax_ties():
    # distinct raw scores whose float32 softmax probabilities are equal: the raw scores decide
    red = Reduction("sum", 2, 2, (0, 1), (0.0, 0.0), "float32", "none", "softmax", "raw-argmax", (0,))
    raw = np.array([[0.0, 1e-9], [1e-9, 0.0], [2.0, 1.0]])
    proba = combiners.probabilities(red, raw)
    assert proba[0, 0] == proba[0, 1]
    assert combiners.label_index(red, raw).tolist() == [1, 0, 0]
    assert combiners.label_index(red, raw, proba).tolist() == [1, 0, 0]


def test_given_probabilities_decide_the_label():
    red = Reduction("average", 2, 3, (), (), "float64", "end", "identity", "argmax", (0, 1, 2))
    raw = np.array([[0.6, 0.3, 0.1], [0.1, 0.2, 0.7]])
    proba = np.array([[0.1, 0.1, 0.8], [0.5, 0.4, 0.1]])
    assert combiners.label_index(red, raw).tolist() == [0, 2]
    assert combiners.label_index(red, raw, proba).tolist() == [2, 0]
