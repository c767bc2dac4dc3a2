"""`rulekit verify` on a CSV with a header and no rows: nothing can disagree. The SQL backends'
empty result gave probabilities of shape (0,), not (0, classes), and verify called that a shape
mismatch: max |d| inf and DISAGREES on sqlite/duckdb/postgres/mysql, exit 1 (audit 3, finding 16)."""

from rulekit import dsl, runtimes

from tests.commands.cli import run_cli

RULES = ('rulebase t\ntarget y: classes {no, yes}\nfeature x: numeric\nfeature c: nominal {"a b", d}\n'
         'semantics first-hit\ndefault no {no: 3/4, yes: 1/4}\n\nr1: if x > 3 and c = d then yes {no: 0, yes: 1}\n')


def test_no_result_rows_are_probabilities_of_no_rows_by_classes():
    rb = dsl.loads(RULES)
    out = runtimes._collect(rb, [], 0.0)
    assert out.proba.shape == (0, 2)


def test_verify_a_header_only_csv_agrees(tmp_path, capsys):
    rules, data = tmp_path / "t.rules", tmp_path / "empty.csv"
    rules.write_text(RULES)
    data.write_text("x,c,y\n")
    code, out, err = run_cli(["verify", rules, data, "--backends", "python,sqlite,duckdb"], capsys)
    assert code == 0, out + err
    assert "DISAGREES" not in out and "inf" not in out
