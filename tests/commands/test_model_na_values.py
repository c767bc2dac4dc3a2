"""A command reading a CSV for a model uses the NA texts ``fit`` recorded (audit item 4): after
``fit --na-values ''`` the cells 'N/A' and 'NULL' stay categories in ``rules --prune-data``,
``predict`` and ``verify``; an explicit --na-values that reads differently gets one note. A rules
file has no record, but its domains declare 'N/A' and 'NULL' values: read so, with one note."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest

from rulekit.commands.recorded_na import na_values_for
from rulekit.ir.modelfile import load_model
from rulekit.table import read_csv
from tests.commands.cli import exit_code as run


def _rows(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"status": rng.choice(["N/A", "ok", "bad", "NULL"], n), "k": rng.choice(["a", "b"], n)})
    d["y"] = np.where(d.status == "N/A", "pos", "neg")  # 'NULL' is the other class: read as missing, both mix
    return d


@pytest.fixture
def fitted(tmp_path):
    for name, n, seed in (("train", 400, 1), ("prune", 200, 2), ("test", 200, 3)):
        _rows(n, seed).to_csv(tmp_path / f"{name}.csv", index=False)
    assert run(["fit", tmp_path / "train.csv", "--target", "y", "--na-values", "",
                "-o", tmp_path / "m.json", "-q"]) == 0
    return tmp_path


def _accuracy(pred, test) -> float:
    p = [r["prediction"] for r in csv.DictReader(pred.open())]
    t = [r["y"] for r in csv.DictReader(test.open())]
    return float(np.mean([a == b for a, b in zip(p, t)]))


def test_predict_with_a_model_reads_the_recorded_na_texts(fitted, capsys):
    assert run(["predict", fitted / "m.json", fitted / "test.csv", "-o", fitted / "p.csv", "-q"]) == 0
    assert _accuracy(fitted / "p.csv", fitted / "test.csv") == 1.0
    assert "na-values" not in capsys.readouterr().err


def test_rules_prune_data_reads_the_recorded_na_texts(fitted, capsys):
    assert run(["rules", fitted / "m.json", "--prune-data", fitted / "prune.csv", "--dnf",
                "-o", fitted / "r.rules", "-q"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert run(["predict", fitted / "r.rules", fitted / "test.csv", "--na-values", "",
                "-o", fitted / "p.csv", "-q"]) == 0
    assert _accuracy(fitted / "p.csv", fitted / "test.csv") == 1.0


def test_a_rules_file_reads_the_na_texts_its_domains_declare_as_values(fitted, capsys):
    assert run(["rules", fitted / "m.json", "--prune-data", fitted / "prune.csv", "--dnf",
                "-o", fitted / "r.rules", "-q"]) == 0
    assert '"N/A"' in (fitted / "r.rules").read_text()
    capsys.readouterr()
    assert run(["predict", fitted / "r.rules", fitted / "test.csv", "-o", fitted / "p.csv", "-q"]) == 0
    assert _accuracy(fitted / "p.csv", fitted / "test.csv") == 1.0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'N/A', 'NULL' in 'status' read as values, not missing" in err
    everything = "#N/A,N/A,NA,NULL,NaN,null"  # the user's choice wins: no note, N/A is missing
    assert run(["predict", fitted / "r.rules", fitted / "test.csv", "--na-values", everything,
                "-o", fitted / "p.csv", "-q"]) == 0
    assert capsys.readouterr().err == "" and _accuracy(fitted / "p.csv", fitted / "test.csv") < 0.9


def test_read_csv_keeps_declared_values_per_column(tmp_path):
    (tmp_path / "d.csv").write_text("a,b\nN/A,N/A\nNULL,x\n")
    cols = read_csv(tmp_path / "d.csv", None, {"a": {"N/A"}})
    assert cols["a"] == ["N/A", ""] and cols["b"] == ["", "x"]


def test_a_different_na_values_wins_with_one_note(fitted, capsys):
    assert run(["predict", fitted / "m.json", fitted / "test.csv", "--na-values", "N/A",
                "-o", fitted / "p.csv", "-q"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--na-values 'N/A' reads cells differently from fit" in err
    assert _accuracy(fitted / "p.csv", fitted / "test.csv") < 0.9  # N/A rows read as missing
    assert run(["predict", fitted / "m.json", fitted / "test.csv", "--na-values", "", "-o", "-"]) == 0
    assert "differently" not in capsys.readouterr().err  # the same texts: no note


def test_na_values_for(fitted):
    model = load_model(fitted / "m.json")
    assert na_values_for(model, None) == ("", None)
    assert na_values_for(model, "")[1] is None
    assert "fit, which read the training rows with ''" in na_values_for(model, "NA")[1]
    del model.source["training_data"]["na_values"]  # fit's default: pandas' list
    assert na_values_for(model, None) == (None, None)
    assert "pandas' list" in na_values_for(model, "")[1]
    model.source.pop("training_data")  # an imported model: no record, no note
    assert na_values_for(model, "") == ("", None)


def test_verify_reads_the_recorded_na_texts(fitted, capsys, monkeypatch):
    import rulekit.commands.verify as verify

    seen = []
    real = verify.read_csv
    monkeypatch.setattr(verify, "read_csv", lambda path, na=None, values=None: seen.append(na) or real(path, na, values))
    assert run(["verify", fitted / "m.json", fitted / "test.csv", "--backends", "python-batch", "-q"]) == 0
    assert seen == [""] and "differently" not in capsys.readouterr().err
    assert run(["verify", fitted / "m.json", fitted / "test.csv", "--backends", "python-batch", "-q",
                "--na-values", "N/A"]) == 0
    assert seen[-1] == "N/A" and capsys.readouterr().err.count("reads cells differently from fit") == 1
