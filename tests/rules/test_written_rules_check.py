"""Every rules file ``rulekit rules MODEL --prune-data`` writes passes ``rulekit check``, and its
predictions are the most probable class of its own probabilities (audit findings 1 and 2): on
random small data (a DNF concept with label noise, pure noise, a 50/50 coin) and every documented
option combination: --prune pessimistic | reduced-error | the default path, --dnf or not,
--select mdl | none.
"""

from __future__ import annotations

import io
import itertools
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.commands import check, rules
from tests.rules.helpers import fit_default

PRUNES = (None, "pessimistic", "reduced-error")
COMBOS = list(itertools.product(PRUNES, (True, False), ("mdl", "none")))


def _data(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Training and pruning rows: nominal and numeric columns, a target that is a concept with
    10-30% label noise, pure noise with a random class balance, or a fair coin."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(80, 400))
    df = pd.DataFrame({f"f{j}": rng.choice(list("abc"), n) for j in range(4)})
    df["x"] = rng.integers(0, 50, n)
    kind = seed % 3
    if kind == 0:
        clean = ((df.f0 == "a") & (df.x > 20)) | (df.f1 == "b")
        y = clean.to_numpy() ^ (rng.random(n) < rng.uniform(0.1, 0.3))
    else:
        y = rng.random(n) < (0.5 if kind == 1 else rng.uniform(0.2, 0.8))
    df["y"] = np.where(y, "yes", "no")
    cut = int(n * rng.uniform(0.3, 0.7))
    return df.iloc[:cut], df.iloc[cut:]


def _write_and_read(tmp_path, prune, dnf, select):
    out = tmp_path / f"{prune}-{dnf}-{select}.rules"
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        rc = rules.run(model=tmp_path / "m.json", prune_data=tmp_path / "prune.csv", dnf=dnf, order="first-hit",
                       output=out, prune=prune, select=select, quiet=True)
    assert rc == 0
    return out


def _problems(path, prune_rows: pd.DataFrame) -> list[str]:
    said = io.StringIO()
    with redirect_stdout(said), redirect_stderr(io.StringIO()):
        rc = check.run(path, quiet=True)
    out = [] if rc == 0 else [f"check: {said.getvalue().strip()}"]
    rb = rulekit.load(path)
    X = prune_rows.drop(columns=["y"])
    labels = np.asarray(rb.predict(X), dtype=object)
    proba = np.asarray(rb.predict_proba(X))
    classes = list(rb.classes)
    mine = proba[np.arange(len(labels)), [classes.index(v) for v in labels.tolist()]]
    if (mine < proba.max(axis=1)).any():
        out.append(f"predict labels {int((mine < proba.max(axis=1)).sum())} rows against their probabilities")
    return out


@pytest.mark.parametrize("seed", range(9))
def test_every_written_rules_file_passes_check(tmp_path, seed):
    train, prune_rows = _data(seed)
    train.to_csv(tmp_path / "train.csv", index=False)
    prune_rows.to_csv(tmp_path / "prune.csv", index=False)
    fit_default(tmp_path)
    bad = {}
    for prune, dnf, select in COMBOS:
        found = _problems(_write_and_read(tmp_path, prune, dnf, select), prune_rows)
        if found:
            bad[(prune, dnf, select)] = found
    assert not bad
