"""`fit`, `rules --induce` and `--scorecard` say which columns no test can use (empty in every row, or
one value throughout): they stay features, listed in the rules header, and no rule tests them
(audit 3 #27). Quiet under -q; nothing when every column varies."""

import pytest

from rulekit.commands.idle_columns import idle_note
from tests.commands.cli import run_cli

DATA = "a,empty,const,word,y\n" + "".join(
    f"{i / 10},,7,same,{'p' if i > 9 else 'n'}\n" for i in range(20))


@pytest.mark.parametrize("args", [["fit"], ["rules", "--induce"], ["rules", "--scorecard"]])
def test_the_note_names_them(tmp_path, capsys, args):
    data = tmp_path / "d.csv"
    data.write_text(DATA)
    cmd = [args[0], data, *args[1:], "--target", "y", "-o", tmp_path / "out"]
    code, _, err = run_cli(cmd, capsys)
    assert code == 0
    assert ("rulekit: note: no test can use columns empty (every cell empty), const (one value: 7), word "
            "(one value: 'same'): they stay features of the model, which a row to predict must have") in err
    code, _, err = run_cli(cmd + ["-q"], capsys)
    assert code == 0 and "no test can use" not in err


def test_nothing_when_every_column_varies():
    import pandas as pd

    assert idle_note(pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})) is None
    assert "and 2 more" in idle_note(pd.DataFrame({f"c{i}": [1.0, 1.0] for i in range(7)}))
