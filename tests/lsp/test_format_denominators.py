"""Formatting in the editor (LSP) and the studio keeps the denominator class shares are written over
(`279/285`, not `93/95`), as `rulekit fmt` does: the same file must not format three ways."""

from rulekit import dsl
from rulekit.dsl.parser import Parsed
from rulekit.lsp import edits
from rulekit.lsp.analysis import analyse, from_parsed
from rulekit.studio.session import Session

TEXT = ("rulebase r\ntarget y: classes {a, b}\nfeature x: numeric\nsemantics first-hit\nprecision float64\n"
        "default b {a: 6/285, b: 279/285}\n\n"
        "r1: if x <= 1 then a {a: 40/45, b: 5/45} with 45 rows, 40 correct (88.9%)\n")


def test_lsp_format_keeps_denominators():
    a = analyse(TEXT.replace("\n\n", "\n\n\n"))
    assert edits.formatted(a) == TEXT


def test_lsp_format_after_an_incremental_parse_keeps_them():
    full = dsl.parse(TEXT.replace("\n\n", "\n\n\n"))
    bare = Parsed(full.rulebase, [], full.file, full.text, full.rule_pos, full.literal_pos, full.header_lines)
    assert edits.formatted(from_parsed(bare, [])) == TEXT


def test_studio_format_keeps_denominators(tmp_path):
    path = tmp_path / "r.rules"
    path.write_text(TEXT)
    assert Session(path).formatted(TEXT.replace("\n\n", "\n\n\n")) == TEXT
