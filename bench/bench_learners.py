"""rulekit's learners against scikit-learn and chefboost, measured in one run (issue #3).

* CART on 50k rows x 10 numeric features (make_classification), at the same depth as scikit-learn's
  DecisionTreeClassifier: fit time within 3x, held-out accuracy within one point.
* Random forest, 100 trees, same data: fit time within 3x of scikit-learn with n_jobs=1.
* ID3 and C4.5 on nominal data: fit at least 50x faster than chefboost (its pure-Python learner),
  and C4.5 on numeric data: held-out accuracy against chefboost's C4.5.

Times are the best of a few alternating rounds, so both sides see the same machine load. Quick mode
shrinks every data set. A peer that is not installed gives rows with ``peer_value`` None.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time

import numpy as np

from _timing import best_time




def _alternate(ours, theirs, repeat):
    """Best-of-``repeat`` times of two callables measured in alternating rounds."""
    t_ours, t_theirs = float("inf"), float("inf")
    out_ours = out_theirs = None
    for _ in range(repeat):
        t, out_ours = best_time(ours, 1)
        t_ours = min(t_ours, t)
        if theirs is not None:
            t, out_theirs = best_time(theirs, 1)
            t_theirs = min(t_theirs, t)
    return t_ours, out_ours, (None if theirs is None else t_theirs), out_theirs


def _numeric_data(n, seed=0):
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(n_samples=n, n_features=10, n_informative=6, n_redundant=2,
                               flip_y=0.03, random_state=seed)
    return train_test_split(X, y, test_size=0.25, random_state=seed)


def _nominal_data(n, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    cols = {f"f{i}": rng.choice(list("abcde"[: 3 + i % 3]), n) for i in range(8)}
    df = pd.DataFrame(cols)
    signal = df.f0.isin(["a", "b"]) ^ (df.f1 == "c") ^ (df.f2 == "a") & (df.f3 != "b")
    df["Decision"] = np.where(signal ^ (rng.random(n) < 0.05), "yes", "no")
    return df.astype(object)


def _cart_rows(quick):
    from sklearn.tree import DecisionTreeClassifier

    from rulekit.learners import CARTClassifier

    n = 10_000 if quick else 50_000
    Xtr, Xte, ytr, yte = _numeric_data(n)
    rows = []
    for depth in (8, 12, None):
        t_rk, rk, t_sk, sk = _alternate(lambda: CARTClassifier(max_depth=depth).fit(Xtr, ytr),
                                        lambda: DecisionTreeClassifier(max_depth=depth, random_state=0).fit(Xtr, ytr),
                                        2 if quick else 3)
        label = f"CART {n // 1000}k x 10, depth {depth or 'full'}"
        rows.append(dict(benchmark="learners", metric=f"{label}: fit time", unit="s", rulekit=t_rk,
                         peer="sklearn DecisionTreeClassifier", peer_value=t_sk, goal="<= 3x",
                         ok=t_rk <= 3 * t_sk))
        a_rk, a_sk = rk.score(Xte, yte), sk.score(Xte, yte)
        rows.append(dict(benchmark="learners", metric=f"{label}: held-out accuracy", unit="",
                         rulekit=a_rk, peer="sklearn DecisionTreeClassifier", peer_value=a_sk,
                         goal="within 1 point", ok=a_rk >= a_sk - 0.01))
    return rows


def _forest_rows(quick):
    from sklearn.ensemble import RandomForestClassifier as SkForest

    from rulekit.learners import RandomForestClassifier

    n = 10_000 if quick else 50_000
    n_trees = 20 if quick else 100
    Xtr, Xte, ytr, yte = _numeric_data(n, seed=1)
    t_rk, rk, t_sk, sk = _alternate(
        lambda: RandomForestClassifier(n_trees, random_state=0).fit(Xtr, ytr),
        lambda: SkForest(n_trees, random_state=0, n_jobs=1).fit(Xtr, ytr), 1 if not quick else 2)
    label = f"random forest {n_trees} trees, {n // 1000}k x 10"
    t_model, _ = best_time(lambda: rk._build_model(), 1)
    return [
        dict(benchmark="learners", metric=f"{label}: fit time", unit="s", rulekit=t_rk,
             peer="sklearn RandomForestClassifier n_jobs=1", peer_value=t_sk, goal="<= 3x", ok=t_rk <= 3 * t_sk),
        dict(benchmark="learners", metric=f"{label}: held-out accuracy", unit="", rulekit=rk.score(Xte, yte),
             peer="sklearn RandomForestClassifier", peer_value=sk.score(Xte, yte), goal="within 1 point",
             ok=rk.score(Xte, yte) >= sk.score(Xte, yte) - 0.01),
        dict(benchmark="learners", metric=f"{label}: building model_ (networkx IR) after fit", unit="s",
             rulekit=t_model, peer="", peer_value=None, goal="(information)"),
    ]


@contextlib.contextmanager
def _in_tmpdir():
    """chefboost writes its rules as ./outputs/rules/*.py and imports them from the working
    directory: give it a fresh one on sys.path, and forget the modules afterwards."""
    import sys

    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="rk_bench_chef_") as d:
        os.chdir(d)
        sys.path.insert(0, d)
        try:
            yield
        finally:
            sys.path.remove(d)
            for name in [m for m in sys.modules if m == "outputs" or m.startswith("outputs.")]:
                del sys.modules[name]
            os.chdir(old)


def _chef_fit(df, algorithm):
    from chefboost import Chefboost as chef

    with _in_tmpdir(), contextlib.redirect_stdout(open(os.devnull, "w")):
        return chef.fit(df.copy(), config={"algorithm": algorithm, "enableParallelism": False},
                        target_label="Decision", silent=True)


def _chef_accuracy(model, X, y):
    from chefboost import Chefboost as chef

    with _in_tmpdir(), contextlib.redirect_stdout(open(os.devnull, "w")):
        pred = [chef.predict(model, row) for row in X.values.tolist()]
    return float(np.mean(np.asarray(pred, dtype=object) == np.asarray(y, dtype=object)))


def _chefboost_rows(quick):
    from rulekit.learners import C45Classifier, ID3Classifier

    try:
        import chefboost  # noqa: F401
        have = True
    except ImportError:
        have = False
    rows = []
    n = 300 if quick else 1000
    df = _nominal_data(n)
    X, y = df.drop(columns="Decision"), df.Decision
    for name, est, algo in (("ID3", ID3Classifier(), "ID3"), ("C4.5", C45Classifier(), "C4.5")):
        t_rk, _ = best_time(lambda: est.fit(X, y), 3)
        t_chef = best_time(lambda: _chef_fit(df, algo), 1)[0] if have else None
        rows.append(dict(benchmark="learners", metric=f"{name} on {n} rows x 8 nominal: fit time", unit="s",
                         rulekit=t_rk, peer="chefboost 0.0.19" if have else "chefboost (not installed)",
                         peer_value=t_chef, goal=">= 50x faster",
                         ok=None if t_chef is None else t_rk * 50 <= t_chef))
    # C4.5 on plain numeric data: chefboost tries a handful of thresholds per feature
    import pandas as pd

    m = 600 if quick else 2000
    Xtr, Xte, ytr, yte = _numeric_data(m, seed=2)
    cols = [f"x{i}" for i in range(Xtr.shape[1])]
    ours = C45Classifier().fit(Xtr, ytr)
    acc_rk = ours.score(Xte, yte)
    acc_chef = None
    if have:
        train = pd.DataFrame(Xtr, columns=cols).assign(Decision=np.where(ytr == 1, "yes", "no")).astype(
            {"Decision": object})
        model = _chef_fit(train, "C4.5")
        acc_chef = _chef_accuracy(model, pd.DataFrame(Xte, columns=cols), np.where(yte == 1, "yes", "no"))
    rows.append(dict(benchmark="learners", metric=f"C4.5 on {m} rows x 10 numeric: held-out accuracy", unit="",
                     rulekit=acc_rk, peer="chefboost C4.5" if have else "chefboost (not installed)",
                     peer_value=acc_chef, goal=">= peer", ok=None if acc_chef is None else acc_rk >= acc_chef))
    return rows


def run(quick: bool = False) -> list[dict]:
    return _cart_rows(quick) + _forest_rows(quick) + _chefboost_rows(quick)
