"""`rulekit studio` on the command line: bad input and a taken port are one line and exit 2; a host
other than 127.0.0.1 prints a warning; Ctrl-C stops the server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from tests.marks import slow_cases
from tests.studio import browser, cases

pytest.importorskip("nicegui", reason="nicegui not installed (pip install 'rulekit[studio]')")


def studio(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "rulekit", "studio", *map(str, args), "--no-browser"],
                          check=False, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def rules(tmp_path):
    path = tmp_path / "r.rules"
    path.write_text(cases.text(5), encoding="utf-8")
    return path


def _one_line_exit_2(res, *needles):
    assert res.returncode == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    for n in needles:
        assert n in lines[0]


@pytest.mark.slow  # a server start
def test_taken_port(rules):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        res = studio(rules, "--port", port)
    _one_line_exit_2(res, f"port {port}", "taken")


BAD = {"no source": (["{tmp}/nope.rules"], "no such file"),
       "no data": (["{rules}", "--data", "{tmp}/nope.csv"], "no such file"),
       "no target": (["{rules}", "--data", "{csv}", "--target", "zz"], "not a column"),
       "bad port": (["{rules}", "--port", "70000"], "1 to 65535"),
       "bad host": (["{rules}", "--host", "no-such-host.invalid"], "unknown host")}


@pytest.mark.parametrize("case", slow_cases(list(BAD), ["no target", "no data", "bad port", "bad host"]))
def test_bad_input(rules, tmp_path, case):
    args, needle = BAD[case]
    (tmp_path / "d.csv").write_text("f0,y\n1,a\n", encoding="utf-8")
    res = studio(*[a.format(tmp=tmp_path, rules=rules, csv=tmp_path / "d.csv") for a in args])
    _one_line_exit_2(res, needle)


@pytest.mark.slow
def test_other_host_warns_and_ctrl_c_stops(rules):
    port = browser.free_port()
    proc = subprocess.Popen([sys.executable, "-m", "rulekit", "studio", str(rules), "--no-browser",
                             "--port", str(port), "--host", "127.0.0.2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        warning = proc.stderr.readline()
        assert "warning: the studio listens on 127.0.0.2" in warning
        end = time.monotonic() + 120
        while time.monotonic() < end:
            try:
                socket.create_connection(("127.0.0.2", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        else:
            proc.kill()
            pytest.fail(f"the studio did not listen: {proc.stderr.read()}")
        proc.send_signal(2)
        assert proc.wait(20) == 130  # as rulekit exits on Ctrl-C (cli.main)
    finally:
        if proc.poll() is None:
            proc.kill()
