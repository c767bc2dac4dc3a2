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


def test_the_threshold_cache_stays_bounded_over_edits(monkeypatch):
    """One threshold bound per value ever typed would grow for the life of the server: past
    CANONICAL_KEPT entries the first pass and the analysis drop them."""
    from rulekit.dsl import incremental

    monkeypatch.setattr(incremental, "CANONICAL_KEPT", 40)
    inc = incremental.Incremental("t.rules", max_new=10)
    for k in range(120):
        text = TEXT.replace("x > 2", f"x > {k + 2.5}")
        inc.local(text)
        analyse(text)
        assert len(boxes._CANON) <= 40 + 8  # at most one edit's thresholds over the bound
