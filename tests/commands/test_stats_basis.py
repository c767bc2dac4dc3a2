"""`rulekit stats` renames the rows behind the statistics in the header comment `rulekit rules` writes
(it named the pruning rows, and went stale after a refresh on other data) and keeps the rows behind
the class shares (stats does not change them); rows without a target are not counted as errors
(audit items); ``-o -`` is standard output for every command that writes a file (`rules` and
`stats` wrote a file named '-')."""

import numpy as np
import pytest

from rulekit.dsl.basis import refresh_basis
from tests.commands.cli import run_cli


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(4)
    n = 420
    a, b = rng.integers(0, 60, n), rng.choice(["x", "y", "z"], n)
    y = np.where((a > 25) & (b != "z"), "yes", "no")
    lines = ["a,b,y"] + [f"{a[i]},{b[i]},{y[i]}" for i in range(n)]
    paths = {}
    for name, part in (("train", lines[1:250]), ("prune", lines[250:370]), ("other", lines[370:])):
        paths[name] = tmp_path / f"{name}.csv"
        paths[name].write_text("\n".join([lines[0]] + part) + "\n")
    return paths


def test_stats_names_the_new_rows(tmp_path, capsys, files):
    model, rules, out = tmp_path / "m.json", tmp_path / "r.rules", tmp_path / "r2.rules"
    assert run_cli(["fit", files["train"], "--target", "y", "-o", model], capsys)[0] == 0
    assert run_cli(["rules", model, "--prune-data", files["prune"], "--dnf", "-o", rules], capsys)[0] == 0
    before = rules.read_text()
    assert "the 120 pruning rows" in before
    edited = ("# my own note: the 120 pruning rows\n" + before).replace("\n", "\r\n")
    rules.write_text(edited, newline="")
    assert run_cli(["stats", rules, files["other"], "-o", out], capsys)[0] == 0
    after = out.read_bytes().decode()
    assert "pruning rows its condition" not in after
    assert "among the 120 pruning rows;\r\n" in after  # the shares are still those rows'
    assert f"\r\n# 'with N rows, M correct': the 51 rows of {files['other']} its condition holds on\r\n" in after
    assert after.startswith("# my own note: the 120 pruning rows\r\n")  # a person's comment is theirs
    assert after.count("\r\n") == edited.count("\r\n") and "\n" not in after.replace("\r\n", "")


def test_stats_names_the_new_rows_of_induced_rules(tmp_path, capsys, files):
    rules = tmp_path / "i.rules"
    assert run_cli(["rules", files["train"], "--target", "y", "--induce", "-o", rules], capsys)[0] == 0
    assert "rules were learned from" in rules.read_text()
    code, text, _ = run_cli(["stats", rules, files["prune"], "-o", "-"], capsys)
    assert code == 0
    assert text.startswith(f"# {{class: share}}: classes of the rows each rule decides (the first rule that "
                           f"holds) among the 249 rows of {files['train']} the rules were learned from;\n"
                           f"# 'with N rows, M correct': the 120 rows of {files['prune']} its condition holds on\n")


def test_rows_without_a_target_are_not_errors(tmp_path, capsys, files):
    rules, out = tmp_path / "i.rules", tmp_path / "o.rules"
    assert run_cli(["rules", files["train"], "--target", "y", "--induce", "-o", rules], capsys)[0] == 0
    lines = files["prune"].read_text().splitlines()
    blank = tmp_path / "blank.csv"
    blank.write_text("\n".join(lines + [row.rsplit(",", 1)[0] + "," for row in lines[1:41]]) + "\n")
    code, _, err = run_cli(["stats", rules, files["prune"], "-o", out], capsys)
    plain = out.read_text()
    code2, _, err2 = run_cli(["stats", rules, blank, "-o", out], capsys)
    assert code == code2 == 0 and "40 row(s)" in err2 and "not counted" in err2
    assert out.read_text().replace(str(blank), str(files["prune"])) == plain  # the same numbers


