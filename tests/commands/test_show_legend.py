"""`show MODEL` says what a leaf's `[..]` holds and in which class order (audit 3 #18: `class: neg
[1, 0]` with nothing saying which number is which class); regression trees show one value and no
legend. A class name with a control character stays escaped."""

import numpy as np
import pytest

from tests.commands.cli import run_cli


@pytest.mark.parametrize("labels, legend", [
    (("neg", "pos"), "# [..] at a leaf: its value for each class, in the order neg, pos\n"),
    (("a\x1bb", "z"), "# [..] at a leaf: its value for each class, in the order a\\u001bb, z\n"),
    (None, None),
])
def test_show_says_what_the_brackets_hold(tmp_path, capsys, labels, legend):
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, 120)
    y = [labels[int(v > 0.5)] for v in x] if labels else [f"{3 * v:.3f}" for v in x]
    data = tmp_path / "d.csv"
    data.write_text("x,y\n" + "".join(f"{a:.4f},{b}\n" for a, b in zip(x, y)))
    model = tmp_path / "m.json"
    task = ["--task", "classification" if labels else "regression"]
    assert run_cli(["fit", data, "--target", "y", *task, "--max-depth", "2", "-o", model, "-q"], capsys)[0] == 0
    code, out, _ = run_cli(["show", model], capsys)
    assert code == 0
    if legend is None:
        assert "[..]" not in out
    else:
        assert out.splitlines()[1] + "\n" == legend and "\x1b" not in out
