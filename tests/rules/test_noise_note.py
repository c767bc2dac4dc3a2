"""The note that a pruned rule base's rules may fit noise (audit finding 12b): on pure noise the
default path kept a 4-condition rule right on 13 of its 21 pruning rows without a word."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd

import rulekit
from rulekit.commands import rules
from rulekit.rules.noise_note import may_fit_noise
from tests.rules.helpers import dnf_concept, fit_default

HEAD = ("rulebase t\ntarget y: classes {no, yes}\nfeature f: nominal {a, b, c}\nsemantics first-hit\n"
        "default no\n\n")


def _rows(counts: dict) -> tuple[pd.DataFrame, np.ndarray]:
    """Rows of feature f with their classes: ``{(f, y): how many}``."""
    f, y = [], []
    for (v, c), k in counts.items():
        f += [v] * k
        y += [c] * k
    return pd.DataFrame({"f": f}, dtype=object), np.array(y, dtype=object)


def test_a_rule_right_on_13_of_21_rows_is_not_clearly_better():
    rb = rulekit.dsl.loads(HEAD + "r1: if f = a then yes\n")
    X, y = _rows({("a", "yes"): 13, ("a", "no"): 8, ("b", "no"): 300, ("b", "yes"): 100})
    said = may_fit_noise(rb, X, y)
    assert said is not None and "313 of the 421 pruning rows" in said and "alone on 308" in said
    assert "sign test on the 21 rows" in said


def test_a_rule_right_on_20_of_21_rows_is():
    rb = rulekit.dsl.loads(HEAD + "r1: if f = a then yes\n")
    X, y = _rows({("a", "yes"): 20, ("a", "no"): 1, ("b", "no"): 300, ("b", "yes"): 100})
    assert may_fit_noise(rb, X, y) is None


def test_no_rules_no_note():
    rb = rulekit.dsl.loads(HEAD)
    X, y = _rows({("a", "yes"): 13, ("a", "no"): 8})
    assert may_fit_noise(rb, X, y) is None


def _stderr(tmp_path, df: pd.DataFrame) -> str:
    """``rulekit rules m.json --prune-data prune.csv --dnf`` after ``rulekit fit``: what it says."""
    df.iloc[: len(df) // 2].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[len(df) // 2:].to_csv(tmp_path / "prune.csv", index=False)
    fit_default(tmp_path)
    said = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(said):
        rules.run(model=tmp_path / "m.json", prune_data=tmp_path / "prune.csv", dnf=True, order="first-hit",
                  output=tmp_path / "r.rules")
    return said.getvalue()


def test_the_default_path_says_so_on_the_audit_noise(tmp_path):
    """The audit's make_noise.py: 30% yes independent of six 3-valued features."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame({f"f{j}": rng.choice(list("abc"), 1200) for j in range(6)})
    df["y"] = rng.choice(["yes", "no"], 1200, p=[0.3, 0.7])
    said = _stderr(tmp_path, df)
    assert "wrote" in said and "(1 rule, 4 conditions)" in said
    assert "note: the 1 rule kept is right on 426 of the 600 pruning rows, the default 'no' alone on 421" in said


def test_no_note_on_a_concept(tmp_path):
    X, y, _ = dnf_concept(1, n=1200, noise=0.02)
    said = _stderr(tmp_path, X.assign(y=y))
    assert "wrote" in said and "may fit noise" not in said
