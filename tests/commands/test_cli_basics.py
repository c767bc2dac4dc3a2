"""The CLI shell: every contract command exists, predict/show work on a model, errors are one line."""

import csv
import io
import subprocess
import sys

import numpy as np
import pytest

from tests import zoo
from tests.commands.cli import run_cli

CONTRACT_COMMANDS = ["demo", "fit", "import", "rules", "export", "predict", "check", "fmt", "verify", "show"]


@pytest.mark.parametrize("command", CONTRACT_COMMANDS)
def test_every_contract_command_has_help(command, capsys):
    code, out, _ = run_cli([command, "--help"], capsys)
    assert code == 0 and "Usage" in out


def test_python_dash_m_works():
    res = subprocess.run([sys.executable, "-m", "rulekit", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "predict" in res.stdout


def _model_and_csv(tmp_path, name="sklearn_tree_multiclass_hostile"):
    model, data = zoo.get(name)
    mpath = tmp_path / "m.json"
    model.save(mpath)
    dpath = tmp_path / "d.csv"
    data.to_csv(dpath, index=False, float_format="%.17g")
    return model, data, mpath, dpath


def test_predict_proba_csv_matches_model_exactly(tmp_path, capsys):
    model, data, mpath, dpath = _model_and_csv(tmp_path)
    code, out, err = run_cli(["predict", mpath, dpath, "--proba"], capsys)
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["prediction"] + [f"proba:{c}" for c in model.classes]
    P = model.predict_proba(data)
    labels = model.predict(data)
    assert len(rows) - 1 == len(data)
    for i, row in enumerate(rows[1:]):
        assert row[0] == str(labels[i])
        assert [float(v) for v in row[1:]] == list(P[i])


def test_predict_regression_to_file(tmp_path, capsys):
    model, data, mpath, dpath = _model_and_csv(tmp_path, "sklearn_tree_regressor")
    out_path = tmp_path / "p.csv"
    code, _, err = run_cli(["predict", mpath, dpath, "-o", out_path], capsys)
    assert code == 0, err
    got = np.array([float(r[0]) for r in list(csv.reader(out_path.open()))[1:]])
    assert np.array_equal(got, model.predict(data))


def test_predict_rejects_csv_missing_a_feature(tmp_path, capsys):
    _, data, mpath, _ = _model_and_csv(tmp_path)
    bad = tmp_path / "bad.csv"
    data.drop(columns=[data.columns[0]]).to_csv(bad, index=False)
    code, _, err = run_cli(["predict", mpath, bad], capsys)
    assert code == 2 and "no column" in err and err.count("\n") == 1


def test_predict_ragged_csv_names_the_line(tmp_path, capsys):
    _, _, mpath, _ = _model_and_csv(tmp_path, "sklearn_tree_binary")
    bad = tmp_path / "bad.csv"
    bad.write_text("x0,x1,x2,x3,x4,x5\n1,2,3,4,5,6\n1,2\n")
    code, _, err = run_cli(["predict", mpath, bad], capsys)
    assert code == 2 and f"{bad}:3:" in err


@pytest.mark.parametrize("fmt,needle", [("text", "|---"), ("dot", "digraph")])
def test_show_model(tmp_path, capsys, fmt, needle):
    _, _, mpath, _ = _model_and_csv(tmp_path, "handmade_nominal")
    code, out, err = run_cli(["show", mpath, "--format", fmt], capsys)
    assert code == 0, err
    assert needle in out and "colour" in out


def test_missing_file_is_one_line(tmp_path, capsys):
    code, _, err = run_cli(["show", tmp_path / "nope.json"], capsys)
    assert code == 2 and "no such file" in err and "Traceback" not in err


@pytest.mark.parametrize("args", [["predict"], ["export", "x.json"], ["show", "x", "--format", "pdf"],
                                  ["no-such-command"]])
def test_usage_errors_exit_2_without_traceback(args, capsys):
    code, out, err = run_cli(args, capsys)
    assert code == 2 and "Traceback" not in err + out


def test_unexpected_errors_are_one_line(monkeypatch, tmp_path, capsys):
    from rulekit.commands import show

    def boom(**_):
        raise ZeroDivisionError("synthetic")

    monkeypatch.setattr(show, "run", boom)
    monkeypatch.delenv("RULEKIT_DEBUG", raising=False)
    code, _, err = run_cli(["show", tmp_path / "x.json"], capsys)
    assert code == 2 and "internal error" in err and err.count("\n") == 1


def test_rules_prune_methods(tmp_path, capsys):
    from importlib.resources import files

    data = files("rulekit") / "data" / "playgolf.csv"
    model = tmp_path / "pg.json"
    code, _, err = run_cli(["fit", data, "--target", "play", "--algorithm", "id3", "-o", model], capsys)
    assert code == 0, err
    for method in ("pessimistic", "reduced-error"):
        out = tmp_path / f"{method}.rules"
        code, _, err = run_cli(["rules", model, "--prune-data", data, "--prune", method, "-o", out], capsys)
        assert code == 0, err
        assert "default yes" in out.read_text()
    code, _, err = run_cli(["rules", model, "--prune", "reduced-error", "-o", tmp_path / "x.rules"], capsys)
    assert code == 2 and "needs --prune-data" in err


@pytest.mark.parametrize("source", ["model", "rules"])
def test_predict_in_chunks_equals_one_pass(tmp_path, capsys, monkeypatch, source):
    from rulekit.commands import predict as predict_cmd

    _, _, mpath, dpath = _model_and_csv(tmp_path, "lightgbm_categorical_nan")
    if source == "rules":
        rpath = tmp_path / "m.rules"
        assert run_cli(["rules", mpath, "-o", rpath, "-q"], capsys)[0] == 0
        mpath = rpath
    code, whole, _ = run_cli(["predict", mpath, dpath, "--proba", "--explain"], capsys)
    assert code == 0
    monkeypatch.setattr(predict_cmd, "CHUNK_ROWS", 7)
    code, chunked, _ = run_cli(["predict", mpath, dpath, "--proba", "--explain"], capsys)
    assert code == 0 and chunked == whole and len(whole.splitlines()) > 3 * 7
