"""A library's own model file given where a rulekit model or rules file is expected: one line that
says what the file is and the `rulekit import` line that converts it (issue 25); nothing unpickled."""

import pickle

import numpy as np
import pytest

from rulekit.foreign import identify
from tests.commands.test_cli_basics import run_cli

X = np.random.RandomState(0).rand(60, 2)
Y = (X[:, 0] > 0.5).astype(int)


class Boom:
    """Unpickling this would leave a file behind: the test checks nothing was unpickled."""

    def __init__(self, flag):
        self.flag = flag

    def __reduce__(self):
        return (open, (self.flag, "w"))


def _pickle(tmp_path):
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(Boom(str(tmp_path / "unpickled")), protocol=4))
    return path


def _joblib_compressed(tmp_path):
    joblib = pytest.importorskip("joblib")
    path = tmp_path / "model.joblib"
    joblib.dump({"a": 1}, path, compress=3)
    return path


def _xgboost(tmp_path, suffix):
    xgboost = pytest.importorskip("xgboost")
    path = tmp_path / f"booster{suffix}"
    xgboost.XGBClassifier(n_estimators=2, max_depth=2).fit(X, Y).save_model(path)
    return path


def _lightgbm(tmp_path):
    lightgbm = pytest.importorskip("lightgbm")
    path = tmp_path / "lgb model.txt"
    lightgbm.LGBMClassifier(n_estimators=2, verbose=-1, min_child_samples=5).fit(X, Y) \
        .booster_.save_model(path)
    return path


def _onnx(tmp_path):
    import rulekit

    path = tmp_path / "model.onnx"
    model = rulekit.load(_rulekit_model(tmp_path))
    path.write_bytes(rulekit.export.to_onnx(model).SerializeToString())
    return path


def _pmml(tmp_path):
    path = tmp_path / "model.xml"
    path.write_text('<?xml version="1.0"?>\n<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4">'
                    '<Header/></PMML>\n')
    return path


def _rulekit_model(tmp_path):
    from rulekit.commands import fit

    data = tmp_path / "train.csv"
    data.write_text("a,y\n" + "".join(f"{i},{'yes' if i > 4 else 'no'}\n" for i in range(10)))
    path = tmp_path / "m.json"
    fit.run(data=data, target="y", algorithm="cart", task=None, criterion=None, max_depth=None,
            min_samples_leaf=1, prune="none", prune_data=None, ensemble=None, n_trees=1, seed=0,
            output=str(path), quiet=True)
    return path


CASES = {
    "pickle": (_pickle, "a Python pickle", "--allow-pickle -o model.json"),
    "joblib": (_joblib_compressed, "compressed joblib pickle", "--allow-pickle -o model.json"),
    "xgboost-json": (lambda t: _xgboost(t, ".json"), "an XGBoost JSON model", " -o model.json"),
    "xgboost-ubj": (lambda t: _xgboost(t, ".ubj"), "an XGBoost UBJSON model", " -o model.json"),
    "lightgbm": (_lightgbm, "a LightGBM text model", "'rulekit import '"),
    "onnx": (_onnx, "an ONNX model", " -o model.json"),
    "pmml": (_pmml, "a PMML document", " -o model.json"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["show", "predict", "check", "export"])
def test_foreign_model_file_names_itself_and_the_import_line(tmp_path, capsys, case, command):
    make, what, line = CASES[case]
    path = make(tmp_path)
    data = tmp_path / "d.csv"
    data.write_text("a,b\n1,2\n")
    args = {"show": ["show", path], "predict": ["predict", path, data], "check": ["check", path],
            "export": ["export", path, "--to", "python", "-o", tmp_path / "out.py"]}[command]
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert what in err and line in err, err
    if CASES[case][2].endswith("-o model.json"):
        assert f"rulekit import {path}" in err or f"rulekit import '{path}'" in err, err
    assert not (tmp_path / "unpickled").exists() and not (tmp_path / "out.py").exists()


def test_the_import_line_runs(tmp_path, capsys):
    """The suggested command converts the file (quoted path with a space)."""
    path = _lightgbm(tmp_path)
    _, _, err = run_cli(["show", path], capsys)
    suggested = err.split("'rulekit import ", 1)[1].rsplit("'", 1)[0]
    assert suggested.startswith(f"'{path}' -o model.json")
    out = tmp_path / "model.json"
    code, _, err = run_cli(["import", path, "-o", out, "-q"], capsys)
    assert code == 0 and out.exists(), err


@pytest.mark.parametrize("head", [
    b'{"format": "rulekit-model", "version": 1}', b"rules churn\n", b"", b"{}", b'{"learner": 1}',
    b"tree = 1\n", b"\x80", b"<html></html>",
])
def test_rulekit_and_unknown_files_are_not_called_foreign(head):
    assert identify(head, "x.json") is None


def test_import_reads_an_onnx_export_back(tmp_path, capsys):
    """ONNX is importable now: rulekit's own export comes back as a model (format sniffed)."""
    path = _onnx(tmp_path)
    code, out, err = run_cli(["import", path, "-o", tmp_path / "z.json", "-q"], capsys)
    assert code == 0 and out == "" and (tmp_path / "z.json").exists(), err


def test_import_of_a_rules_file_says_no_import_is_needed(tmp_path, capsys):
    path = tmp_path / "m.rules"
    path.write_text("# comment\n\nrulebase churn\ntarget y: classes {a, b}\nfeature x: numeric\n"
                    "default a\n")
    code, _, err = run_cli(["import", path, "-o", tmp_path / "z.json"], capsys)
    assert code == 2 and "already a rulekit rules file" in err, err


def test_suggested_import_stays_on_one_line(tmp_path, capsys):
    """A path with a newline: the suggested `rulekit import` command is written with bash's $'...'
    escapes (shlex.quote kept the newline inside its quotes and split the one-line message)."""
    path = tmp_path / "we\nird.pkl"
    path.write_bytes(pickle.dumps({"a": 1}))
    code, _, err = run_cli(["rules", path, "-o", tmp_path / "r.rules"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "'rulekit import $'" + str(tmp_path) + "/we\\nird.pkl' --allow-pickle" in err
