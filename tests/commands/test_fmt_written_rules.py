"""Files `rulekit rules` writes are `rulekit fmt --check` clean (audit item 6): the shares over the
rows counted (`279/285`) stay as written, not reduced (`93/95`), on several data sets and paths
(held-out pruning, --dnf, no data, --induce, vote order)."""

import numpy as np
import pytest

from rulekit import dsl
from rulekit.cli import main


def run_cli(args, capsys):
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ex.value.code, out.out + out.err


def _noisy(tmp_path, seed):
    """Nominal and numeric columns, a concept with 8% label noise: shares that are not 0 or 1."""
    rng = np.random.default_rng(seed)
    n = 900
    g = rng.choice(["a", "b", "c"], n)
    h = rng.choice(["u", "v"], n)
    x = np.round(rng.random(n) * 100, 1)
    y = np.where((g == "a") & (x > 40) | (h == "v") & (x < 20), "pos", "neg")
    y = np.where(rng.random(n) < 0.08, np.where(y == "pos", "neg", "pos"), y)
    lines = ["g,h,x,y"] + [f"{a},{b},{c!r},{d}" for a, b, c, d in zip(g, h, x.tolist(), y)]
    train, prune = tmp_path / f"train{seed}.csv", tmp_path / f"prune{seed}.csv"
    train.write_text("\n".join(lines[:601]) + "\n")
    prune.write_text("\n".join([lines[0]] + lines[601:]) + "\n")
    return train, prune


PATHS = {
    "prune": lambda m, t, p: [m, "--prune-data", p],
    "prune-dnf": lambda m, t, p: [m, "--prune-data", p, "--dnf"],
    "no-data": lambda m, t, p: [m],
    "induce": lambda m, t, p: [t, "--target", "y", "--induce"],
    "induce-dnf": lambda m, t, p: [t, "--target", "y", "--induce", "--dnf"],
    "induce-vote": lambda m, t, p: [t, "--target", "y", "--induce", "--order", "vote"],
}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_written_rules_are_fmt_clean(tmp_path, capsys, seed):
    train, prune = _noisy(tmp_path, seed)
    model = tmp_path / "m.json"
    code, said = run_cli(["fit", train, "--target", "y", "-o", model, "-q"], capsys)
    assert code == 0, said
    unreduced = 0
    for path, args in PATHS.items():
        out = tmp_path / f"{path}.rules"
        code, said = run_cli(["rules", *args(model, train, prune), "-o", out, "-q"], capsys)
        assert code == 0, said
        code, said = run_cli(["fmt", "--check", out], capsys)
        assert code == 0, f"{path}: {said}\n{out.read_text()}"
        parsed = dsl.parse(out.read_text())
        unreduced += sum(n is not None for n in parsed.share_rows)
    assert unreduced > 0  # some lines are written over their rows, so the check means something


def test_parse_keeps_the_denominator_shares_are_written_over():
    text = ("target y: classes {no, yes}\nfeature x: numeric\ndefault no {no: 279/285, yes: 6/285}\n"
            "if x > 1 then yes {no: 0, yes: 12/12}\nif x > 2 then yes {no: 1/3, yes: 4/6}\n"
            "if x > 3 then yes {no: 0.25, yes: 3/4}\nif x > 4 then yes {no: 0.5, yes: 0.5}\n")
    parsed = dsl.parse(text)
    assert not parsed.errors
    assert parsed.share_rows == (12, None, None, None, 285)


def test_fmt_writes_the_counts_again(tmp_path, capsys):
    f = tmp_path / "r.rules"
    f.write_text("target y: classes {no, yes}\nfeature x: numeric\ndefault no {no: 279/285, yes: 6/285}\n"
                 "if x > 1 then yes {no: 2/10, yes: 8/10}\n")
    code, said = run_cli(["fmt", f], capsys)
    assert code == 0, said
    text = f.read_text()
    assert "{no: 279/285, yes: 6/285}" in text and "{no: 2/10, yes: 8/10}" in text
    assert dsl.loads(text).default.distribution == (279 / 285, 6 / 285)
