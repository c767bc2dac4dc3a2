"""Model files, mutated: rulekit JSON, XGBoost JSON and UBJSON, LightGBM text. Each mutated file
is read by its loader in-process; a file that loads is then predicted on probe rows, shown,
saved and read back, and exported to Python and SQL. Anything but a RulekitError (one clear
line) fails the test, as does a case over a CPU-time budget proportional to the file's size or the
process's peak RSS during a case rising more than RSS_GROWTH_MB above its RSS when the run began
(the peak is reset per case, so what ran before in the pytest worker neither hides nor adds
growth). Seeded: a failure names its seed and case, and replays. A few mutated files also go
through the CLI in a child process with a memory cap."""

from __future__ import annotations

import copy
import json
import random
import resource
import time

import numpy as np
import pytest

from rulekit import export
from rulekit.errors import RulekitError
from rulekit.importers import lightgbm as lgb_import
from rulekit.importers import xgboost as xgb_import
from rulekit.ir.modelfile import dumps_model, loads_model
from rulekit.probe import probe_rows
from rulekit.render import model_text
from tests.fuzz.limits import run_cli
from tests.fuzz.makers import lightgbm_chain, rows, rulekit_chain

SECONDS_PER_KB = 0.05  # CPU; loading runs at ~30 µs per node (~100 bytes): 15x headroom, plus 3 s
RSS_GROWTH_MB = 1500
HOSTILE_VALUES = [0, -1, 1, 2, 10**9, -(10**18), 2**63, 1e308, -1e-320, 0.5, True, None, "", "x",
                  "NaN", "Infinity", "x\ud800", "\udfff", [], {}, [0] * 50, [[[[]]]], {"a": 1},
                  "leaf", "numeric", "nominal", "linear", "<", "<=", "float32", "sum", "softmax"]
HUGE_INT = "9" * 5000  # only as text: json.dumps cannot write it


# --- base files --------------------------------------------------------------------------------


def _bases() -> dict[str, list[bytes]]:
    bases = {"rulekit": [rulekit_chain(4).encode(), _nominal_model().encode()],
             "lightgbm": [lightgbm_chain(5).encode(), lightgbm_chain(4, decision_type=10).encode()]}
    try:
        import xgboost as xgb  # noqa: PLC0415 - optional peer
    except ImportError:
        return bases
    X = rows(4, 200)
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
    booster = xgb.XGBClassifier(n_estimators=2, max_depth=2, n_jobs=1).fit(X, y).get_booster()
    bases["xgboost-json"] = [bytes(booster.save_raw(raw_format="json"))]
    bases["xgboost-ubj"] = [bytes(booster.save_raw(raw_format="ubj"))]
    return bases


def _nominal_model() -> str:
    doc = json.loads(rulekit_chain(2))
    doc["features"].append({"name": "colour", "kind": "nominal", "domain": ["red", "blue", 3]})
    doc["trees"][0]["nodes"][-1] = {"id": 4, "kind": "nominal", "feature": 4, "missing": 1}
    doc["trees"][0]["nodes"] += [{"id": 5, "kind": "leaf", "value": [1.0, 0.0]},
                                 {"id": 6, "kind": "leaf", "value": [0.0, 1.0]}]
    doc["trees"][0]["edges"] += [{"parent": 4, "child": 5, "branch": 0, "values": [0, 2]},
                                 {"parent": 4, "child": 6, "branch": 1}]
    return json.dumps(doc)


# --- mutators ----------------------------------------------------------------------------------


def _json_mutate(data: bytes, rnd: random.Random) -> bytes:
    """1-3 structural edits: a value replaced by a hostile one, a key dropped, a list element
    duplicated or dropped; sometimes a number spelled with 5,000 digits."""
    doc = json.loads(data)
    for _ in range(rnd.randint(1, 3)):
        slots, stack = [], [doc]
        while stack:
            c = stack.pop()
            items = c.items() if isinstance(c, dict) else enumerate(c) if isinstance(c, list) else ()
            for k, v in items:
                slots.append((c, k))
                if isinstance(v, (dict, list)):
                    stack.append(v)
        if not slots:
            break
        c, k = rnd.choice(slots)
        op = rnd.random()
        if op < 0.6:
            c[k] = copy.deepcopy(rnd.choice(HOSTILE_VALUES))
        elif op < 0.75:
            del c[k]
        elif isinstance(c, list):
            c.insert(k, copy.deepcopy(c[k]))
        else:
            c[k] = "__HUGE__"
    return json.dumps(doc).replace('"__HUGE__"', HUGE_INT).encode()


def _byte_mutate(data: bytes, rnd: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        i = rnd.randrange(len(b))
        op = rnd.random()
        if op < 0.4:
            b[i] = rnd.randrange(256)
        elif op < 0.6:
            b[i:i] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 9)))
        elif op < 0.8:
            del b[i:i + rnd.randint(1, 9)]
        elif op < 0.9:
            b[i:i + 8] = b"\x7f\xff\xff\xff\xff\xff\xff\xff"  # a huge length or count
        else:
            del b[i:]
        if not b:
            b = bytearray(b"{")
    return bytes(b)


_LGB_VALUES = ["0", "-1", "1e308", "nan", "inf", "-0", "12", "3", "2147483648", "99999999999999999999",
               "0.5", "1e-36", "x", "", "14", "-2"]


