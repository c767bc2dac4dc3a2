"""Every command on big single-tree models, end to end through the CLI (issue 25: linear in size).

    python bench/bench_big.py                          # 10^4, 10^5, 10^6 nodes (the 10^6 row: minutes)
    python bench/bench_big.py --sizes 10000,100000     # other sizes (nodes, odd numbers are exact)
    python bench/bench_big.py --only rules,show        # some commands
    python bench/bench_big.py --keep DIR               # keep the generated models and rows in DIR
    python bench/bench_big.py --sklearn --leaves N     # the older trained tree (N leaves, ~2N rows;
                                                       # --leaves alone means --sklearn, as before)

The model is generated, not trained (training a 10^6-node tree needs ~2.5M rows): a random
binary tree with ``(nodes + 1) / 2`` leaves built by the IR's own constructors (so it is a valid
rulekit model file), with a realistic mix: six float32 ``<=`` numeric features (thresholds are
float32 midpoints, as scikit-learn writes them) and two nominal ones (subset splits, some with an
"every other value" branch), a random missing branch at every split, three-class leaf
distributions with ``n_samples``. A hostile feature name is among them. Each node's region is
kept as a box while building, so every leaf is reachable; the data has one row per leaf, cycling
through the box's middle, its upper corner (on the thresholds), its lower corner (the float32
neighbours above thresholds) and a row with every feature the path allows to be missing left
empty.

Each command (``show``, ``predict`` on the one-row-per-leaf data, ``rules``, ``export --to
sql/python/onnx`` and ``verify`` with python, sqlite and onnx on 1,000 of those rows) runs as
``python -m rulekit`` in a child process under GNU time (``/usr/bin/time``): wall seconds, CPU
seconds and peak RSS of that child. The table's "per node" columns divide CPU by the node count and compare it
with the smallest size's: 1.0 is linear (the goal: within 1.5x). Seconds are rough when the
machine is shared; ratios measured in the same run are what to read.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TIME = "/usr/bin/time"  # GNU time
TIMEOUT = 1800.0  # seconds per command (wall: a shared machine); a slower one is reported as inf
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
SIZES = (10_001, 100_001, 1_000_001)
N_NUMERIC = 6
NOMINAL_DOMAINS = (8, 20)
CLASSES = ("low", "mid", "high")


def _nextup32(v: np.float32) -> np.float32:
    return np.nextafter(v, np.float32(np.inf))


def random_tree(n_nodes: int, seed: int = 0):
    """(model, rows): a valid random single-tree rulekit Model of ``n_nodes`` nodes (rounded up to
    odd) and a float matrix with one row per leaf that reaches it (nominal columns hold codes,
    NaN is missing). Built with an explicit stack in pre-order, node ids 0..n-1."""
    from rulekit.ir.model import Model
    from rulekit.ir.schema import Feature
    from rulekit.ir.tree import graph_from_parts

    rng = np.random.default_rng(seed)
    n_leaves = max(1, (n_nodes + 1) // 2)
    n_feat = N_NUMERIC + len(NOMINAL_DOMAINS)
    names = [f"x{j}" for j in range(N_NUMERIC)]
    names[1] = 'it\'s "x1", a name'
    features = [Feature(name=n) for n in names]
    for k, size in enumerate(NOMINAL_DOMAINS):
        features.append(Feature(name=f"colour {k}", kind="nominal",
                                domain=tuple(f"c{i:02d}" for i in range(size))))
    nodes: list[dict] = []
    edges: list[tuple[int, int, dict]] = []
    rows = np.empty((n_leaves, n_feat))
    lo0 = np.full(N_NUMERIC, -1e4, np.float32)
    hi0 = np.full(N_NUMERIC, 1e4, np.float32)
    codes0 = tuple(tuple(range(s)) for s in NOMINAL_DOMAINS)
    # stack: (parent, branch, edge values, leaf budget, lo, hi, codes, missing allowed per feature)
    stack = [(-1, 0, None, n_leaves, lo0, hi0, codes0, (True,) * n_feat)]
    u = rng.random(4 * n_leaves + 16)  # pre-drawn uniforms, refilled when used up
    ui = 0
    leaf = 0
    while stack:
        parent, branch, values, budget, lo, hi, codes, miss_ok = stack.pop()
        node = len(nodes)
        if parent >= 0:
            edges.append((parent, node, {"branch": branch} if values is False else
                          {"branch": branch, "values": values}))
        if ui + 8 > len(u):
            u, ui = rng.random(4 * n_leaves + 16), 0
        if budget == 1:
            p = rng.dirichlet((1.0, 1.0, 1.0))
            nodes.append({"kind": "leaf", "value": tuple(float(v) for v in p),
                          "n_samples": float(1 + int(u[ui] * 50))})
            ui += 1
            variant = leaf % 4
            row = rows[leaf]
            if variant == 0:
                row[:N_NUMERIC] = (lo.astype(np.float64) + hi) / 2
            else:
                row[:N_NUMERIC] = hi if variant == 1 else lo
            for k, c in enumerate(codes):
                row[N_NUMERIC + k] = c[leaf % len(c)]
            if variant == 3:
                row[np.asarray(miss_ok)] = np.nan
            leaf += 1
            continue
        left = max(1, min(budget - 1, int(budget * (0.2 + 0.6 * u[ui]))))
        ui += 1
        # a feature that can still be split: numeric with room, nominal with two codes or more
        f = int(u[ui] * n_feat)
        ui += 1
        for _ in range(n_feat):
            if f < N_NUMERIC and float(hi[f]) - float(lo[f]) > 1e-2:
                break
            if f >= N_NUMERIC and len(codes[f - N_NUMERIC]) >= 2:
                break
            f = (f + 1) % n_feat
        miss = int(u[ui] < 0.5)
        ui += 1
        ok0 = miss_ok[:f] + (miss_ok[f] and miss == 0,) + miss_ok[f + 1:]
        ok1 = miss_ok[:f] + (miss_ok[f] and miss == 1,) + miss_ok[f + 1:]
        if f < N_NUMERIC:
            v = np.float32(lo[f] + (0.25 + 0.5 * u[ui]) * (float(hi[f]) - float(lo[f])))
            ui += 1
            t = (float(v) + float(_nextup32(v))) / 2  # scikit-learn's threshold between two float32
            nodes.append({"kind": "numeric", "feature": f, "threshold": t, "op": "<=",
                          "precision": "float32", "missing": miss})
            hi_l = hi.copy()
            hi_l[f] = v
            lo_r = lo.copy()
            lo_r[f] = _nextup32(v)
            stack.append((node, 1, False, budget - left, lo_r, hi, codes, ok1))
            stack.append((node, 0, False, left, lo, hi_l, codes, ok0))
        else:
            k = f - N_NUMERIC
            c = codes[k]
            cut = 1 + int(u[ui] * (len(c) - 1))
            ui += 1
            perm = rng.permutation(c)
            a, b = tuple(sorted(int(x) for x in perm[:cut])), tuple(sorted(int(x) for x in perm[cut:]))
            other = u[ui] < 0.5  # branch 1 takes every value branch 0 does not (unseen ones too)
            ui += 1
            nodes.append({"kind": "nominal", "feature": f, "missing": miss})
            ca = codes[:k] + (a,) + codes[k + 1:]
            cb = codes[:k] + (b,) + codes[k + 1:]
            stack.append((node, 1, None if other else b, budget - left, lo, hi, cb, ok1))
            stack.append((node, 0, a, left, lo, hi, ca, ok0))
    tree = graph_from_parts(nodes, edges)
    model = Model([tree], features, task="classification", classes=list(CLASSES), target="class")
    return model, rows


def _frame(model, rows: np.ndarray):
    import pandas as pd

    cols = {}
    for j, f in enumerate(model.features):
        col = rows[:, j]
        if f.kind == "nominal":
            cols[f.name] = [None if np.isnan(v) else f.domain[int(v)] for v in col]
        else:
            cols[f.name] = col
    return pd.DataFrame(cols)


def _child(argv: list[str], timeout: float = TIMEOUT) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one child process, measured by GNU time (``/usr/bin/time``,
    which forks from a small process: a child forked from this one would report this one's RSS as
    its peak); (inf, inf, nan) past ``timeout``; a failure raises with its stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "time.txt"
        err = Path(tmp) / "stderr.txt"
        with open(err, "wb") as sink:
            proc = subprocess.Popen([TIME, "-o", str(report), "-f", "%e %U %S %M", *argv],
                                    stdout=subprocess.DEVNULL, stderr=sink, start_new_session=True)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # GNU time and the command under it
                proc.wait()
                return float("inf"), float("inf"), float("nan")
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"{' '.join(argv[3:8])}: exit {proc.returncode}: "
                               f"{err.read_text(errors='replace')[-500:]}")
        wall, user, system, rss_kb = report.read_text().split()[-4:]
    return float(wall), float(user) + float(system), float(rss_kb) / 1024


def _setup_generated(folder: Path, n_nodes: int) -> dict:
    model, rows = random_tree(n_nodes)
    tag = f"n{n_nodes}"
    paths = {"model": str(folder / f"{tag}.json"), "rows": str(folder / f"{tag}_rows.csv"),
             "small": str(folder / f"{tag}_small.csv"), "dir": str(folder / tag)}
    Path(paths["dir"]).mkdir(exist_ok=True)
    model.save(paths["model"])
    frame = _frame(model, rows)
    frame.to_csv(paths["rows"], index=False)
    pick = np.random.default_rng(1).choice(len(frame), size=min(1000, len(frame)), replace=False)
    frame.iloc[np.sort(pick)].to_csv(paths["small"], index=False)
    paths["nodes"] = model.trees[0].number_of_nodes()
    paths["leaves"] = len(rows)
    return paths


def _sk_tree(n_leaves: int, n_rows: int, seed: int = 0):
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 8))
    y = ((X[:, 0] + X[:, 1] > 0) ^ (rng.random(n_rows) < 0.3)).astype(int)
    return DecisionTreeClassifier(max_leaf_nodes=n_leaves, random_state=0).fit(X, y)


def _setup_sklearn(folder: Path, n_leaves: int, rows_per_leaf: int) -> dict:
    """The older trained tree: scikit-learn grown to at most ``n_leaves`` leaves on noisy rows (it
    stops early when leaves turn pure: 211,530 leaves from 1M rows)."""
    import pandas as pd

    import rulekit

    tree = _sk_tree(n_leaves, max(rows_per_leaf * n_leaves, 2 * n_leaves))
    model = rulekit.from_sklearn(tree)
    tag = f"sk{n_leaves}"
    paths = {"model": str(folder / f"{tag}.json"), "rows": str(folder / "sk_rows.csv"),
             "small": str(folder / "sk_small.csv"), "dir": str(folder / tag),
             "pickle": str(folder / f"{tag}.pkl")}
    Path(paths["dir"]).mkdir(exist_ok=True)
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
    paths["leaves"] = tree.tree_.n_leaves
    return paths


def measure(sizes: list[dict], commands: list[str]) -> list[dict]:
    """One row per (command, size): wall, CPU, peak RSS and CPU per node against the first size."""
    out = []
    for cmd in commands:
        base = None
        for p in sizes:
            argv = [a.format(**p) for a in COMMANDS[cmd]]
            wall, cpu, rss = _child([sys.executable, "-m", "rulekit", *argv])
            per_node = cpu / p["nodes"] * 1e6
            base = base or per_node
            out.append({"command": cmd, "nodes": p["nodes"], "leaves": p["leaves"], "wall": wall,
                        "cpu": cpu, "rss_mb": rss, "us_per_node": per_node,
                        "vs_smallest": per_node / base})
            print(_line(out[-1]), file=sys.stderr, flush=True)
    return out


def _line(r: dict) -> str:
    return (f"| {r['command']} | {r['nodes']:,} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['rss_mb']:,.0f} | "
            f"{r['us_per_node']:.1f} | {r['vs_smallest']:.2f} |")


def table(results: list[dict]) -> str:
    head = ("| command | nodes | wall s | CPU s | peak RSS MB | CPU µs per node | per node vs smallest |\n"
            "| --- | --- | --- | --- | --- | --- | --- |")
    return "\n".join([head, *map(_line, results)])


def run(quick: bool = False, sizes: tuple[int, ...] | None = None, commands: list[str] | None = None,
        keep: Path | None = None, sklearn_leaves: int | None = None, rows_per_leaf: int = 2) -> list[dict]:
    """Rows for ``bench/run.py`` (one per command: the biggest size's wall seconds, ok when its CPU
    per node is within 1.5x of the smallest size's); the full table goes to stdout."""
    sizes = sizes or ((2_001, 16_001) if quick else SIZES)
    commands = commands or list(COMMANDS)
    with tempfile.TemporaryDirectory() as tmp:
        folder = keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if sklearn_leaves:
            made = [_setup_sklearn(folder, n, rows_per_leaf) for n in (sklearn_leaves // 8, sklearn_leaves)]
        else:
            made = []
            for n in sizes:
                t0 = time.perf_counter()
                made.append(_setup_generated(folder, n))
                print(f"generated {made[-1]['nodes']:,} nodes in {time.perf_counter() - t0:.1f} s",
                      file=sys.stderr, flush=True)
        results = measure(made, commands)
    print(table(results))
    rows = []
    for cmd in commands:
        mine = [r for r in results if r["command"] == cmd]
        big = mine[-1]
        rows.append({"benchmark": f"1 generated tree, {big['nodes']:,} nodes", "metric":
                     f"{cmd}: wall (CPU {big['cpu']:.1f} s, {big['rss_mb']:,.0f} MB, "
                     f"{big['vs_smallest']:.2f}x the CPU per node at {mine[0]['nodes']:,} nodes)",
                     "unit": "s", "rulekit": big["wall"], "peer": "-", "peer_value": None,
                     "goal": "linear: CPU per node within 1.5x of the smallest size's",
                     "ok": big["vs_smallest"] <= 1.5})
    return rows


def _flag(name: str, default: str | None) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


if __name__ == "__main__":
    sizes = _flag("--sizes", None)
    only = _flag("--only", None)
    keep = _flag("--keep", None)
    run(quick="--quick" in sys.argv,
        sizes=tuple(int(s) for s in sizes.split(",")) if sizes else None,
        commands=[c.strip() for c in only.split(",")] if only else None,
        keep=Path(keep) if keep else None,
        sklearn_leaves=int(_flag("--leaves", "500000")) if {"--sklearn", "--leaves"} & set(sys.argv) else None,
        rows_per_leaf=int(_flag("--rows-per-leaf", "2")))
