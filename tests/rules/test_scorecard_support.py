"""The scorecard's messages on tiny and degenerate data (audit item 13): a card with no rule says why
and what it predicts (a tie and how it broke); rules the rows do not support are warned about from
a held-out check; degenerate inputs give one truthful line or exit 2, never a traceback."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from rulekit.rules import scorecard_support

WARN = "rulekit: warning: "


def _card(tmp_path, run, df, *more):
    df.to_csv(tmp_path / "d.csv", index=False)
    r = run("rules", "d.csv", "--target", "y", "--scorecard", *more, "-o", "o.rules", cwd=tmp_path)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    return r


def _warnings(r):
    return [line[len(WARN):] for line in r.stderr.splitlines() if line.startswith(WARN)]


def test_a_tie_with_no_test_is_told_as_a_tie(tmp_path, run):
    """Two 'n' and two 'm' rows, a constant text column: the card predicts 'm' (first in order) for
    every case because the classes tie, not because every case is 'm'."""
    df = pd.DataFrame({"w": [7.0, 9.0, 11.0, 13.0], "site": ["K"] * 4, "y": ["n", "m", "n", "m"]})
    r = _card(tmp_path, run, df)
    assert r.returncode == 0
    (w,) = _warnings(r)
    assert w.startswith("no test separates the classes: every test considered"), w
    assert "leaves the classes their shares of all 4 rows" in w
    assert w.endswith("predicts 'm' for every case ('m' and 'n' tie at 2 rows each; the first class in order wins)"), w


@pytest.mark.parametrize("case, reason", [
    ("all_missing", "every feature is missing or constant on the 10 rows"),
    ("all_constant", "every feature is missing or constant on the 10 rows"),
    ("three_rows", "too few rows: no test holds on 2 or more of the 3 rows and fails on 2 or more"),
    ("conflicting_duplicates", "leaves the classes their shares of all 12 rows"),
])
def test_why_no_test_was_kept(tmp_path, run, case, reason):
    y10 = ["m", "n", "n", "m", "n", "m", "n", "n", "m", "n"]  # 6 'n', 4 'm'
    df = {"all_missing": pd.DataFrame({"w": [np.nan] * 10, "s": [None] * 10, "y": y10}),
          "all_constant": pd.DataFrame({"w": [2.5] * 10, "s": ["K"] * 10, "y": y10}),
          "three_rows": pd.DataFrame({"w": [1.0, 2.0, 3.0], "y": ["n", "m", "n"]}),
          "conflicting_duplicates": pd.DataFrame({"w": [4.0, 4.0, 8.0, 8.0, 6.0, 6.0] * 2,
                                                  "y": ["n", "m", "m", "n"] * 3})}[case]
    r = _card(tmp_path, run, df, "-q")
    assert r.returncode == 0
    (w,) = _warnings(r)
    assert reason in w, w
    majority = "'n' for every case (the majority class: 2 of 3 rows)" if case == "three_rows" else \
        "'m' for every case ('m' and 'n' tie at 6 rows each" if case == "conflicting_duplicates" else \
        "'n' for every case (the majority class: 6 of 10 rows)"
    assert majority in w, w


def test_alternating_rows_keep_no_test(tmp_path, run):
    """8 alternating rows: cards grown on four fifths label fewer held-out rows right than the start
    points, so the card keeps no test (it kept 5 noise rules) and one line says why (audit 3 #6)."""
    df = pd.DataFrame({"w": np.arange(8) * 2.0 + 1, "y": ["m", "n"] * 4})
    r = _card(tmp_path, run, df)
    assert r.returncode == 0
    (w,) = _warnings(r)
    assert w.startswith("no test is kept: cards grown on four fifths of the 8 rows label no clearly more"), w
    assert not re.findall(r"^s\d+: ", (tmp_path / "o.rules").read_text(), re.M)


def test_a_shuffled_target_keeps_no_test(tmp_path, run):
    """600 rows, a target independent of four columns: no test (an 11-test card before)."""
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"a": rng.normal(size=600).round(3), "b": rng.normal(size=600).round(3),
                       "c": rng.integers(0, 50, 600), "g": rng.choice(["u", "v", "w"], 600),
                       "y": rng.choice(["yes", "no"], 600, p=[0.45, 0.55])})
    r = _card(tmp_path, run, df)
    assert r.returncode == 0 and "no test is kept" in r.stderr, r.stderr
    assert not re.findall(r"^s\d+: ", (tmp_path / "o.rules").read_text(), re.M)


