"""A card of three or more classes says what the braces after 'then' are (how a rule's weight splits
into points per class; elsewhere braces are the classes of the rows a rule decides) and what the
default's are (start points); a two-class card has no braces on its rules and no such line
(audit 3 #2). `stats` keeps the line."""

import numpy as np
import pytest

from rulekit.dsl.basis import SPLIT_LINE
from tests.commands.cli import run_cli


@pytest.mark.parametrize("k", [2, 3])
def test_the_split_line_comes_with_multi_class_cards(tmp_path, capsys, k):
    rng = np.random.default_rng(11)
    x = rng.uniform(0, 10, (400, 2))
    y = np.digitize(x[:, 0], [10 / k * i for i in range(1, k)])
    data = tmp_path / "d.csv"
    data.write_text("a,b,y\n" + "".join(f"{r[0]:.4f},{r[1]:.4f},c{c}\n" for r, c in zip(x, y)))
    out, refreshed = tmp_path / "c.rules", tmp_path / "c2.rules"
    assert run_cli(["rules", data, "--target", "y", "--scorecard", "-o", out, "-q"], capsys)[0] == 0
    assert run_cli(["stats", out, data, "-o", refreshed], capsys)[0] == 0
    for path in (out, refreshed):
        text = path.read_text()
        assert (f"# {SPLIT_LINE}" in text) == (k > 2)
        assert ("} weight" in text) == (k > 2)  # braces on the rules only where points split
    assert run_cli(["check", out], capsys)[0] == 0


def test_the_held_out_comparison_runs_inside_a_named_phase(tmp_path, capsys, monkeypatch):
    """The comparison behind the --scorecard note took 3/4 of a 30,000-row run with no word on the
    terminal (audit 3 #14): it runs inside a progress phase that names it."""
    from contextlib import contextmanager

    from rulekit import progress
    from rulekit.commands import form_notes

    open_phases, seen = [], []

    @contextmanager
    def phase(text):
        open_phases.append(text)
        try:
            yield progress.Task()
        finally:
            open_phases.pop()

    real = form_notes.rule_list_note
    monkeypatch.setattr(progress, "phase", phase)
    monkeypatch.setattr(form_notes, "rule_list_note", lambda *a, **k: (seen.append(list(open_phases)), real(*a, **k))[1])
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, (300, 2))
    data = tmp_path / "d.csv"
    data.write_text("a,b,y\n" + "".join(f"{r[0]:.4f},{r[1]:.4f},{'p' if r[0] > 0.5 else 'n'}\n" for r in x))
    assert run_cli(["rules", data, "--target", "y", "--scorecard", "-o", tmp_path / "c.rules"], capsys)[0] == 0
    assert len(seen) == 1 and any("held-out folds" in p for p in seen[0])


def test_the_summary_counts_tests_not_one_per_rule(tmp_path, capsys):
    """A card may hold rules of two tests (its budget counts tests): the summary line says how many
    tests, not 'one test each'."""
    import re

    from rulekit import dsl
    from rulekit.rules.boxes import count_literals

    rng = np.random.default_rng(6)
    x = rng.uniform(0, 1, (1500, 3))
    data = tmp_path / "d.csv"
    data.write_text("a,b,c,y\n" + "".join(
        f"{r[0]:.4f},{r[1]:.4f},{r[2]:.4f},{'p' if (r[0] > 0.5) == (r[1] > 0.5) else 'n'}\n" for r in x))
    out = tmp_path / "c.rules"
    code, _, err = run_cli(["rules", data, "--target", "y", "--scorecard", "-o", out], capsys)
    assert code == 0 and "one test each" not in err
    rules, tests = map(int, re.search(r"scorecard: (\d+) rules?, (\d+) tests? \(at most 18\)", err).groups())
    rb = dsl.loads(out.read_text())
    assert rules == len(rb.rules) and tests == sum(count_literals(r.condition) for r in rb.rules)
