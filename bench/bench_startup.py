"""CLI start-up (issue 23): ``rulekit --help``, ``--version`` and ``check`` on a 3-rule file.

Goal: each under 0.3 s. The peer is ``python -c pass`` (the interpreter's own start-up), measured
interleaved in the same run, so a busy machine slows both alike; the CPU time of the child process
(user + system) is reported too because it is what a loaded machine changes least.

    python bench/bench_startup.py
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


def _child(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, child CPU seconds) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(repeat: int) -> dict[str, tuple[float, float]]:
    """name -> (best wall, best CPU) over ``repeat`` interleaved rounds."""
    with tempfile.TemporaryDirectory() as tmp:
        rules = Path(tmp) / "three.rules"
        rules.write_text(RULES, encoding="utf-8")
        py = sys.executable
        cases = {"python -c pass": [py, "-c", "pass"],
                 "rulekit --help": [py, "-m", "rulekit", "--help"],
                 "rulekit --version": [py, "-m", "rulekit", "--version"],
                 "rulekit check (3 rules)": [py, "-m", "rulekit", "check", str(rules)]}
        best = {name: (float("inf"), float("inf")) for name in cases}
        env_cwd = os.getcwd()
        for _ in range(repeat):
            for name, argv in cases.items():
                wall, cpu = _child(argv)
                best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
        os.chdir(env_cwd)
    return best


def run(quick: bool) -> list[dict]:
    best = measure(3 if quick else 10)
    peer_wall, peer_cpu = best.pop("python -c pass")
    rows = []
    for name, (wall, cpu) in best.items():
        rows.append({"benchmark": "startup", "metric": f"{name} wall", "unit": "s", "rulekit": wall,
                     "peer": "python -c pass", "peer_value": peer_wall, "goal": "< 0.3 s", "ok": wall < 0.3})
        rows.append({"benchmark": "startup", "metric": f"{name} CPU (user+sys)", "unit": "s", "rulekit": cpu,
                     "peer": "python -c pass", "peer_value": peer_cpu, "goal": "< 0.3 s", "ok": cpu < 0.3})
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(f"{row['metric']:<40} {row['rulekit']:.3f} s  (python -c pass {row['peer_value']:.3f} s, "
              f"ratio {row['rulekit'] / row['peer_value']:.1f}x)  goal {row['goal']}: "
              f"{'ok' if row['ok'] else 'NOT MET'}")
