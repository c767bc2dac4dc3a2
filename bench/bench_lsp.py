"""`rulekit lsp` responsiveness: diagnostics p50/p95 after a change in 500- and 5,000-rule files, the
time until the full check's diagnostics, and the server's memory (RSS) after a client sends changes.

The server runs as editors start it (``python -m rulekit lsp``, JSON-RPC over pipes); the client
here writes the protocol by hand and times each change to the publishDiagnostics of that version
(the first pass: the edit's own errors and per-rule lint), then to the full check's publish (the
second pass, after 0.25 s of quiet, in the server's worker process). Goals (issue 19): first-pass
p95 < 100 ms; memory bounded (RSS after all changes close to RSS after the first 100).
Numbers: docs/lsp.md. ``--quick``: 500 rules only and 1,000 changes.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time

URI = "file:///bench/big.rules"


def make_text(n_rules: int, seed: int = 0) -> str:
    rnd = random.Random(seed)
    head = ["rulebase big", "target y: classes {a, b, c}"]
    head += [f"feature f{i}: numeric" for i in range(20)]
    head += ["feature colour: nominal {red, green, blue}", "default a", ""]
    rules = []
    for i in range(n_rules):
        tests = [f"f{rnd.randrange(20)} {rnd.choice(['<=', '>'])} {rnd.uniform(-100, 100):.4f}"
                 for _ in range(rnd.randint(2, 5))]
        if rnd.random() < 0.3:
            tests.append("colour in {red, blue}")
        rules.append(f"r{i}: if {' and '.join(tests)} then {'abc'[rnd.randrange(3)]}")
    return "\n".join(head + rules) + "\n"


class Client:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "rulekit", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, method, params, request=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            msg["id"] = self.next_id
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self):
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def wait(self, method=None, id_=None, version=None):
        while True:
            m = self.read()
            if method and m.get("method") == method and \
                    (version is None or m.get("params", {}).get("version") == version):
                return m
            if id_ is not None and m.get("id") == id_:
                return m

    def rss_mb(self) -> float:
        """The server's RSS plus its worker processes'."""
        return sum(_rss(p) for p in [self.proc.pid] + _children(self.proc.pid))

    def initialize(self) -> None:
        """The LSP prologue every session starts with: ``initialize``, its reply, ``initialized``."""
        self.send("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, request=True)
        self.wait(id_=self.next_id)
        self.send("initialized", {})

    def open(self, text: str) -> None:
        """``didOpen`` of the bench document at version 1."""
        self.send("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "rules", "version": 1,
                                                            "text": text}})

    def change(self, version, text):
        self.send("textDocument/didChange", {"textDocument": {"uri": URI, "version": version},
                                             "contentChanges": [{"text": text}]})

    def close(self):
        self.send("shutdown", None, request=True)
        self.wait(id_=self.next_id)
        self.send("exit", None)
        self.proc.wait(timeout=30)


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _rss(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _pct(times: list[float], q: float) -> float:
    times = sorted(times)
    return times[int(q * (len(times) - 1))] * 1000


def latency(n_rules: int, n_edits: int = 40, n_full: int = 5) -> list[dict]:
    """First-pass p50/p95 over ``n_edits`` edits (one threshold per change, as a person types), then
    the time to the full check's publish for ``n_full`` edits (waiting for it each time)."""
    text = make_text(n_rules)
    c = Client()
    try:
        c.initialize()
        t0 = time.perf_counter()
        c.open(text)
        c.wait("textDocument/publishDiagnostics", version=1)  # the open's first pass
        open_first = time.perf_counter() - t0
        c.wait("textDocument/publishDiagnostics", version=1)  # the worker's full check
        open_full = time.perf_counter() - t0
        first, full = [], []
        for k in range(2, 2 + n_edits + n_full):
            edited = text.replace("r7: if f", f"r7: if f{k % 2}0 > {k} and f", 1)
            t0 = time.perf_counter()
            c.change(k, edited)
            c.wait("textDocument/publishDiagnostics", version=k)
            t1 = time.perf_counter()
            if k < 2 + n_edits:
                first.append(t1 - t0)
                continue
            c.wait("textDocument/publishDiagnostics", version=k)  # the second pass
            full.append(time.perf_counter() - t0)
        c.close()
    finally:
        if c.proc.poll() is None:
            c.proc.kill()
    p50, p95 = _pct(first, 0.5), _pct(first, 0.95)
    return [
        {"benchmark": "lsp", "metric": f"first-pass diagnostics p50 after a change, {n_rules:,} rules",
         "unit": "ms", "rulekit": p50},
        {"benchmark": "lsp", "metric": f"first-pass diagnostics p95 after a change, {n_rules:,} rules",
         "unit": "ms", "rulekit": p95, "goal": "< 100 ms", "ok": p95 < 100},
        {"benchmark": "lsp", "metric": f"full-check diagnostics median after a change, {n_rules:,} rules",
         "unit": "ms", "rulekit": _pct(full, 0.5), "note": "includes the 250 ms debounce"},
        {"benchmark": "lsp", "metric": f"open to first diagnostics, {n_rules:,} rules", "unit": "ms",
         "rulekit": open_first * 1000, "peer": "open to the full check's diagnostics",
         "peer_value": open_full * 1000, "load": f"{os.getloadavg()[0]:.1f}"},
    ]


