"""`rules DATA --induce` with no rule left: the warning suggests `--select none` only when that would
learn a rule (audit 12b: on pure noise it suggested it, and the suggestion wrote the same empty file)."""

import numpy as np
import pytest

from rulekit.cli import main


def test_pure_noise_warning_does_not_suggest_select_none(tmp_path, capsys):
    rng = np.random.default_rng(3)
    cols = {f"f{j}": rng.choice(list("abc"), 600) for j in range(6)}
    y = rng.choice(["yes", "no"], 600, p=[0.3, 0.7])
    data = tmp_path / "d.csv"
    data.write_text(",".join([*cols, "y"]) + "\n" + "".join(
        ",".join([*(cols[c][i] for c in cols), y[i]]) + "\n" for i in range(600)))
    with pytest.raises(SystemExit) as ex:
        main(["rules", str(data), "--target", "y", "--induce", "-o", str(tmp_path / "r.rules")])
    err = capsys.readouterr().err
    assert ex.value.code == 0 and "no rule beat predicting 'no'" in err
    assert "--select none" not in err and "more data may show one" in err