def _lightgbm_mutate(data: bytes, rnd: random.Random) -> bytes:
    lines = data.decode().split("\n")
    for _ in range(rnd.randint(1, 3)):
        i = rnd.randrange(len(lines))
        key, eq, value = lines[i].partition("=")
        op = rnd.random()
        if eq and op < 0.6:
            vals = value.split(" ")
            vals[rnd.randrange(len(vals))] = rnd.choice(_LGB_VALUES)
            lines[i] = key + "=" + " ".join(vals)
        elif eq and op < 0.7:
            lines[i] = key + "=" + " ".join([value] * rnd.randint(2, 3))
        elif op < 0.8:
            del lines[i]
        elif op < 0.9:
            lines.insert(i, lines[rnd.randrange(len(lines))])
        else:
            lines[i] = lines[i][: rnd.randrange(len(lines[i]) + 1)]
    return "\n".join(lines).encode()


# --- one case ----------------------------------------------------------------------------------


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        return next((int(line.split()[1]) for line in f if line.startswith(field + ":")), 0)


def _reset_peak() -> bool:
    """Set this process's peak RSS (VmHWM) to its RSS now (Linux >= 4.0); False where it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


class _PeakGrowth:
    """How far the RSS peaked above the RSS at the start, per case. ``ru_maxrss`` alone is the
    peak of the whole pytest worker: a test that ran before and peaked higher hides any growth
    here. Where the peak cannot be reset, the growth of ``ru_maxrss`` (a lower bound) stands in."""

    def __init__(self):
        self.exact = _reset_peak() and _status_kb("VmHWM") > 0
        self.base_mb = self._now() / 1024

    def _now(self) -> float:
        return _status_kb("VmRSS") if self.exact else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def start_case(self) -> None:
        if self.exact:
            _reset_peak()

    def grown_mb(self) -> float:
        peak = _status_kb("VmHWM") if self.exact else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 1024 - self.base_mb


def _load(kind: str, data: bytes):
    if kind == "rulekit":
        return loads_model(data.decode("utf-8", "replace"), file="fuzz.json")
    if kind == "lightgbm":
        return lgb_import.parse_model(data.decode("utf-8", "replace"), file="fuzz.txt")
    if kind == "xgboost-json":
        from rulekit import jsontext  # noqa: PLC0415 - the path load_file takes, without a file
        doc = jsontext.loads(data.decode("utf-8", "replace"), error=xgb_import.XGBoostModelError)
    else:
        doc = xgb_import.ubjson_loads(data)
    return xgb_import.model_from_json(doc)


def _exercise(model) -> None:
    """What the commands do with a model that loaded: show, save/load, Python and SQL, predict."""
    model_text(model).encode("utf-8")  # as written to a file or a terminal
    loads_model(dumps_model(model))
    if sum(t.number_of_nodes() for t in model.trees) <= 400:
        export.to_python(model).encode("utf-8")
        export.to_sql(model, dialect="sqlite", table="t").encode("utf-8")
    if all(f.kind == "numeric" for f in model.features):
        X = probe_rows(model, rows(model.n_features, 8), n_missing=4)[:300]
        model.predict(X)
        if model.task == "classification":
            model.predict_proba(X)


def run_cases(seed: int, n: int) -> int:
    """``n`` mutated files over every base; returns how many of them loaded."""
    bases = _bases()
    kinds = sorted(bases)
    rnd = random.Random(seed)
    _exercise(_load("rulekit", bases["rulekit"][0]))  # first-use imports: not part of any case's time
    rss = _PeakGrowth()
    loaded = 0
    for case in range(n):
        kind = kinds[case % len(kinds)]
        base = rnd.choice(bases[kind])
        if kind in ("rulekit", "xgboost-json") and rnd.random() < 0.75:
            data = _json_mutate(base, rnd)
        elif kind == "lightgbm" and rnd.random() < 0.75:
            data = _lightgbm_mutate(base, rnd)
        else:
            data = _byte_mutate(base, rnd)
        rss.start_case()
        t0 = time.thread_time()  # this thread's CPU: load stretches wall time, and threads other tests left in this worker count in process_time
        try:
            model = _load(kind, data)
            _exercise(model)
            loaded += 1
        except RulekitError as err:
            assert "\n" not in str(err).strip(), f"seed {seed} case {case}: two lines: {err}"
        except Exception as err:  # noqa: BLE001 - report the replayable case
            raise AssertionError(f"seed {seed} case {case} ({kind}): {type(err).__name__}: "
                                 f"{err}\n{data[:3000]!r}") from err
        budget = 3.0 + SECONDS_PER_KB * len(data) / 1024
        took = time.thread_time() - t0
        assert took < budget, f"seed {seed} case {case} ({kind}): {took:.1f} s CPU > {budget:.1f} s"
        grown = rss.grown_mb()
        assert grown < RSS_GROWTH_MB, f"seed {seed} case {case} ({kind}): RSS grew {grown:.0f} MB"
    return loaded


def test_fuzz_models_quick():
    loaded = run_cases(seed=25, n=400)
    assert loaded > 20  # the mutations are not all rejected at the door


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzz_models_many(seed):
    run_cases(seed=seed, n=1200)


def test_fuzz_models_cli(tmp_path):
    """A few mutated files through the real CLI, in a child process capped at 1.5 GB."""
    rnd = random.Random(7)
    bases = _bases()
    for case in range(4):
        path = tmp_path / f"m{case}.json"
        path.write_bytes(_json_mutate(bases["rulekit"][case % 2], rnd))
        run = run_cli(["show", str(path)], mem_mb=1500, timeout=60)
        assert run.code in (0, 2) and "internal error" not in run.stderr, run.stderr
        assert run.code == 0 or len(run.stderr.strip().splitlines()) == 1, run.stderr
