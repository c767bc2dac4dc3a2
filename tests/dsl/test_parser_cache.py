"""lark's grammar analysis is cached in a directory only this user owns, and a cached parser reads
rules exactly as a freshly built one."""

from __future__ import annotations

import os
import subprocess
import sys

from rulekit.dsl import parser

TEXT = """rulebase r
target y: classes {a, b}
feature x: numeric
default a
r1: if x <= 1.5 then b
"""

SCRIPT = """
import sys
from rulekit.dsl.parser import parse
for name in sys.argv[1:]:
    p = parse(open(name).read())
    print(repr(p.rulebase.model_dump()) if p.rulebase else None, [str(e) for e in p.errors])
"""


def test_cache_lives_in_a_private_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = parser.analysis_cache()
    assert path and os.path.dirname(path) == str(tmp_path / "rulekit")
    assert os.stat(tmp_path / "rulekit").st_mode & 0o777 == 0o700


def test_no_cache_in_a_directory_others_can_write(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "rulekit").mkdir()
    os.chmod(tmp_path / "rulekit", 0o777)
    assert parser.analysis_cache() is False
    monkeypatch.setenv("RULEKIT_PARSER_CACHE", "0")
    os.chmod(tmp_path / "rulekit", 0o700)
    assert parser.analysis_cache() is False


def test_a_cached_parser_reads_the_same(tmp_path):
    good, bad = tmp_path / "good.rules", tmp_path / "bad.rules"
    good.write_text(TEXT)
    bad.write_text(TEXT + "r2: if x > then a\n")  # the error path must agree too
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", SCRIPT, str(good), str(bad)], env=env, capture_output=True,
                           text=True, check=True).stdout for _ in range(2)]
    assert list((tmp_path / "cache" / "rulekit").iterdir()), "the first run writes the cache"
    fresh = subprocess.run([sys.executable, "-c", SCRIPT, str(good), str(bad)], capture_output=True, text=True,
                           env={**os.environ, "RULEKIT_PARSER_CACHE": "0"}, check=True).stdout
    assert runs[0] == runs[1] == fresh
    valid, broken = fresh.splitlines()
    assert valid.startswith("{") and "'r1'" in valid
    assert broken.startswith("None") and "good.rules" not in broken
