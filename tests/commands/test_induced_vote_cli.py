"""`rulekit rules DATA --target y --induce --order vote` writes weights of 4 significant digits, and the
written file predicts as the rules did before writing (audit item 7b: `confidence = 0.95278969...`)."""

import re

import numpy as np
import pytest

from rulekit import dsl
from rulekit.cli import main


def test_cli_vote_weights_are_short(tmp_path, capsys):
    rng = np.random.default_rng(5)
    n = 900
    x, g = np.round(rng.random(n) * 50, 2), rng.choice(["a", "b", "c"], n)
    y = np.where((x > 20) & (g != "b") | (x < 5), "pos", "neg")
    y = np.where(rng.random(n) < 0.07, np.where(y == "pos", "neg", "pos"), y)
    data = tmp_path / "d.csv"
    data.write_text("x,g,y\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(x, g, y)))
    out = tmp_path / "v.rules"
    with pytest.raises(SystemExit) as ex:
        main(["rules", str(data), "--target", "y", "--induce", "--order", "vote", "-o", str(out)])
    assert ex.value.code == 0, capsys.readouterr().err
    text = out.read_text()
    assert "semantics vote" in text and "confidence =" not in text
    weights = re.findall(r" weight (\S+)", text)
    assert weights and all(len(w) <= 6 for w in weights), weights
    assert dsl.loads(text).rules[0].weight is not None
