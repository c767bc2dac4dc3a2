"""`rules DATA --induce` writes files `check` accepts: a rule learned on the growing rows that decides
mostly another class among all of DATA's rows concludes that class, its 'N correct' counted for the
new label, and a note says so (a review: half the x cells missing, `z > 0.5025 then yes {no: 161/310,
yes: 149/310}`, which check rejected). Every --order and --dnf."""

import re

import numpy as np
import pytest

from tests.commands.cli import run_cli


@pytest.mark.parametrize("extra", [[], ["--dnf"], ["--order", "vote"]])
def test_induced_files_pass_check(tmp_path, capsys, extra):
    rng = np.random.default_rng(1)
    n = 600
    x, z = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    rng.uniform(0, 1, n)  # the draws of the review's data set
    y = np.where((x > 0.5) & (z > 0.5), "yes", "no")
    x[rng.random(n) < 0.5] = np.nan
    data = tmp_path / "d.csv"
    data.write_text("x,z,y\n" + "".join(f"{'' if np.isnan(a) else repr(float(a))},{float(b)!r},{c}\n"
                                         for a, b, c in zip(x, z, y)))
    out = tmp_path / "r.rules"
    code, _, err = run_cli(["rules", data, "--target", "y", "--induce", *extra, "-o", out], capsys)
    assert code == 0
    code, said, _ = run_cli(["check", out], capsys)
    assert code == 0, said
    if not extra:
        assert "rulekit: note: 1 rule now concludes the class its shares" in err, err
        said = re.search(r"then no \{no: (\d+)/(\d+), yes: (\d+)/\2\} with \2 rows, (\d+) correct", out.read_text())
        assert said and said.group(1) == said.group(4) and int(said.group(1)) > int(said.group(3))
