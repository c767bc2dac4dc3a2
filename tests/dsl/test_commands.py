"""`rulekit check` and `rulekit fmt`: exit codes, messages, atomic rewrite, comments kept in place."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rulekit import dsl
from rulekit.commands import check, fmt

VALID = """# Play golf?
rulebase golf
target play: classes {no, yes}
feature outlook: nominal {sunny, overcast, rain}   # the sky
feature humidity: numeric
default yes

# sunny and humid: stay in
r1: if outlook = sunny and humidity > 75 then no  # 75 from the 2023 data
r2: if outlook = rain
      and humidity > 90   # a comment inside a rule moves above it
    then no
# r3: if outlook = overcast then yes   (disabled)
"""

CANONICAL = """# Play golf?
# the sky
rulebase golf
target play: classes {no, yes}
feature outlook: nominal {sunny, overcast, rain}
feature humidity: numeric
semantics first-hit
precision float64
default yes

# sunny and humid: stay in
r1: if outlook = sunny and humidity > 75 then no  # 75 from the 2023 data

# a comment inside a rule moves above it
r2: if outlook = rain and humidity > 90 then no

# r3: if outlook = overcast then yes   (disabled)
"""


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulekit", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})


def test_fmt_keeps_comments_where_they_stand(tmp_path):
    p = tmp_path / "golf.rules"
    p.write_text(VALID)
    assert fmt.run(p, check=True) == 1
    assert p.read_text() == VALID  # --check writes nothing
    assert fmt.run(p) == 0
    assert p.read_text() == CANONICAL
    mtime = p.stat().st_mtime_ns
    assert fmt.run(p) == 0 and fmt.run(p, check=True) == 0  # a fixed point: nothing to do
    assert p.stat().st_mtime_ns == mtime


def test_fmt_refuses_invalid_files_and_leaves_them(tmp_path, capsys):
    p = tmp_path / "bad.rules"
    p.write_text(VALID.replace("then no  #", "then maybe  #"))
    before = p.read_text()
    assert fmt.run(p) == 2
    assert p.read_text() == before
    err = capsys.readouterr().err
    assert f"{p}:9:47: error: 'maybe' is not a class of 'play'" in err
    assert fmt.run(tmp_path / "missing.rules") == 2


def test_check_exit_codes_and_output(tmp_path, capsys):
    p = tmp_path / "golf.rules"
    p.write_text(VALID)
    assert check.run(p) == 0
    assert capsys.readouterr().out == f"{p}: valid (2 rules)\n"
    p.write_text(VALID + "r4: if outlook = sunny and humidity > 80 then yes\n")
    assert check.run(p) == 0  # warnings alone: still valid
    out = capsys.readouterr().out
    assert f"{p}:14:1: warning: this rule can never fire: rule 'r1' (line 9) comes first" in out
    assert out.endswith(f"{p}: valid (3 rules), 1 warning\n")
    assert check.run(p, strict=True) == 1
    capsys.readouterr()
    p.write_text(VALID.replace("humidity > 75", "humidty > 75").replace("then no\n#", "no\n#"))
    assert check.run(p) == 1
    out = capsys.readouterr().out
    assert f"{p}:9:28: error: unknown feature 'humidty'; did you mean 'humidity'?" in out
    assert f"{p}:12:5: error: expected 'then' (or 'and' / 'or') after '90', found 'no'" in out
    assert out.endswith(f"{p}: 2 errors\n")
    assert check.run(tmp_path / "nope.rules") == 2
    d = tmp_path / "dir.rules"
    d.mkdir()
    assert check.run(d) == 2


def test_cli_end_to_end(tmp_path):
    p = tmp_path / "golf.rules"
    p.write_text(VALID.replace("humidity > 75", "humidity > high"))
    r = cli("check", str(p))
    assert r.returncode == 1, r
    assert f"{p}:9:39: error: 'humidity' is numeric: compare it with a number, not 'high'" in r.stdout
    p.write_text(VALID)
    r = cli("fmt", "--check", str(p))
    assert r.returncode == 1 and "would be reformatted" in r.stdout
    assert p.read_text() == VALID
    r = cli("fmt", str(p))
    assert r.returncode == 0 and p.read_text() == CANONICAL


def test_sources_accept_rules_files(tmp_path):
    """Every SOURCE command reads rules files (by content); broken ones fail with one line, exit 2."""
    p = tmp_path / "model.txt"
    p.write_text(VALID)
    from rulekit.commands.source import load_source

    assert load_source(p) == dsl.loads(VALID)
    p.write_text(VALID.replace("then no  #", "then maybe  #"))
    r = cli("show", str(p))
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and f"{p}:9:47: 'maybe' is not a class" in r.stderr


@pytest.mark.parametrize("text", [
    "rulebase x\ntarget y: regression\nif true then 1\n",
    "target y: classes {a}\r\nfeature x: numeric\r\nif x>1 then a # crlf\r\n",
    "\ufefftarget y: classes {a}\nif true then a\n",
])
def test_fmt_is_idempotent_on_odd_inputs(tmp_path, text):
    p = tmp_path / "x.rules"
    p.write_text(text, newline="")
    assert fmt.run(p) == 0
    once = p.read_text()
    assert fmt.run(p, check=True) == 0
    assert dsl.loads(once) == dsl.loads(text).model_copy()


def test_fmt_exact_keeps_every_digit_and_expand_missing_writes_every_literal(tmp_path):
    text = VALID.replace("then no  # 75", "then no with n = 714, e = 92, confidence = 0.8711484593837535  # 75") \
        .replace("humidity > 90", "(humidity > 90.00000000000001 or humidity is missing)")
    p = tmp_path / "golf.rules"
    p.write_text(text)
    assert fmt.run(p, exact=True) == 0
    exact = p.read_text()
    assert "0.8711484593837535" in exact and "90.00000000000001" in exact
    assert dsl.loads(exact) == dsl.loads(text)  # nothing rounded
    p.write_text(text)
    assert fmt.run(p) == 0
    assert "0.8711484593837535" not in p.read_text()  # statistics readable by default
    p.write_text(exact)
    assert fmt.run(p, exact=True, expand_missing=True) == 0
    expanded = p.read_text()
    assert "counts as" not in expanded and "humidity is missing" in expanded
    assert dsl.loads(expanded) == dsl.loads(text)
    r = cli("fmt", "--exact", "--expand-missing", "--check", str(p))
    assert r.returncode == 0, r.stdout + r.stderr
