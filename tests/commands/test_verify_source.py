"""`rulekit verify --source-model FILE`: the source library itself scores the same rows and every
backend (and the rulekit model) is compared with it, with verify's tolerances."""

import joblib
import numpy as np
import pandas as pd
import pytest

from rulekit import source_library
from rulekit.cli import main
from tests import zoo

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")


def _run(args, capsys):
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ex.value.code, out.out, out.err


def _imported(tmp_path, capsys, src, data: pd.DataFrame, *extra):
    mpath = tmp_path / "m.json"
    code, _, err = _run(["import", src, "-o", mpath, *extra], capsys)
    assert code == 0, err
    dpath = tmp_path / "d.csv"
    data.to_csv(dpath, index=False, float_format="%.17g")
    return mpath, dpath


def _against(out: str) -> dict[str, str]:
    """backend -> its row of the 'against <library>' table."""
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if "against " in ln and " itself " in ln)
    rows = {}
    for ln in lines[start:]:
        cells = [c.strip() for c in ln.strip("│┃ ").split("│")]
        if len(cells) == 7 and cells[1].replace(",", "").isdigit():
            rows[cells[0]] = ln
    return rows


def _lightgbm(tmp_path, capsys):
    X, X_nan, y = zoo._data(seed=21)
    reg = lgb.LGBMRegressor(n_estimators=20, num_leaves=8, verbose=-1, n_jobs=1).fit(X_nan, X[:, 0] * 3.3 + y)
    src = tmp_path / "lgb.txt"
    reg.booster_.save_model(src)
    data = pd.DataFrame(X_nan[:120], columns=[f"Column_{i}" for i in range(X.shape[1])])
    return src, *_imported(tmp_path, capsys, src, data)


def test_lightgbm_regressor_matches_lightgbm_itself(tmp_path, capsys):
    src, mpath, dpath = _lightgbm(tmp_path, capsys)
    code, out, err = _run(["verify", mpath, dpath, "--source-model", src,
                           "--backends", "python-batch,sqlite,onnx"], capsys)
    assert code == 0, out + err
    rows = _against(out)
    assert list(rows) == ["rulekit model", "python-batch", "sqlite", "onnx"]
    assert all(r.rstrip(" │").endswith("ok") for r in rows.values()), rows


def test_a_library_disagreement_is_a_finding(tmp_path, capsys, monkeypatch):
    """Mutation: the library's value on one row moved by 1e-9 (relative) must be caught."""
    src, mpath, dpath = _lightgbm(tmp_path, capsys)
    real = source_library.score

    def nudged(lib, obj, table):
        got = real(lib, obj, table)
        got.prediction[7] *= 1 + 1e-9
        return got

    monkeypatch.setattr(source_library, "score", nudged)
    code, out, _ = _run(["verify", mpath, dpath, "--source-model", src, "--backends", "onnx"], capsys)
    assert code == 1 and all("DISAG" in r for r in _against(out).values()), out


def test_xgboost_classifier_is_reported_against_xgboost(tmp_path, capsys):
    """XGBoost sums in float32: until every backend does too, rulekit's float64 sums differ from
    XGBoost in the last bits, and verify must say so (exit 1), not hide it with a loose tolerance."""
    X, X_nan, y = zoo._data(seed=22)
    clf = xgb.XGBClassifier(n_estimators=10, max_depth=4, n_jobs=1).fit(X_nan, y)
    src = tmp_path / "xgb.json"
    clf.save_model(src)
    data = pd.DataFrame(X_nan[:120], columns=[f"f{i}" for i in range(X.shape[1])])
    mpath, dpath = _imported(tmp_path, capsys, src, data)
    code, out, err = _run(["verify", mpath, dpath, "--source-model", src,
                           "--backends", "python-batch,onnx-double"], capsys)
    import rulekit
    from rulekit.commands.verify import probe_table
    from rulekit.table import from_data

    model = rulekit.load(mpath)
    table = probe_table(model, from_data(data, model.features))
    M = model.matrix(table)
    gap = np.abs(model.predict_proba(table) - clf.predict_proba(M)).max()
    rows = _against(out)
    assert list(rows) == ["rulekit model", "python-batch", "onnx-double"]
    if gap > 1e-12:  # float64 sums (before XGBoost's float32 sums are reproduced)
        assert code == 1 and "DISAG" in rows["rulekit model"], out
    else:
        assert code == 0, out + err


@pytest.mark.slow  # ~4 s CPU
def test_hist_gradient_boosting_pickle_with_categories_and_nan(tmp_path, capsys):
    model, data = zoo.get("sklearn_hgb_categorical_nan")
    src = tmp_path / "hgb.joblib"
    joblib.dump(zoo.SKLEARN_ESTIMATORS["sklearn_hgb_categorical_nan"], src)
    mpath, dpath = _imported(tmp_path, capsys, src, data.head(150), "--allow-pickle")
    code, out, err = _run(["verify", mpath, dpath, "--source-model", src, "--backends", "onnx"], capsys)
    assert code == 2 and "--allow-pickle" in err  # never unpickled without it
    code, out, err = _run(["verify", mpath, dpath, "--source-model", src, "--allow-pickle",
                           "--backends", "python-batch,onnx"], capsys)
    assert code == 0, out + err
    assert list(_against(out)) == ["rulekit model", "python-batch", "onnx"]


def test_against_source_needs_a_source_file(tmp_path, capsys):
    src, mpath, dpath = _lightgbm(tmp_path, capsys)
    moved = src.rename(tmp_path / "moved.txt")  # the recorded name is no longer next to the model
    code, _, err = _run(["verify", mpath, dpath, "--against-source"], capsys)
    assert code == 2 and "--source-model" in err
    src = moved
    code, out, _ = _run(["verify", mpath, dpath, "--source-model", src, "--no-against-source",
                         "--backends", "onnx"], capsys)
    assert code == 0 and "itself" not in out


def test_the_recorded_source_file_next_to_the_model_is_used_by_default(tmp_path, capsys):
    """``rulekit import lgb.txt`` records the file's name; verify finds it next to the model file."""
    src, mpath, dpath = _lightgbm(tmp_path, capsys)
    code, out, _ = _run(["verify", mpath, dpath, "--backends", "onnx"], capsys)
    assert code == 0 and list(_against(out)) == ["rulekit model", "onnx"], out
    assert "(lgb.txt)" in out
    code, out, _ = _run(["verify", mpath, dpath, "--backends", "onnx", "--no-against-source"], capsys)
    assert code == 0 and "itself" not in out
    src.rename(tmp_path / "elsewhere.txt")
    code, out, _ = _run(["verify", mpath, dpath, "--backends", "onnx"], capsys)
    assert code == 0 and "itself" not in out
