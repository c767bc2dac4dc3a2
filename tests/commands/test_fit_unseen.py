"""`rulekit fit --unseen parent|missing`: the ID3/C4.5 learners' ``unseen`` option on the command line."""

from __future__ import annotations

import csv

import pytest

import rulekit
from rulekit import dsl
from rulekit.cli import main
from tests.learners.util import DATA

GOLF = DATA / "playgolf.csv"


def run(argv):
    with pytest.raises(SystemExit) as ex:
        main(argv)
    return ex.value.code


def _fit(tmp_path, *extra):
    out = tmp_path / f"m{len(list(tmp_path.iterdir()))}.json"
    assert run(["fit", str(GOLF), "--target", "play", "-q", "-o", str(out), *extra]) == 0
    return out


@pytest.mark.parametrize("algorithm", ["id3", "c45"])
def test_unseen_missing_sends_unseen_values_down_the_missing_branch(tmp_path, algorithm):
    parent = rulekit.load(_fit(tmp_path, "--algorithm", algorithm))
    same = rulekit.load(_fit(tmp_path, "--algorithm", algorithm, "--unseen", "parent"))
    folded = rulekit.load(_fit(tmp_path, "--algorithm", algorithm, "--unseen", "missing"))
    assert same.to_dict() == parent.to_dict()  # "parent" is the default
    # the training rows go where they went; unseen values now go where missing values go
    rows = {c: [r[c] for r in _golf()] for c in ("outlook", "temperature", "humidity", "wind")}
    assert folded.predict(rows).tolist() == parent.predict(rows).tolist()
    odd = {"outlook": ["foggy", None, "foggy", None], "temperature": ["mild"] * 4,
           "humidity": ["high", "high", "normal", "normal"], "wind": ["weak"] * 4}
    p = folded.predict_proba(odd)
    assert p[0].tolist() == p[1].tolist() and p[2].tolist() == p[3].tolist()
    q = parent.predict_proba(odd)
    assert q[0].tolist() != q[1].tolist() or q[2].tolist() != q[3].tolist()  # the option changed something
    assert "not in" not in dsl.dumps(rulekit.to_rules(folded))


@pytest.mark.parametrize("extra", [("--algorithm", "cart", "--unseen", "missing"),
                                   ("--algorithm", "c45", "--ensemble", "bagging", "--unseen", "parent"),
                                   ("--algorithm", "id3", "--unseen", "other")])
def test_unseen_refused_elsewhere_in_one_line(tmp_path, capsys, extra):
    assert run(["fit", str(GOLF), "--target", "play", "-o", str(tmp_path / "m.json"), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--unseen" in err and "Traceback" not in err
    assert not (tmp_path / "m.json").exists()


def _golf():
    with GOLF.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))
