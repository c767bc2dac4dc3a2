"""The numbers and notes people read from `rulekit rules`: the perfect-fit note only names the
training data when the pruning file is it (audit item 3); induced rules print short thresholds,
readable distributions and a default distribution (items 5/6)."""

import json

import numpy as np
import pytest

from rulekit.rules.conditions import Compare, atoms
from tests.commands.cli import run_cli


def _nominal(tmp_path, rows=560, seed=9, noise=0.0):
    """A nominal concept (noise-free by default): train, held-out prune."""
    rng = np.random.default_rng(seed)
    cols = {f"g{i}": rng.choice(["a", "b", "c"], rows) for i in range(4)}
    y = np.where((cols["g0"] == "a") | ((cols["g1"] == "c") & (cols["g2"] != "b")), "yes", "no")
    flip = rng.random(rows) < noise
    y = np.where(flip, np.where(y == "yes", "no", "yes"), y)
    lines = ["g0,g1,g2,g3,y"] + [",".join([cols[f"g{i}"][k] for i in range(4)] + [y[k]]) for k in range(rows)]
    train, prune = tmp_path / "train.csv", tmp_path / "prune.csv"
    train.write_text("\n".join(lines[:341]) + "\n")
    prune.write_text("\n".join([lines[0]] + lines[341:]) + "\n")
    return train, prune


@pytest.fixture
def fitted(tmp_path, capsys):
    train, prune = _nominal(tmp_path)
    model = tmp_path / "m.json"
    code, _, err = run_cli(["fit", train, "--target", "y", "-o", model], capsys)
    assert code == 0, err
    return model, train, prune


def test_no_training_data_note_on_held_out_rows(fitted, tmp_path, capsys):
    model, _, prune = fitted
    code, _, err = run_cli(["rules", model, "--prune-data", prune, "--dnf", "-o", tmp_path / "r.rules"], capsys)
    assert code == 0, err
    assert "accuracy on the pruning data 1.0000" in err  # the tree does fit these rows perfectly
    assert "trained" not in err and "training data?" not in err


def test_note_names_the_training_file_when_it_is(fitted, tmp_path, capsys):
    model, train, _ = fitted
    copy = tmp_path / "copy.csv"  # same bytes under another name: still the training data
    copy.write_bytes(train.read_bytes())
    code, _, err = run_cli(["rules", model, "--prune-data", copy, "--dnf", "-o", tmp_path / "r.rules"], capsys)
    assert code == 0, err
    assert "note: the pruning data is the file the tree was trained on" in err


def test_unrecorded_model_gets_a_hedged_note(fitted, tmp_path, capsys):
    model, train, _ = fitted
    doc = json.loads(model.read_text())
    doc["source"].pop("training_data")
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(doc))
    code, _, err = run_cli(["rules", bare, "--prune-data", train, "--dnf", "-o", tmp_path / "r.rules"], capsys)
    assert code == 0, err
    assert "fits the pruning data perfectly" in err and "if these rows trained it" in err
    assert "the file the tree was trained on" not in err


def _numeric_csv(tmp_path, rows=500, seed=31):
    rng = np.random.default_rng(seed)
    p, q, k = rng.random(rows), rng.random(rows), rng.integers(0, 40, rows)
    y = np.where(((p < 0.37) & (q > 0.41)) | (k > 33), "hi", "lo")
    path = tmp_path / "num.csv"
    path.write_text("p,q,k,y\n" + "".join(f"{float(a)!r},{float(b)!r},{int(c)},{d}\n" for a, b, c, d in zip(p, q, k, y)))
    return path


def _thresholds(rb):
    return [node.value for r in rb.rules for node in atoms(r.condition)
            if type(node) is Compare and type(node.value) is float]


