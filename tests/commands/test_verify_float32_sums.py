"""verify on an XGBoost model (float32 sums by default): SQLite, which has no 4-byte float, sums in
float64 and is compared within the stated bound, said on its own line; the others are exact."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulekit.cli import main

xgb = pytest.importorskip("xgboost")


@pytest.mark.slow  # ~10 s loaded
def test_sqlite_float64_sums_are_within_the_stated_bound(tmp_path, capsys):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3)) * 100
    y = X[:, 0] * 50 + X[:, 1] ** 2
    xgb.XGBRegressor(n_estimators=120, max_depth=4).fit(X, y).save_model(tmp_path / "x.json")
    pd.DataFrame(X, columns=["f0", "f1", "f2"]).to_csv(tmp_path / "x.csv", index=False)
    with pytest.raises(SystemExit) as ex:
        main(["import", str(tmp_path / "x.json"), "-o", str(tmp_path / "m.json"), "-q"])
    assert ex.value.code == 0, capsys.readouterr().err
    with pytest.raises(SystemExit) as ex:
        main(["verify", str(tmp_path / "m.json"), str(tmp_path / "x.csv"), "--backends",
              "python-batch,sqlite,duckdb"])
    out = capsys.readouterr().out
    assert ex.value.code == 0, out
    line = next(ln for ln in out.splitlines() if ln.startswith("sqlite: "))
    assert "no 4-byte float" in line and "stated bound" in line
    # the bound is really used: SQLite's float64 sums differ from XGBoost's float32 ones
    assert float(line.rsplit("max difference ", 1)[1].rstrip(")")) > 1e-12
