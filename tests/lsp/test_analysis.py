"""The server's per-text analysis holds nothing after it returns (its memory stays bounded over edits)."""

from __future__ import annotations

from rulekit.lsp.analysis import analyse
from rulekit.rules import boxes

TEXT = """\
rulebase m
target y: classes {a, b}
feature x: numeric
default a

if x > 1 then b
if x > 2 then b
"""


def test_no_box_cache_survives_an_analysis():
    for k in range(50):
        a = analyse(TEXT.replace("x > 2", f"x > {k + 2}"))
        assert a.rulebase is not None and a.diagnostics  # the second rule is shadowed: lint ran
        assert len(boxes._box_cache) == 0
