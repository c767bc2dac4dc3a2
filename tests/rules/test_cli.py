"""`rulekit rules` and `rulekit predict --explain` from the command line."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys

import pandas as pd
import pytest

from tests.rules.helpers import playgolf, playgolf_id3


@pytest.fixture
def golf(tmp_path):
    model = playgolf_id3()
    model.save(tmp_path / "golf.json")
    playgolf().to_csv(tmp_path / "golf.csv", index=False)
    return tmp_path


def test_rules_command_writes_a_rules_file(golf, run):
    from rulekit import dsl

    r = run("rules", "golf.json", "-o", "plain.rules", cwd=golf)
    assert r.returncode == 0, r.stderr
    rb = dsl.loads((golf / "plain.rules").read_text())
    model = playgolf_id3()
    df = playgolf()
    assert rb.predict(df).tolist() == model.predict(df).tolist()
    r = run("rules", "golf.json", "--prune-data", "golf.csv", "-o", "pruned.rules", cwd=golf)
    assert r.returncode == 0, r.stderr
    pruned = dsl.loads((golf / "pruned.rules").read_text())
    assert [x.conclusion.label for x in pruned.rules] == ["no", "no"] and pruned.default.label == "yes"
    assert "n" in pruned.rules[0].stats
    r = run("rules", "golf.json", "--dnf", "--order", "vote", "-o", "dnf.rules", cwd=golf)
    assert r.returncode == 0, r.stderr
    d = dsl.loads((golf / "dnf.rules").read_text())
    assert len(d.rules) == 1 and d.semantics == "vote"


def test_rules_command_errors_are_one_line(golf, run):
    r = run("rules", "missing.json", "-o", "x.rules", cwd=golf)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    (golf / "bad.csv").write_text("outlook,play\nsunny,no\n")
    r = run("rules", "golf.json", "--prune-data", "bad.csv", "-o", "x.rules", cwd=golf)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert not (golf / "x.rules").exists()


def test_predict_explain_names_the_path(golf, run):
    r = run("predict", "golf.json", "golf.csv", "--explain", cwd=golf)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(rows) == 14
    assert rows[0]["explanation"].startswith("r1: if outlook = sunny and humidity = high then no")
    assert rows[2]["prediction"] == "yes" and "outlook" in rows[2]["explanation"]
    df = pd.DataFrame(rows)
    assert (df["prediction"] == playgolf()["play"]).all()


@pytest.mark.slow
def test_python_dash_m_rules(golf):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable, "-m", "rulekit", "rules", "golf.json", "--dnf", "-o", "d.rules"], cwd=golf,
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert "wrote d.rules (1 rule, 4 conditions)" in r.stderr
