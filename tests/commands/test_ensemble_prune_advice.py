"""`rules ENSEMBLE --prune-data P` / `--dnf` says what to do, not only what is wrong (audit 3 #23):
fit one tree, or leave out --prune-data and --dnf to list every tree's rules (their number); the
rules it names are the rules that command then writes."""

import re

import numpy as np

from tests.commands.cli import run_cli


def test_the_refusal_names_both_ways_and_the_count(tmp_path, capsys):
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 1, (200, 3))
    data = tmp_path / "d.csv"
    data.write_text("a,b,c,y\n" + "".join(f"{r[0]:.3f},{r[1]:.3f},{r[2]:.3f},{'p' if r[0] > r[1] else 'n'}\n"
                                            for r in x))
    model, out = tmp_path / "rf.json", tmp_path / "r.rules"
    assert run_cli(["fit", data, "--target", "y", "--ensemble", "random-forest", "--n-trees", "4",
                    "-o", model, "-q"], capsys)[0] == 0
    for extra in (["--prune-data", data], ["--dnf"]):
        code, _, err = run_cli(["rules", model, *extra, "-o", out], capsys)
        assert code == 2 and err.count("\n") == 1 and "without --ensemble" in err
        # 'list every tree's rules without pruning and --dnf' read as 'with --dnf' (review)
        assert "prune one tree's rules (rulekit fit without --ensemble)" in err, err
        assert "or leave out --prune-data and --dnf to list every tree's rules (" in err, err
        assert not out.exists()
    n = int(re.search(r"\(([\d,]+) rules\)", err).group(1).replace(",", ""))
    code, _, err = run_cli(["rules", model, "-o", out], capsys)
    assert code == 0 and f"({n} rules," in err
