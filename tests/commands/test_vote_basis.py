"""A vote file's header comment does not say that the first rule that holds decides a row (it said
so for `--order vote`, where every rule that holds adds its weight); its shares are still counted as a
first-hit list would decide, and the comment says that, also after `rulekit stats`."""

import numpy as np
import pytest

from tests.commands.cli import run_cli

VOTE = "in this vote every rule that holds adds its weight"


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(7)
    X = rng.integers(0, 4, (500, 4))
    y = ((X[:, 0] == 1) & (X[:, 1] != 2)) | (X[:, 2] == 3)
    path = tmp_path / "d.csv"
    path.write_text("f0,f1,f2,f3,y\n" + "".join(
        ",".join(f"v{v}" for v in row) + f",{'yes' if t else 'no'}\n" for row, t in zip(X, y)))
    return path


def header(path):
    return [line for line in path.read_text().splitlines() if line.startswith("#")]


@pytest.mark.parametrize("order", ["vote", "first-hit"])
def test_induced_file_says_how_rows_are_decided(tmp_path, capsys, data, order):
    out, refreshed = tmp_path / "r.rules", tmp_path / "r2.rules"
    assert run_cli(["rules", data, "--target", "y", "--induce", "--order", order, "-o", out, "-q"], capsys)[0] == 0
    assert run_cli(["stats", out, data, "-o", refreshed], capsys)[0] == 0
    for path in (out, refreshed):
        text = "\n".join(header(path))
        assert (VOTE in text) == (order == "vote")
        assert ("(the first rule that holds)" in text) == (order == "first-hit")


def test_tree_rules_vote_file(tmp_path, capsys, data):
    model, out = tmp_path / "m.json", tmp_path / "r.rules"
    assert run_cli(["fit", data, "--target", "y", "-o", model, "-q"], capsys)[0] == 0
    assert run_cli(["rules", model, "--prune-data", data, "--order", "vote", "-o", out, "-q"], capsys)[0] == 0
    text = "\n".join(header(out))
    assert VOTE in text and "(the first rule that holds)" not in text
    assert "semantics vote" in out.read_text()