def test_text_without_the_comment_is_unchanged():
    text = "# numbers counted on my own terms\nrulebase r\n# {class: share}: classes of the rows each rule " \
           "decides (the first rule that holds) among 3 rows;\n# 'with N rows, M correct': 3 rows\n"
    assert refresh_basis(text, 9, "d.csv") == text  # only the comments that open the file


@pytest.mark.parametrize("command", ["rules", "stats", "fit"])
def test_dash_is_standard_output(tmp_path, capsys, files, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    model, rules = tmp_path / "m.json", tmp_path / "r.rules"
    assert run_cli(["fit", files["train"], "--target", "y", "-o", model], capsys)[0] == 0
    assert run_cli(["rules", model, "-o", rules], capsys)[0] == 0
    args = {"rules": ["rules", model, "-o", "-"], "stats": ["stats", rules, files["other"], "-o", "-"],
            "fit": ["fit", files["train"], "--target", "y", "-o", "-"]}[command]
    code, out, err = run_cli(args, capsys)
    assert code == 0 and not (tmp_path / "-").exists()
    assert out.startswith("{" if command == "fit" else "rulebase") and "wrote -" not in err


def test_scorecard_says_which_rows_and_stats_renames_them(tmp_path, capsys, files):
    card = tmp_path / "s.rules"
    assert run_cli(["rules", files["train"], "--target", "y", "--scorecard", "-o", card], capsys)[0] == 0
    text = card.read_text()
    assert text.startswith(f"# 'with N rows, M correct': the 249 rows of {files['train']} the card was learned "
                           f"from that its condition holds on\nrulebase")
    code, out, _ = run_cli(["stats", card, files["prune"], "-o", "-"], capsys)
    assert code == 0 and out.startswith(f"# 'with N rows, M correct': the 120 rows of {files['prune']} its "
                                        f"condition holds on\nrulebase")


def test_stats_reads_declared_na_texts_as_values(tmp_path, capsys):
    """A rules file's domain that declares 'N/A' as a value: stats reads such cells as that value (as
    predict does), not as missing, with one note."""
    rules = tmp_path / "r.rules"
    rules.write_text('rulebase r\ntarget y: classes {neg, pos}\nfeature s: nominal {"N/A", ok}\n'
                     'semantics first-hit\ndefault neg\nr1: if s = "N/A" then pos\n')
    data = tmp_path / "d.csv"
    data.write_text("s,y\n" + "N/A,pos\n" * 7 + "ok,neg\n" * 3)
    code, out, err = run_cli(["stats", rules, data, "-o", "-"], capsys)
    assert code == 0 and "with 7 rows, 7 correct" in out and "read as values, not missing" in err
    assert run_cli(["stats", rules, data, "--na-values", "N/A", "-o", "-"], capsys)[1].count("with 0 rows") == 1


def test_a_path_with_a_line_break_stays_inside_the_comment(tmp_path, capsys, files):
    """A DATA path holding a newline (review): the comment shows it quoted, so the written file still
    parses (it had a second line that read as a statement)."""
    rules, out = tmp_path / "i.rules", tmp_path / "o.rules"
    assert run_cli(["rules", files["train"], "--target", "y", "--induce", "-o", rules], capsys)[0] == 0
    odd = tmp_path / "pr\nx: if.csv"
    odd.write_text(files["prune"].read_text())
    assert run_cli(["stats", rules, odd, "-o", out], capsys)[0] == 0
    assert repr(str(odd)) in out.read_text()
    assert run_cli(["check", out], capsys)[0] == 0


def test_header_only_data_gives_zero_row_statistics(tmp_path, capsys, files):
    rules, empty = tmp_path / "i.rules", tmp_path / "h.csv"
    assert run_cli(["rules", files["train"], "--target", "y", "--induce", "-o", rules], capsys)[0] == 0
    empty.write_text("a,b,y\n")
    code, out, err = run_cli(["stats", rules, empty, "-o", "-"], capsys)
    assert code == 0 and "with 0 rows" in out, err
