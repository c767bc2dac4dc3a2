"""`rulekit check RULES` skips typer (issue 23, start-up): rulekit.cli runs the command itself when
the arguments are one file and check's own flags. Whatever the file (valid, with warnings,
invalid, unreadable, hostile) and the flags, it prints the same bytes on stdout and stderr and exits
with the same code as the typer path; anything else still goes through typer."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rulekit import cli

HEADER = """rulebase t
target play: classes {no, yes}
feature outlook: nominal {sunny, overcast, rain}
feature humidity: numeric
default yes

"""
FILES = {
    "valid.rules": HEADER + "if outlook = sunny and humidity > 75 then no\nif outlook = rain then no\n",
    "warnings.rules": HEADER + "r1: if humidity > 3 then no\nr2: if humidity > 5 then yes\n",
    "syntax.rules": HEADER + "if outlook = sunny and then no\nif humidity >> 3 then yes\n",
    "meaning.rules": HEADER + "if wind = strong then no\nif humidity > 3 then maybe\n",
    "empty.rules": "",
    "model.json": '{"format": "rulekit-model", "version": 1}\n',
}
HOSTILE = {"binary.rules": b"\x00\xff\xfe rulebase \x80\x81\n" * 20,
           "latin1.rules": HEADER.encode() + "if outlook = s\xe9 then no\n".encode("latin-1")}
FLAGS = [[], ["--strict"], ["-q"], ["--quiet", "--warnings-as-errors"], ["--strict", "-q", "--quiet"]]


@pytest.fixture()
def files(tmp_path):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    for name, data in HOSTILE.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "folder.rules").mkdir()
    return tmp_path


def _run(argv: list[str], capsys) -> tuple[str, str, int]:
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    out, err = capsys.readouterr()
    return out, err, stop.value.code


def _both(argv: list[str], capsys, monkeypatch) -> tuple[tuple, tuple]:
    fast = _run(argv, capsys)
    with monkeypatch.context() as m:
        m.setattr(cli, "check_args", lambda args: None)  # every argument list through typer
        typer_path = _run(argv, capsys)
    return fast, typer_path


@pytest.mark.parametrize("flags", FLAGS, ids=" ".join)
def test_the_fast_path_prints_and_exits_as_typer_does(files, flags, capsys, monkeypatch):
    names = [*FILES, *HOSTILE, "folder.rules", "missing.rules"]
    codes = set()
    for name in names:
        for where in (str(files / name), f"{files}//./{name}"):  # Path() spells both alike
            for argv in (["check", where, *flags], ["check", *flags, where]):
                assert cli.check_args(argv) is not None
                fast, typer_path = _both(argv, capsys, monkeypatch)
                assert fast == typer_path, argv
                codes.add(fast[2])
    assert codes == {0, 1, 2}  # valid, findings, unreadable: every exit code was compared


@pytest.mark.parametrize("argv", [["check"], ["check", "--help"], ["check", "a.rules", "b.rules"],
                                  ["check", "--stric", "a.rules"], ["check", "--", "a.rules"],
                                  ["check", "-"], ["check", ""], ["check", "-qs", "a.rules"],
                                  ["--version", "check", "a.rules"], ["fmt", "a.rules"]])
def test_anything_else_goes_through_typer(argv):
    assert cli.check_args(argv) is None


def test_shell_completion_goes_through_typer(monkeypatch):
    monkeypatch.setenv("_RULEKIT_COMPLETE", "bash_source")
    assert cli.check_args(["check", "a.rules"]) is None


PROBE = """
import sys
from rulekit import cli
if sys.argv[1] == "typer":
    cli.check_args = lambda args: None
try:
    cli.main(["check", sys.argv[2]])
except SystemExit as stop:
    sys.stderr.write("typer loaded: %s\\n" % ("typer" in sys.modules))
    raise
"""


@pytest.mark.parametrize("name", ["valid.rules", "syntax.rules"])
def test_a_closed_stdout_exits_as_typer_does(files, name):
    """``rulekit check FILE | head -0``: the reader is gone before check prints (exit 1, nothing
    on stderr but the probe's line), on both paths; only the typer path loads typer."""
    got = {}
    for path in ("fast", "typer"):
        read, write = os.pipe()
        os.close(read)
        try:
            run = subprocess.run([sys.executable, "-c", PROBE, path, str(files / name)], stdout=write,
                                 stderr=subprocess.PIPE, text=True, timeout=120)
        finally:
            os.close(write)
        got[path] = (run.returncode, run.stderr.splitlines()[:-1])
        assert run.stderr.splitlines()[-1] == f"typer loaded: {path == 'typer'}"
    assert got["fast"] == got["typer"] and got["fast"][0] == 1, got
