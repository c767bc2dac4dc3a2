"""`rulekit rules MODEL` without data writes the default's shares as the tree's root holds them,
counts over its rows (`{churn: 367/1500, ...}`), not renormalised by their float sum into
17-digit numbers that no count reproduces (audit item 7a)."""

import re

import numpy as np
import pytest

from rulekit import dsl
from rulekit.cli import main
from rulekit.ir.modelfile import load_model
from rulekit.rules.extract import root_of


def run_cli(args, capsys):
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ex.value.code, out.out + out.err


@pytest.mark.parametrize("seed", [0, 6, 13, 39])  # 6, 13, 39: the root shares sum to 1 - 2**-53
def test_default_is_the_root_shares_over_its_rows(tmp_path, capsys, seed):
    rng = np.random.default_rng(seed)
    n = 1500
    x, z = rng.random(n), rng.choice(["a", "b", "c"], n)
    y = np.where(x < 0.25, "churn", np.where(z == "a", "vip", np.where(x > 0.9, "fraud", "stay")))
    y = np.where(rng.random(n) < 0.1, rng.choice(["churn", "fraud", "stay", "vip"], n), y)
    data = tmp_path / "d.csv"
    data.write_text("x,z,y\n" + "".join(f"{a!r},{b},{c}\n" for a, b, c in zip(x.tolist(), z, y)))
    model, out = tmp_path / "m.json", tmp_path / "r.rules"
    assert run_cli(["fit", data, "--target", "y", "-o", model, "-q"], capsys)[0] == 0
    assert run_cli(["rules", model, "-o", out, "-q"], capsys)[0] == 0
    text = out.read_text()
    default = next(line for line in text.splitlines() if line.startswith("default "))
    assert f"/{n}" in default and not re.search(r"\d\.\d{8}", default), default
    tree = load_model(model).trees[0]
    root = tree.nodes[root_of(tree)]
    assert dsl.loads(text).default.distribution == tuple(root["value"])
