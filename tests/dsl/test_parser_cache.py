"""lark's grammar analysis is cached in a directory only this user owns, and a cached parser reads
rules exactly as a freshly built one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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


RICH = """# a header comment
rulebase iris
target species: classes {setosa, versicolor, virginica}
feature petal_length: numeric
feature sepal_width: numeric
feature colour: nominal {red, "light blue", green}
missing colour counts as red
unseen colour counts as green
semantics first-hit
precision float32
default virginica

r1: if petal_length <= 2.45 then setosa {setosa: 1, versicolor: 0, virginica: 0} with 50 rows, 50 correct
r2: if 2.45 < petal_length <= 4.75 and colour in {red} then versicolor  # trailing
"r 3": if not (colour is missing or sepal_width > 3) then [0.2, 0.5, 0.3]
4: if 0.5*petal_length - 1.5*sepal_width > -inf and colour not in {green} then label versicolor
if and(petal_length >= 1e-3) or or(sepal_width != 2) then virginica weight 2 with lift = 3.4
"""


def _variants(text: str) -> list[str]:
    """``text``, each line dropped, and each token swapped for a neighbour's (error paths)."""
    lines = text.splitlines(keepends=True)
    out = [text] + ["".join(lines[:i] + lines[i + 1:]) for i in range(len(lines))]
    words = text.split(" ")
    out += [" ".join(words[:i] + [words[i + 1], words[i]] + words[i + 2:]) for i in range(0, len(words) - 1, 3)]
    return out


def test_the_pickled_parser_reads_as_lark_builds_it(tmp_path, monkeypatch):
    """The parser loaded from rulekit's pickle (rules-parser-*.pickle) gives the same Parsed --
    rule base, comments, every diagnostic and position -- as lark's freshly built one."""
    from lark import Lark

    from rulekit.dsl.build import Builder
    from rulekit.dsl.grammar import grammar_text
    from rulekit.dsl.lexer import RulesLexer

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fresh_builder = Builder()
    fresh = Lark(grammar_text(), parser="lalr", lexer=RulesLexer, transformer=fresh_builder,
                 maybe_placeholders=True)
    path = parser._fast_cache_path(parser.analysis_cache())
    parser._save_fast(path, fresh, fresh_builder)
    assert os.stat(path).st_mode & 0o077 == 0
    loaded_builder = Builder()
    loaded = parser._load_fast(path, loaded_builder)
    assert loaded is not None and loaded.options.transformer is loaded_builder
    texts = _variants(RICH) + _variants(TEXT)
    results = {}
    for name, pair in (("fresh", (fresh, fresh_builder)), ("loaded", (loaded, loaded_builder))):
        monkeypatch.setattr(parser, "_machinery", lambda pair=pair: pair)
        results[name] = [parser.parse(t, file="f.rules") for t in texts]
    assert results["loaded"] == results["fresh"]
    assert results["fresh"][0].rulebase is not None and len(results["fresh"][0].rulebase.rules) == 5
    assert sum(bool(p.errors) for p in results["fresh"]) > len(texts) // 3  # the error paths ran


@pytest.mark.slow  # subprocesses, ~6 s loaded
def test_a_damaged_pickle_falls_back_to_lark(tmp_path):
    good = tmp_path / "good.rules"
    good.write_text(RICH)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", SCRIPT, str(good)], env=env, capture_output=True, text=True,
                           check=True).stdout
    (pickled,) = (tmp_path / "cache" / "rulekit").glob("rules-parser-*.pickle")
    for damage in (b"", b"garbage", pickled.read_bytes()[:1000]):
        pickled.write_bytes(damage)
        again = subprocess.run([sys.executable, "-c", SCRIPT, str(good)], env=env, capture_output=True,
                               text=True, check=True)
        assert again.stdout == first and not again.stderr
        assert pickled.stat().st_size > 100_000  # written again whole
