"""`fit --target COL` on a file without COL says what the header suggests, as predict does: a header
that is one field (a ';' file), the name in another case or with spaces around it (audit 3 #21: a
semicolon file got 'no column 'y' (columns: City Name;age;y)')."""

import pytest

from tests.commands.cli import run_cli


@pytest.mark.parametrize("text, target, said", [
    ("a;b;y\n1;2;x\n3;4;z\n", "y", "the header is one field: rulekit reads comma-separated files"),
    ("a,Label\n1,x\n2,z\n", "label", "the header has 'Label' (names must match exactly)"),
    ("a, y\n1,x\n2,z\n", "y", "the header has ' y' (spaces around the name)"),
    ("a,b\n1,x\n2,z\n", "y", "(columns: 'a', 'b')"),
])
def test_fit_names_what_the_header_suggests(tmp_path, capsys, text, target, said):
    data = tmp_path / "d.csv"
    data.write_text(text)
    code, _, err = run_cli(["fit", data, "--target", target, "-o", tmp_path / "m.json"], capsys)
    assert code == 2 and err.count("\n") == 1 and said in err