def test_induced_thresholds_are_short_and_split_the_rows_the_same(tmp_path, capsys):
    import pandas as pd

    from rulekit import dsl
    from rulekit.commands.fit import _split
    from rulekit.rules.induction import RuleInducer
    from rulekit.dsl.readable import significant_digits

    data = _numeric_csv(tmp_path)
    out = tmp_path / "i.rules"
    code, _, err = run_cli(["rules", data, "--target", "y", "--induce", "-o", out], capsys)
    assert code == 0, err
    rb = dsl.loads(out.read_text())
    cuts = _thresholds(rb)
    assert cuts and max(significant_digits(t) for t in cuts) <= 6, cuts  # midpoints had 16-17
    X, y, _ = _split(data, "y", "classification", True)
    raw = RuleInducer(random_state=0).fit(X, y).rule_base_
    frame = pd.read_csv(data)
    assert list(rb.predict(frame)) == list(raw.predict(frame))  # every learning row goes the same way


def test_induced_dnf_prints_counted_shares_and_a_default_distribution(tmp_path, capsys):
    import pandas as pd

    from rulekit import dsl
    from rulekit.rules import engine
    from rulekit.rules.stats import class_codes

    data = _numeric_csv(tmp_path, seed=32)
    out = tmp_path / "d.rules"
    code, _, err = run_cli(["rules", data, "--target", "y", "--induce", "--dnf", "-o", out], capsys)
    assert code == 0, err
    text = out.read_text()
    assert "numbers counted on the 500 rows of" in text
    rb = dsl.loads(text)
    assert rb.default.distribution is not None
    frame = pd.read_csv(data)
    hit = engine.first_hit(rb, engine.matrix(rb, frame))
    yc = class_codes(frame["y"], list(rb.classes))
    for j, c in enumerate([r.conclusion for r in rb.rules] + [rb.default]):
        counts = np.bincount(yc[hit == (j if j < len(rb.rules) else -1)], minlength=len(rb.classes))
        assert c.distribution == tuple(float(v) for v in counts / counts.sum())
    for r in rb.rules:  # statistics on the same rows
        assert r.stats["n"] > 0 and "e" in r.stats


def test_default_path_says_which_rows_its_numbers_count(tmp_path, capsys):
    import pandas as pd

    from rulekit import dsl
    from rulekit.rules import engine
    from rulekit.rules.stats import class_codes

    train, prune = _nominal(tmp_path, noise=0.15)
    model = tmp_path / "m.json"
    assert run_cli(["fit", train, "--target", "y", "--max-depth", "3", "-o", model], capsys)[0] == 0
    out = tmp_path / "r.rules"
    code, _, err = run_cli(["rules", model, "--prune-data", prune, "--select", "none", "-o", out], capsys)
    assert code == 0, err
    text = out.read_text()
    assert "among the 340 training and 220 pruning rows" in text
    assert "the 220 pruning rows its condition holds on" in text
    rb = dsl.loads(text)
    both = pd.concat([pd.read_csv(train), pd.read_csv(prune)])
    hit = engine.first_hit(rb, engine.matrix(rb, both))
    yc = class_codes(both["y"], list(rb.classes))
    for j, r in enumerate(rb.rules):  # the shares are those of the rows each rule decides there
        counts = np.bincount(yc[hit == j], minlength=len(rb.classes))
        assert r.conclusion.distribution == tuple(float(v) for v in counts / counts.sum())
        line = next(ln for ln in text.splitlines() if ln.startswith(f"{r.id}: "))
        line += next(ln for ln in text.splitlines()[text.splitlines().index(line) + 1:] + [""]
                     if not ln.startswith(("    and", "    or")))  # the conclusion may wrap
        shown = "{" + ", ".join(f"{c}: {k}/{counts.sum()}" if k else f"{c}: 0"
                                for c, k in zip(rb.classes, counts)) + "}"
        assert shown in line or counts.max() == counts.sum(), (shown, line)
    assert any(0 < p < 1 for r in rb.rules for p in r.conclusion.distribution)  # not only 0 and 1