def memory(n_rules: int, n_changes: int) -> list[dict]:
    """RSS after ``n_changes`` edits of an ``n_rules`` file; every 500th change waits for the full
    check (so second passes and cache seeding run too)."""
    text = make_text(n_rules)
    c = Client()
    try:
        c.initialize()
        c.open(text)
        c.wait("textDocument/publishDiagnostics", version=1)
        rss100 = None
        seen = []
        for k in range(2, 2 + n_changes):
            c.change(k, text.replace("r7: if f", f"r7: if f1 > {k} and f", 1))
            c.wait("textDocument/publishDiagnostics", version=k)
            if k % 500 == 0:
                c.wait("textDocument/publishDiagnostics", version=k)
            if k == 101:
                rss100 = c.rss_mb()
                seen.append((100, rss100, _rss(c.proc.pid)))
            if k in (1001, 3001):
                seen.append((k - 1, c.rss_mb(), _rss(c.proc.pid)))
        rss, server = c.rss_mb(), _rss(c.proc.pid)
        c.close()
    finally:
        if c.proc.poll() is None:
            c.proc.kill()
    seen.append((n_changes, rss, server))
    print("  RSS (server+worker, server) after changes: " + ", ".join(
        f"{k:,}: {a:.1f}, {b:.1f} MB" for k, a, b in seen), file=sys.stderr)
    # bounded growth: after the first 1,000 changes (caches filled), growth per 1,000 changes stays
    # under 1 MB (a leak of one entry per change of ~1 kB would give ~1 MB per 1,000)
    later = [(k, a) for k, a, _ in seen if k >= 1000]
    slope = (later[-1][1] - later[0][1]) / max(1, (later[-1][0] - later[0][0]) / 1000) if len(later) > 1 else 0.0
    base = later[0][1] if later else rss100  # the worker starts at the first quiet moment (change 500)
    return [{"benchmark": "lsp", "metric": f"server+worker RSS after {n_changes:,} changes, {n_rules:,} rules",
             "unit": "MB", "rulekit": rss, "peer": "RSS after 1,000 changes (worker running)", "peer_value": base,
             "goal": "bounded (ratio ~1)", "ok": rss < base * 1.2},
            {"benchmark": "lsp", "metric": "RSS growth per 1,000 changes after the first 1,000", "unit": "MB",
             "rulekit": slope, "goal": "< 1 MB", "ok": slope < 1.0}]


def run(quick: bool = False) -> list[dict]:
    rows = latency(500)
    if not quick:
        rows += latency(5000)
    rows += memory(500, 1000 if quick else 10_000)
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(row)
