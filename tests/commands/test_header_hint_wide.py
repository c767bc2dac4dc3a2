"""A column that is not in the header: a wide header still lists its first 20 columns and says how
many more (past 20 the message named no column at all: fit listed every one before), and a name given
with spaces around it finds the header's bare name (the match is on the stripped name both ways)."""

import pytest

from rulekit import table
from tests.commands.cli import run_cli


def test_a_wide_header_lists_20_columns_and_how_many_more(tmp_path, capsys):
    data = tmp_path / "wide.csv"
    data.write_text(",".join(f"c{i}" for i in range(25)) + "\n" + ",".join("0" * 25) + "\n")
    code, _, err = run_cli(["fit", data, "--target", "y", "-o", tmp_path / "m.json"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "(columns: 'c0', 'c1'," in err and "'c19' and 5 more)" in err and "'c20'" not in err, err


@pytest.mark.parametrize("have, name, said", [
    (["a", "y"], " y", "the header has 'y' (no spaces around it)"),
    (["a", "y"], "y  ", "the header has 'y' (no spaces around it)"),
    (["a", " y"], "y", "the header has ' y' (spaces around the name)"),
    (["a", "Y"], " y", "the header has 'Y' (names must match exactly)"),
    ([f"c{i}" for i in range(20)], "y", "'c19')"),
])
def test_the_hint(have, name, said):
    assert said in table.header_hint(have, name)


def test_fit_with_spaces_around_the_target(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("a,y\n1,x\n2,z\n")
    code, _, err = run_cli(["fit", data, "--target", " y", "-o", tmp_path / "m.json"], capsys)
    assert code == 2 and "the header has 'y'" in err, err
