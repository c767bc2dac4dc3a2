"""`rulekit diff` from the command line: exit codes, the three formats, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

GOLF = "rulekit/data/playgolf.csv"
PRUNED = """rulebase rules
target play: classes {no, yes}
feature outlook: nominal {overcast, rainy, sunny}
feature temperature: nominal {cool, hot, mild}
feature humidity: nominal {high, normal}
feature wind: nominal {strong, weak}
semantics first-hit
precision float64
default yes [0, 1]

r1: if (outlook = rainy or outlook is missing) and wind = strong then no [1, 0]
r2: if outlook = sunny then no [0.6, 0.4]
"""


def _rk(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "rulekit", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


@pytest.fixture(scope="module")
def golf(tmp_path_factory):
    d = tmp_path_factory.mktemp("golf")
    assert _rk("fit", GOLF, "--target", "play", "--algorithm", "id3", "-o", d / "golf.json").returncode == 0
    assert _rk("rules", d / "golf.json", "-o", d / "plain.rules").returncode == 0
    (d / "pruned.rules").write_text(PRUNED)  # fixed text: independent of how pruning evolves
    return d


@pytest.mark.slow
def test_a_model_and_its_rules_agree_everywhere(golf):
    r = _rk("diff", golf / "golf.json", golf / "plain.rules")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "same output on every input" in r.stdout
    assert "rules: 0 added, 0 removed, 0 changed" in r.stdout  # the model's rules as 'rules' writes them


@pytest.mark.slow  # ~9 s loaded
def test_pruned_rules_differ_in_regions_and_rows(golf):
    r = _rk("diff", golf / "plain.rules", golf / "pruned.rules", "--data", GOLF)
    assert r.returncode == 1, r.stderr
    assert "yes -> no: outlook = sunny and humidity = normal" in r.stdout
    assert "rows: 2 of 14 change their prediction" in r.stdout
    j = json.loads(_rk("diff", golf / "plain.rules", golf / "pruned.rules", "--data", GOLF,
                       "--format", "json").stdout)
    assert j["agree"] is False and j["regions_computed"] is True and j["n_regions"] == 4
    assert j["rows"]["changed"] == 2 and j["rows"]["confusion"]["after"] == [[5, 0], [2, 7]]
    assert [e["line"] for e in j["rows"]["examples"]] == [10, 12]
    assert j["rows"]["max_abs_dproba"] == 0.6
    c = _rk("diff", golf / "plain.rules", golf / "pruned.rules", "--format", "csv")
    assert c.returncode == 1 and c.stdout.startswith("what,id,kind,before,after,where,target\n")
    assert "region,,label,yes,no,outlook = sunny and humidity = normal," in c.stdout


def test_bad_input_is_one_line_exit_2(golf, tmp_path):
    r = _rk("diff", golf / "plain.rules", tmp_path / "nope.rules")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "no such file" in r.stderr
    (tmp_path / "num.rules").write_text("rulebase r\ntarget play: classes {no, yes}\nfeature outlook: numeric\n"
                                        "default yes\n\nif outlook <= 1 then no\n")
    r = _rk("diff", golf / "plain.rules", tmp_path / "num.rules")
    assert r.returncode == 2 and "is nominal in A and numeric in B" in r.stderr
    assert "Traceback" not in r.stderr


def test_python_api(golf):
    import pandas as pd

    import rulekit

    df = pd.read_csv(GOLF)
    a, b = rulekit.load(golf / "plain.rules"), rulekit.load(golf / "pruned.rules")
    d = rulekit.diff(a, b, df, df["play"])
    assert d.agree is False and d.rows.changed == 2 and d.n_regions == 4
    assert rulekit.diff(rulekit.load(golf / "golf.json"), a).agree is True
    assert rulekit.stats(b, df, df["play"]).rules[0].stats["n"] == 2


def test_forests_rows_equal_each_models_own_predict():
    """Two small forests: labels from one scoring pass (and two threads) equal Model.predict; the
    regions of 2 x 30 trees are skipped with a reason and the rows still come."""
    import numpy as np
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    import rulekit

    X, y = make_classification(2_000, 5, random_state=0)
    a, b = [rulekit.from_sklearn(RandomForestClassifier(30, max_depth=6, random_state=s).fit(X[s::2], y[s::2]))
            for s in (0, 1)]
    Z = np.random.default_rng(1).normal(size=(5_000, 5)) * 2
    Z[::7, 2] = np.nan
    d = rulekit.diff(a, b, Z, (Z[:, 0] > 0).astype(int))
    direct = np.flatnonzero(a.predict(Z) != b.predict(Z)).tolist()
    assert d.rows.changed_rows == direct and direct
    dp = np.abs(a.predict_proba(Z) - b.predict_proba(Z)).max(axis=1)
    assert d.rows.max_abs_dproba == dp.max() and d.rows.mean_abs_dproba == dp.mean()
    assert not d.regions_computed and "regions not computed" in d.regions_note
    assert d.agree is False


@pytest.mark.slow
def test_na_values_are_read_as_missing(golf, tmp_path):
    """`--na-values` as in `predict`: a '?' cell named there reads exactly as an empty cell."""
    rows = open(GOLF).read().splitlines()
    for name, cell in (("empty", ""), ("question", "?")):
        (tmp_path / f"{name}.csv").write_text("\n".join([rows[0], cell + "," + rows[1].split(",", 1)[1],
                                                          *rows[2:]]) + "\n")

    def report(data, *more):
        r = _rk("diff", golf / "golf.json", golf / "pruned.rules", "--data", data, "--format", "json", *more)
        assert r.returncode == 1, r.stderr
        return json.loads(r.stdout)["rows"]

    empty = report(tmp_path / "empty.csv")
    assert report(tmp_path / "question.csv", "--na-values", "?") == empty
    assert report(tmp_path / "question.csv") != empty  # '?' is a value outside the domain otherwise
