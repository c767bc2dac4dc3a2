"""`rulekit import --arithmetic` (issue 20): XGBoost models sum in float32 by default, as XGBoost
does; `--arithmetic float64` sums in float64 so every SQL dialect sums alike. Other formats refuse
the option in one line (their libraries sum in float64)."""

import numpy as np
import pytest

from rulekit.ir.modelfile import loads_model
from tests.commands.test_cli_basics import run_cli

xgb = pytest.importorskip("xgboost")


@pytest.fixture(scope="module")
def xgb_file(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("xgb")
    r = np.random.RandomState(3)
    X = r.rand(400, 3)
    y = (X[:, 0] + 0.3 * X[:, 1] > 0.6).astype(int)
    booster = xgb.XGBClassifier(n_estimators=40, max_depth=3, learning_rate=0.3).fit(X, y).get_booster()
    path = tmp / "m.json"
    booster.save_model(path)
    return path, X, booster.predict(xgb.DMatrix(X), output_margin=True)


@pytest.mark.parametrize("flag, arithmetic", [(None, "float32"), ("float32", "float32"),
                                              ("float64", None)])
def test_the_flag_sets_the_models_arithmetic(xgb_file, tmp_path, capsys, flag, arithmetic):
    path, X, margin = xgb_file
    out = tmp_path / "m.json"
    args = ["import", path, "-o", out] + (["--arithmetic", flag] if flag else [])
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    model = loads_model(out.read_text())
    assert model.combiner.arithmetic == arithmetic
    got = np.asarray(model.raw_output(X)).ravel()
    if arithmetic == "float32":  # bit-identical to XGBoost's own margin
        assert np.array_equal(got.astype(np.float32), margin.astype(np.float32))
    else:  # float64 sums: close, not (in general) the same bits
        assert np.abs(got - margin).max() < 1e-5


def test_other_formats_refuse_the_flag(tmp_path, capsys):
    lgb_text = tmp_path / "model.txt"
    lgb_text.write_text("tree\nversion=v4\n")
    code, _, err = run_cli(["import", lgb_text, "-o", tmp_path / "o.json", "--arithmetic", "float64"],
                           capsys)
    assert code == 2
    assert "--arithmetic applies to XGBoost models" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.json").exists()
