"""`diff MODEL RULES`: a model's rule ids are its paths' numbers, so its rules are paired with the
other side's by condition only; the tree's r1 and a pruned file's unrelated r1 were shown as one rule
'changed' (audit 3 #12). Two rules files still pair by id (a person edited the rule)."""

import numpy as np

from rulekit import dsl
from tests.commands.cli import run_cli


def _files(tmp_path, capsys):
    rng = np.random.default_rng(9)
    x = rng.uniform(0, 10, (600, 2))
    y = np.where(x[:, 0] > 6, "hi", np.where(x[:, 1] > 5, "mid", "lo"))
    data = tmp_path / "d.csv"
    data.write_text("a,b,y\n" + "".join(f"{r[0]:.3f},{r[1]:.3f},{c}\n" for r, c in zip(x, y)))
    model, pruned = tmp_path / "m.json", tmp_path / "p.rules"
    assert run_cli(["fit", data, "--target", "y", "--max-depth", "4", "-o", model, "-q"], capsys)[0] == 0
    assert run_cli(["rules", model, "--prune-data", data, "--dnf", "-o", pruned, "-q"], capsys)[0] == 0
    return model, pruned


def test_a_model_and_a_pruned_file_pair_only_equal_conditions(tmp_path, capsys):
    model, pruned = _files(tmp_path, capsys)
    code, out, _ = run_cli(["diff", model, pruned, "--format", "json"], capsys)
    assert code == 1
    import json

    d = json.loads(out)
    changed = [r for r in d["rules"] if r["kind"] == "changed" and r["id"] != "default"]
    assert changed == [] and d["rules_removed"] > 0 and d["rules_added"] > 0


def test_two_rules_files_pair_by_id(tmp_path, capsys):
    _, pruned = _files(tmp_path, capsys)
    rb = dsl.loads(pruned.read_text())
    first = rb.rules[0]
    edited = rb.model_copy(update={"rules": (first.model_copy(update={"conclusion": rb.default}),) + rb.rules[1:]})
    other = tmp_path / "e.rules"
    other.write_text(dsl.dumps(edited))
    code, out, _ = run_cli(["diff", pruned, other], capsys)
    assert code == 1 and "0 added, 0 removed, 1 changed" in out
