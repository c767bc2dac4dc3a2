"""The figures the lecture notes compute (shared/data/README.md), reproduced by the learners."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.learners import C45Classifier, CARTClassifier, ID3Classifier
from rulekit.learners import criteria as C
from tests.learners.util import describe, load

PLAYGOLF_TREE = {"outlook": {"overcast": "yes",
                             "rainy": {"wind": {"strong": "no", "weak": "yes"}},
                             "sunny": {"humidity": {"high": "no", "normal": "yes"}}}}


def test_playgolf_entropy_and_information_gains():
    df = load("playgolf")
    assert C.entropy(df.play) == pytest.approx(0.9403, abs=5e-5)
    gains = {c: C.information_gain(df[c], df.play) for c in ("outlook", "temperature", "humidity", "wind")}
    # the notes print 0.2464 for outlook: 0.9403 - 0.6936 with rounded terms; exactly it is 0.24675
    assert gains["outlook"] == pytest.approx(0.2467, abs=5e-5)
    assert gains["temperature"] == pytest.approx(0.0292, abs=5e-5)
    assert gains["humidity"] == pytest.approx(0.1518, abs=5e-5)
    assert gains["wind"] == pytest.approx(0.0481, abs=5e-5)
    # the notes: 5/14 * 0.9710 * 2 = 0.6936 from the rounded 0.9710; exactly 0.69354
    assert C.conditional_impurity(df.outlook, df.play) == pytest.approx(0.6936, abs=1e-4)
    sunny = df[df.outlook == "sunny"]
    assert C.information_gain(sunny.humidity, sunny.play) == pytest.approx(0.971, abs=5e-4)
    assert C.information_gain(sunny.temperature, sunny.play) == pytest.approx(0.571, abs=5e-4)
    assert C.information_gain(sunny.wind, sunny.play) == pytest.approx(0.020, abs=5e-4)


def test_playgolf_id3_tree_and_answer():
    df = load("playgolf")
    est = ID3Classifier().fit(df.drop(columns="play"), df.play)
    assert describe(est.model_) == PLAYGOLF_TREE
    query = pd.DataFrame([{"outlook": "rainy", "temperature": "mild", "humidity": "normal", "wind": "strong"}])
    assert est.predict(query).tolist() == ["no"]
    assert est.model_.predict(query).tolist() == ["no"]
    # every training example is classified correctly and features are not reused on a path
    assert (est.predict(df.drop(columns="play")) == df.play).all()
    assert est.get_depth() == 2


def test_playgolf_root_split_gain_is_the_stored_impurity_decrease():
    df = load("playgolf")
    est = ID3Classifier().fit(df.drop(columns="play"), df.play)
    t = est.flat_tree_
    assert t.impurity[0] == pytest.approx(C.entropy(df.play))
    assert t.gain[0] / t.weight[0] == pytest.approx(C.information_gain(df.outlook, df.play))


def test_mushroom_conditional_entropies_and_splits():
    df = load("mushrooms")
    y = df.edibility
    assert C.conditional_impurity(df.color, y) == pytest.approx(0.4, abs=1e-12)
    assert C.conditional_impurity(df["size"], y) == pytest.approx(0.55, abs=0.005)
    assert C.conditional_impurity(df.points, y) == pytest.approx(0.4, abs=1e-12)
    est = ID3Classifier().fit(df.drop(columns="edibility"), y)
    # color and points tie at the root; the tie goes to the more compact split (points: two
    # branches), and below points=yes color and size tie again (same split information): color
    # comes first in the columns
    assert describe(est.model_) == {"points": {"no": "edible",
                                               "yes": {"color": {"brown": "edible", "red": "toxic"}}}}
    g = est.model_.graph
    root = g.graph["root"]
    color_node = [c for c in g.succ[root] if g.nodes[c]["kind"] != "leaf"][0]
    # D_green is empty under points=yes: a leaf with the parent's distribution (a 1:1 tie that
    # argmax breaks towards the first class in sorted order; the notes break it towards "toxic")
    green = est.model_.features[0].domain.index("green")
    empty = [c for c in g.succ[color_node] if g.edges[color_node, c]["values"] == (green,)][0]
    assert g.nodes[empty]["kind"] == "leaf" and g.nodes[empty]["n_samples"] == 0
    assert g.nodes[empty]["value"] == pytest.approx((0.5, 0.5))


def test_shapes_gains_and_tree():
    df = load("shapes")
    y = df["class"]
    assert C.entropy(y) == pytest.approx(0.65, abs=5e-5)
    # The notes print gain(color) = 0.1638 from I({1,2,3}) = "0.5383 + 0.3840 = 0.9723", an
    # arithmetic slip: -1/3 log2(1/3) - 2/3 log2(2/3) = 0.5283 + 0.3900 = 0.9183, so the gain is
    # 0.6500 - 0.9183/2 = 0.1909. Their ranking (shape before color) is unaffected.
    assert C.entropy(["+", "-", "-"]) == pytest.approx(0.9183, abs=5e-5)
    assert C.information_gain(df.color, y) == pytest.approx(0.65002 - 0.9183 / 2, abs=5e-5)
    assert C.information_gain(df["shape"], y) == pytest.approx(0.3166, abs=5e-4)
    assert C.information_gain(df["shape"], y) > C.information_gain(df.color, y)
    est = ID3Classifier().fit(df.drop(columns="class"), y)
    assert describe(est.model_) == {"shape": {"circle": {"color": {"blue": "-", "red": "+"}},
                                              "square": "-", "triangle": "-"}}


def test_taxable_income_gini_table_and_cart_split():
    df = load("taxable_income")
    table = C.numeric_split_table(df.taxable_income, df.cheat, "gini")
    # the notes' table (thresholds shown rounded down: 72, 87, 92, 97, 122, 172)
    expected = [(65, 0.400), (72.5, 0.375), (80, 0.343), (87.5, 0.417), (92.5, 0.400), (97.5, 0.300),
                (110, 0.343), (122.5, 0.375), (172.5, 0.400)]
    assert [t for t, _ in table] == [t for t, _ in expected]
    assert [round(g, 3) for _, g in table] == [g for _, g in expected]
    est = CARTClassifier(max_depth=1).fit(df[["taxable_income"]], df.cheat)
    t = est.flat_tree_
    assert t.threshold[0] == 97.0  # the shortest decimal in the middle of 95..100: the notes' "97"
    W = t.weight[0]
    assert (t.impurity[0] * W - t.gain[0]) / W == pytest.approx(0.300, abs=5e-4)


def test_temperature_split_at_71_5():
    temps = [64, 65, 68, 69, 70, 71, 72, 72, 75, 75, 80, 81, 83, 85]
    labels = list("YNYYYNNYYYNYYN")
    table = dict(C.numeric_split_table(temps, labels, "entropy"))
    assert table[71.5] == pytest.approx(0.939, abs=5e-4)


def test_gain_ratio_of_a_unique_id_feature():
    df = load("playgolf")
    day = [f"d{i}" for i in range(len(df))]
    assert C.intrinsic_information(day) == pytest.approx(3.807, abs=5e-4)
    assert C.information_gain(day, df.play) == pytest.approx(0.9403, abs=5e-5)
    # 0.9403 / 3.807 = 0.24699; the notes truncate it to 0.246
    assert C.gain_ratio(day, df.play) == pytest.approx(0.246, abs=1.5e-3)
    # "In this case the attribute Day would still be chosen": its gain is above average too
    X = df.drop(columns="play").assign(day=day)
    est = C45Classifier(prune=None, min_samples_leaf=1).fit(X, df.play)
    assert est.model_.features[est.flat_tree_.feature[0]].name == "day"
    # without it, C4.5 picks outlook like ID3 (gain ratio 0.156 beats humidity's 0.152)
    est = C45Classifier(prune=None, min_samples_leaf=1).fit(df.drop(columns="play"), df.play)
    assert describe(est.model_) == PLAYGOLF_TREE


def test_gain_ratio_average_gain_guard():
    """A test with tiny split information but below-average gain is not chosen."""
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    good = np.where(rng.random(n) < 0.65, y, 1 - y)  # weakly informative, balanced branches
    rare = np.zeros(n, int)
    rare[:5] = 1
    y[:5] = 1  # a nearly-empty branch that is pure: small gain, but tiny split information
    X = pd.DataFrame({"rare": np.array(["a", "b"])[rare], "good": np.array(["p", "q"])[good]})
    ratio = {c: C.gain_ratio(X[c], y) for c in X}
    gain = {c: C.information_gain(X[c], y) for c in X}
    assert ratio["rare"] > ratio["good"]
    assert gain["rare"] < (gain["rare"] + gain["good"]) / 2 < gain["good"]
    guarded = C45Classifier(prune=None, max_depth=1).fit(X, y)
    unguarded = C45Classifier(prune=None, max_depth=1, average_gain_guard=False).fit(X, y)
    assert guarded.model_.features[guarded.flat_tree_.feature[0]].name == "good"
    assert unguarded.model_.features[unguarded.flat_tree_.feature[0]].name == "rare"
