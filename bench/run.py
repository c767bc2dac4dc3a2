"""Run every benchmark and print one table of ratios against the peers measured in the same run.

    python bench/run.py            # everything, full size
    python bench/run.py --quick    # small sizes, for a smoke run
    python bench/run.py --only predict,sql

Each ``bench/bench_<name>.py`` defines ``run(quick: bool) -> list[dict]``; a row has keys
``benchmark``, ``metric``, ``unit``, ``rulekit``, ``peer``, ``peer_value`` and ``goal`` (text), and
optionally ``ok`` (bool: goal met). The ratio column is rulekit / peer for the metric given.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import platform
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # so benchmarks share bench/_timing.py


def discover(only: set[str] | None):
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if only and name not in only:
            continue
        spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        yield name, mod


def fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = ap.parse_args(argv)
    only = {s.strip() for s in args.only.split(",") if s.strip()} or None
    rows = []
    for name, mod in discover(only):
        print(f"running {name} ...", file=sys.stderr, flush=True)
        try:
            rows.extend(mod.run(quick=args.quick))
        except Exception:  # a failed benchmark is reported, the others still run
            traceback.print_exc()
            rows.append({"benchmark": name, "metric": "FAILED", "goal": "see traceback"})
    stamp = f"{datetime.date.today()} on {platform.machine()} {platform.processor() or ''} " \
            f"(Python {platform.python_version()})"
    print(f"\nrulekit benchmarks, {stamp}\n")
    header = ["benchmark", "metric", "unit", "rulekit", "peer", "peer value", "ratio", "goal", "met"]
    table = [header]
    for r in rows:
        ratio = None
        if isinstance(r.get("rulekit"), (int, float)) and isinstance(r.get("peer_value"), (int, float)) \
                and r["peer_value"]:
            ratio = r["rulekit"] / r["peer_value"]
        ok = r.get("ok")
        table.append([r.get("benchmark", ""), r.get("metric", ""), r.get("unit", ""), fmt(r.get("rulekit")),
                      r.get("peer", "") or "", fmt(r.get("peer_value")), fmt(ratio), r.get("goal", ""),
                      "" if ok is None else ("yes" if ok else "NO")])
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    if args.json:
        args.json.write_text(json.dumps({"when": stamp, "rows": rows}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