def test_the_verdict_says_how_the_counts_compare():
    """'fewer' where the cards label fewer held-out rows right (it said 'not clearly more': audit 3 #6)."""
    assert scorecard_support.verdict(209, 245) == "fewer"
    assert scorecard_support.verdict(245, 245) == "as many"
    assert scorecard_support.verdict(250, 245).startswith("not clearly more")


def test_rules_that_help_are_not_warned_about(tmp_path, run):
    """A clear threshold concept on 60 rows: no warning."""
    rng = np.random.default_rng(3)
    w = rng.normal(size=60).round(2)
    df = pd.DataFrame({"w": w, "z": rng.normal(size=60).round(2), "y": np.where(w > 0.1, "n", "m")})
    r = _card(tmp_path, run, df)
    assert r.returncode == 0 and _warnings(r) == [], r.stderr


def test_the_check_counts_held_out_rows():
    """The held-out counts: every row is held out once; on a separable concept the cards label all
    200 right and the start points only the majority; on shuffled labels no more than the majority
    and a few rows (the card's size is chosen on held-out rows, so it stays near the start points)."""
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"w": rng.normal(size=200).round(3)})
    for y, clear in ((np.where(X.w > 0.3, "n", "m"), True), (rng.permutation(np.where(X.w > 0.3, "n", "m")), False)):
        card, start = scorecard_support.held_out(np.asarray(X, float), [False], np.where(y == "n", 1, 0),
                                                 2, 12, 64, 1.0, 2)
        assert card.size == start.size == 200
        assert start.sum() == max((y == "n").sum(), (y == "m").sum())
        assert scorecard_support.clearly_better(card, start) is clear
        assert (card.sum() >= 196) if clear else (card.sum() <= start.sum() + 4)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30])
@pytest.mark.parametrize("kind", ["alternating", "random", "one_class", "one_row_class"])
def test_small_and_degenerate_data_give_one_line_or_exit_2(tmp_path, run, n, kind):
    rng = np.random.default_rng(n)
    y = {"alternating": ["m", "n"] * n, "random": list(rng.choice(["m", "n", "o"], n)),
         "one_class": ["n"] * n, "one_row_class": ["m"] + ["n"] * (n - 1)}[kind][:n]
    df = pd.DataFrame({"w": rng.normal(size=n).round(2), "s": rng.choice(["K", "L"], n), "y": y})
    r = _card(tmp_path, run, df, "-q")
    lines = r.stderr.strip().splitlines()
    if len(set(y)) < 2:
        assert r.returncode == 2 and len(lines) == 1, r.stderr
        assert "a scorecard needs two classes or more" in lines[0]
        assert ("the only row has" if n == 1 else f"all {n} rows have") in lines[0]
        return
    assert r.returncode == 0 and len(lines) <= 1 and len(_warnings(r)) == len(lines), r.stderr
    rules = len(re.findall(r"^s\d+: ", (tmp_path / "o.rules").read_text(), re.M))
    if rules == 0:
        assert _warnings(r)[0].startswith(("no test separates the classes: ", "no test is kept: ")), r.stderr
    elif kind == "one_row_class":  # held out, the one 'm' row is never learned: rules cannot help
        assert _warnings(r) and "do not show that these" in _warnings(r)[0], r.stderr


def test_no_pointer_to_induced_rules_that_only_match_the_majority(tmp_path, run):
    """20 alternating rows: induced rules label half the held-out rows right (the majority's share),
    cards fewer; the note pointing to --induce stays quiet, since those rules do not help either."""
    df = pd.DataFrame({"w": np.arange(20) * 1.5, "y": ["m", "n"] * 10})
    r = _card(tmp_path, run, df)
    assert r.returncode == 0 and "rules induced from the same rows" not in r.stderr, r.stderr
    yc = np.array([0, 1] * 10)
    assert scorecard_support.start_right(yc, 2).sum() == 10
