"""`predict` with a rules file without a default: a row no rule decides gets empty cells (CSV
missing), not 'None' and 'nan', and one note counts those rows (audit, minor items)."""

from __future__ import annotations


from tests.commands.cli import exit_code as run

RULES = """rulebase r
target y: classes {neg, pos}
feature x: numeric
r1: if x > 5 then pos
"""


def test_undecided_rows_get_empty_cells_and_one_note(tmp_path, capsys):
    (tmp_path / "r.rules").write_text(RULES)
    (tmp_path / "d.csv").write_text("x\n1\n9\n\n3\n")
    assert run(["predict", tmp_path / "r.rules", tmp_path / "d.csv", "--proba", "-o", "-"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "prediction,proba:neg,proba:pos"
    assert lines[1] == ",," and lines[3] == ",," and lines[2].startswith("pos,")
    assert "None" not in out and "nan" not in out
    assert err.count("\n") == 1 and "no rule decides 2 rows of 3" in err and "has no default" in err


def test_no_note_when_every_row_is_decided(tmp_path, capsys):
    (tmp_path / "r.rules").write_text(RULES.replace("r1:", "default neg\nr1:"))
    (tmp_path / "d.csv").write_text("x\n1\n9\n")
    assert run(["predict", tmp_path / "r.rules", tmp_path / "d.csv", "-o", "-"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["prediction", "neg", "pos"] and err == ""
