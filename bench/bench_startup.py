"""CLI start-up (issue 23): ``rulekit --help``, ``--version`` and ``check`` on a valid and on an
invalid 3-rule file.

Goal: each under 0.3 s. The peer is ``python -c pass`` (the interpreter's own start-up), measured
interleaved in the same run, so a busy machine slows both alike; the CPU time of the child process
(user + system) is reported too because it is what a loaded machine changes least.

    python bench/bench_startup.py [--quick] [--repeat N] [--trees DIR ...]

``--trees``: run ``python -m rulekit`` from each checkout DIR in turn (interleaved A/B, e.g. a
``git worktree add /tmp/startbase <commit>`` of the tree before a change); a worktree needs
``rulekit/exporters`` and ``rulekit/grammars`` symlinks to ``../exporters`` and ``../grammars``, as
pyproject's package-dir maps them. Without it, the installed rulekit runs.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RULES = """rulebase demo
target play: classes {no, yes}
feature outlook: nominal {sunny, overcast, rain}
feature humidity: numeric
default yes

if outlook = sunny and humidity > 75 then no
if outlook = rain then no
if outlook = overcast then yes
"""
# the same file with a syntax error, a test of an unknown feature and a label outside the classes
INVALID = RULES.replace("humidity > 75", "humidity >> 75").replace("outlook = rain", "wind = rain") \
    .replace("then yes", "then maybe")


def _child(argv: list[str], cwd: str | None) -> tuple[float, float]:
    """(wall seconds, child CPU seconds) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(repeat: int, trees: list[str | None] | None = None) -> dict[tuple[str | None, str], tuple[float, float]]:
    """(tree, name) -> (best wall, best CPU) over ``repeat`` interleaved rounds (tree None: the
    installed rulekit; the peer is measured once per round, under tree None)."""
    trees = trees or [None]
    with tempfile.TemporaryDirectory() as tmp:
        valid, invalid = Path(tmp) / "three.rules", Path(tmp) / "invalid.rules"
        valid.write_text(RULES, encoding="utf-8")
        invalid.write_text(INVALID, encoding="utf-8")
        py = sys.executable
        cases = {"rulekit --help": [py, "-m", "rulekit", "--help"],
                 "rulekit --version": [py, "-m", "rulekit", "--version"],
                 "rulekit check (3 rules)": [py, "-m", "rulekit", "check", str(valid)],
                 "rulekit check (invalid, 3 rules)": [py, "-m", "rulekit", "check", str(invalid)]}
        runs = [(None, "python -c pass", [py, "-c", "pass"])]
        runs += [(tree, name, argv) for name, argv in cases.items() for tree in trees]
        best = {(tree, name): (float("inf"), float("inf")) for tree, name, _ in runs}
        for _ in range(repeat):
            for tree, name, argv in runs:
                wall, cpu = _child(argv, tree)
                old = best[(tree, name)]
                best[(tree, name)] = (min(old[0], wall), min(old[1], cpu))
    return best


def run(quick: bool, repeat: int | None = None, trees: list[str | None] | None = None) -> list[dict]:
    best = measure(repeat or (3 if quick else 10), trees)
    peer_wall, peer_cpu = best.pop((None, "python -c pass"))
    rows = []
    for (tree, name), (wall, cpu) in best.items():
        label = name if tree is None else f"{name} [{tree}]"
        rows.append({"benchmark": "startup", "metric": f"{label} wall", "unit": "s", "rulekit": wall,
                     "peer": "python -c pass", "peer_value": peer_wall, "goal": "< 0.3 s", "ok": wall < 0.3})
        rows.append({"benchmark": "startup", "metric": f"{label} CPU (user+sys)", "unit": "s", "rulekit": cpu,
                     "peer": "python -c pass", "peer_value": peer_cpu, "goal": "< 0.3 s", "ok": cpu < 0.3})
    return rows


def _options(argv: list[str]) -> tuple[bool, int | None, list[str | None] | None]:
    quick = "--quick" in argv
    repeat = int(argv[argv.index("--repeat") + 1]) if "--repeat" in argv else None
    trees = None
    if "--trees" in argv:
        trees = []
        for a in argv[argv.index("--trees") + 1:]:
            if a.startswith("--"):
                break
            trees.append(os.path.abspath(a))
    return quick, repeat, trees


if __name__ == "__main__":
    quick, repeat, trees = _options(sys.argv[1:])
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    for row in run(quick, repeat, trees):
        print(f"{row['metric']:<60} {row['rulekit']:.3f} s  (python -c pass {row['peer_value']:.3f} s, "
              f"ratio {row['rulekit'] / row['peer_value']:.1f}x)  goal {row['goal']}: "
              f"{'ok' if row['ok'] else 'NOT MET'}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
