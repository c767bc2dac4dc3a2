"""Every command on a 10^6-node model, end to end through the CLI (issue 25: linear in size).

A scikit-learn tree grown to at most 500,000 leaves (on 1M noisy rows it stops at 423,059
nodes, 211,530 leaves) is imported and saved; then
``show``, ``predict`` (100k rows), ``rules``, ``export`` (SQL, Python, ONNX) and ``verify``
(python, sqlite, onnx on 1,000 rows plus probes) each run (up to TIMEOUT seconds) as ``python -m rulekit`` in a child
process. The peer is scikit-learn on the same tree in a child process: unpickle and
``predict_proba`` the same rows (what ``rulekit predict`` does). Each command also runs on a
tree 8x smaller: time(10^6) / time(10^6 / 8) near 8 means linear. CPU seconds (user + sys of
the child) are reported next to wall time, as the machine may be shared.
"""

from __future__ import annotations

import pickle
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TIMEOUT = 300.0  # seconds per command; a slower one is reported as inf
COMMANDS = {
    "show": ["show", "{model}", "-o", "{dir}/show.txt"],
    "predict": ["predict", "{model}", "{rows}", "-o", "{dir}/pred.csv"],
    "export sql": ["export", "{model}", "--to", "sql", "--dialect", "sqlite", "--table", "t", "-o",
                   "{dir}/model.sql"],
    "export python": ["export", "{model}", "--to", "python", "-o", "{dir}/model.py"],
    "export onnx": ["export", "{model}", "--to", "onnx", "-o", "{dir}/model.onnx"],
    "verify": ["verify", "{model}", "{small}", "--backends", "python,sqlite,onnx"],
    "rules": ["rules", "{model}", "-o", "{dir}/model.rules"],
}


def _child(argv: list[str], timeout: float = TIMEOUT) -> tuple[float, float]:
    """(wall, cpu) seconds of one child process, (inf, inf) past ``timeout``; a failure raises
    with its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # subprocess.run kills the child
        return float("inf"), float("inf")
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv[:5])}: exit {proc.returncode}: {proc.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _tree(n_leaves: int, n_rows: int, seed: int = 0):
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 8))
    y = ((X[:, 0] + X[:, 1] > 0) ^ (rng.random(n_rows) < 0.3)).astype(int)
    return DecisionTreeClassifier(max_leaf_nodes=n_leaves, random_state=0).fit(X, y)


def _setup(folder: Path, n_leaves: int, n_rows: int, tag: str) -> dict:
    import pandas as pd

    import rulekit

    tree = _tree(n_leaves, max(n_rows, 2 * n_leaves))
    model = rulekit.from_sklearn(tree)
    paths = {"model": str(folder / f"{tag}.json"), "pickle": str(folder / f"{tag}.pkl"),
             "rows": str(folder / "rows.csv"), "small": str(folder / "small.csv"), "dir": str(folder)}
    model.save(paths["model"])
    Path(paths["pickle"]).write_bytes(pickle.dumps(tree))
    if not Path(paths["rows"]).exists():
        rng = np.random.default_rng(1)
        X = rng.normal(size=(100_000, 8))
        X[::37, 2] = np.nan
        cols = [f.name for f in model.features]
        pd.DataFrame(X, columns=cols).to_csv(paths["rows"], index=False)
        pd.DataFrame(X[:1000], columns=cols).to_csv(paths["small"], index=False)
    paths["nodes"] = tree.tree_.node_count
    return paths


def _peer(paths: dict) -> tuple[float, float]:
    code = ("import pickle, sys, pandas as pd; t = pickle.load(open(sys.argv[1], 'rb')); "
            "X = pd.read_csv(sys.argv[2]).to_numpy(); t.predict_proba(X)")
    return _child([sys.executable, "-c", code, paths["pickle"], paths["rows"]])


def run(quick: bool = False, leaves: int | None = None, rows_per_leaf: int = 2) -> list[dict]:
    """``leaves``: the big tree's leaf budget (default 500,000); ``rows_per_leaf``: training rows per
    budgeted leaf. The default 2 stops at 211,530 leaves (pure leaves); the 10^6-node row needs
    ~5 (2.5M training rows)."""
    big = 1 << 13 if quick else leaves or 500_000
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sizes = {"big": _setup(folder, big, rows_per_leaf * big, "big"),
                 "small": _setup(folder, big // 8, rows_per_leaf * big // 8, "small")}
        peer = {k: _peer(p) for k, p in sizes.items()}
        name = f"1 tree, {sizes['big']['nodes']:,} nodes (and {sizes['small']['nodes']:,})"
        for cmd, template in COMMANDS.items():
            times = {}
            for k, p in sizes.items():
                argv = [a.format(**p) for a in template]
                times[k] = _child([sys.executable, "-m", "rulekit", *argv])
            (wall, cpu), (_, cpu_small) = times["big"], times["small"]
            growth = cpu / cpu_small if cpu_small else None
            rows.append({"benchmark": name, "metric": f"{cmd}: wall (CPU {cpu:.1f} s, "
                         f"x{growth:.1f} for 8x nodes)", "unit": "s",
                         "rulekit": wall if wall != float("inf") else f"> {TIMEOUT:.0f}",
                         "peer": "sklearn unpickle + predict_proba 100k rows",
                         "peer_value": peer["big"][0],
                         "goal": "linear: CPU growth <= 12x for 8x nodes; < 120 s",
                         "ok": growth is not None and growth <= 12 and wall < 120})
    return rows


def _flag(name: str, default: int | None) -> int | None:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv, leaves=_flag("--leaves", None),
                   rows_per_leaf=_flag("--rows-per-leaf", 2)):
        print(row)
