"""`rulekit fit`: column kinds, task inference, algorithms, pruning data, ensembles, errors."""

from __future__ import annotations

import csv

import numpy as np
import pytest

import rulekit
from rulekit.cli import main
from rulekit.commands.fit import infer_task
from tests.learners.util import DATA


def run(argv):
    with pytest.raises(SystemExit) as ex:
        main(argv)
    return ex.value.code


def write_csv(path, header, rows):
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_fit_id3_playgolf_then_predict(tmp_path, capsys):
    out = tmp_path / "golf.json"
    assert run(["fit", str(DATA / "playgolf.csv"), "--target", "play", "--algorithm", "id3", "-o", str(out)]) == 0
    assert "training accuracy 1.0000" in capsys.readouterr().err  # the "wrote ..." line: stderr
    model = rulekit.load(out)
    assert model.target == "play" and model.classes == ["no", "yes"]
    assert all(f.kind == "nominal" for f in model.features)
    q = {"outlook": ["rainy"], "temperature": ["mild"], "humidity": ["normal"], "wind": ["strong"]}
    assert model.predict(q).tolist() == ["no"]
    pred = tmp_path / "pred.csv"
    assert run(["predict", str(out), str(DATA / "playgolf.csv"), "-o", str(pred)]) == 0
    rows = list(csv.DictReader(pred.open()))
    truth = list(csv.DictReader((DATA / "playgolf.csv").open()))
    assert [r["prediction"] for r in rows] == [r["play"] for r in truth]


def test_task_inference():
    assert infer_task(["a", "b", None]) == "classification"
    assert infer_task(["1", "2", "2", "1"]) == "classification"
    assert infer_task([str(i) for i in range(50)]) == "regression"
    assert infer_task(["1.5", "2", "3"]) == "regression"


def _mixed_csv(path, n=300, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        x = rng.normal()
        c = rng.choice(["red", "green", "blue"])
        y = "yes" if (x > 0) ^ (c == "red") ^ (rng.random() < 0.1) else "no"
        rows.append([f"{x:.3f}" if rng.random() > 0.05 else "", c if rng.random() > 0.05 else "",
                     f"{x * 10 + (c == 'blue') * 5:.2f}", y])
    return write_csv(path, ["x", "colour", "score", "label"], rows)


@pytest.mark.parametrize("args", [
    ["--algorithm", "cart"],
    ["--algorithm", "c45", "--prune", "pessimistic"],
    ["--algorithm", "cart", "--criterion", "entropy", "--max-depth", "3", "--min-samples-leaf", "5"],
    ["--algorithm", "cart", "--prune", "cost-complexity"],
    ["--ensemble", "random-forest", "--n-trees", "5", "--seed", "3", "--quiet"],
    ["--ensemble", "extra-trees", "--n-trees", "3", "--algorithm", "id3"],
    ["--ensemble", "bagging", "--n-trees", "3"],
])
def test_fit_options(tmp_path, args):
    data = _mixed_csv(tmp_path / "d.csv")
    out = tmp_path / "m.json"
    assert run(["fit", str(data), "--target", "label", *args, "-o", str(out)]) == 0
    model = rulekit.load(out)
    kinds = {f.name: f.kind for f in model.features}
    assert kinds == {"x": "numeric", "colour": "nominal", "score": "numeric"}
    cols = rulekit.ir.data.read_csv(data)
    acc = np.mean(model.predict(cols) == np.array(cols["label"]))
    assert acc > 0.75


def test_fit_with_pruning_data_and_regression(tmp_path):
    data = _mixed_csv(tmp_path / "d.csv")
    prune = _mixed_csv(tmp_path / "p.csv", seed=1)
    out = tmp_path / "m.json"
    assert run(["fit", str(data), "--target", "label", "--prune", "reduced-error", "--prune-data", str(prune),
                "-o", str(out)]) == 0
    assert run(["fit", str(data), "--target", "score", "--criterion", "sdr", "-o", str(out), "-q"]) == 0
    model = rulekit.load(out)
    assert model.task == "regression" and model.target == "score"


def test_fit_integer_labels_stay_integers(tmp_path):
    rows = [[i % 7, i % 2] for i in range(40)]
    data = write_csv(tmp_path / "ints.csv", ["a", "y"], rows)
    out = tmp_path / "m.json"
    assert run(["fit", str(data), "--target", "y", "-o", str(out), "-q"]) == 0
    assert rulekit.load(out).classes == [0, 1]


@pytest.mark.parametrize("args,needle", [
    (["--target", "nope"], "no column 'nope'"),
    (["--target", "score", "--algorithm", "id3", "--task", "regression"], "classification trees"),
    (["--target", "label", "--criterion", "mse"], "does not fit"),
    (["--target", "label", "--ensemble", "bagging", "--prune", "pessimistic"], "not pruned"),
    (["--target", "label", "--prune-data", "MISSING.csv", "--prune", "reduced-error"], "no such file"),
    (["--target", "label", "--task", "regression"], "numeric target"),
])
def test_fit_errors_are_one_line_exit_2(tmp_path, capsys, args, needle):
    data = _mixed_csv(tmp_path / "d.csv", n=40)
    out = tmp_path / "m.json"
    assert run(["fit", str(data), *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and err.strip().count("\n") == 0
    assert not out.exists()
