"""`rulekit import --rename old=new` / `--rename-file` and `rulekit.rename_features` (issue 25):
LightGBM stores `age band` as `age_band`; after the mapping every target reads the data's names."""

import json
import sqlite3

import numpy as np
import pytest

import rulekit
from rulekit.errors import RulekitError
from rulekit.ir.modelfile import loads_model
from tests.commands.test_cli_basics import run_cli

lightgbm = pytest.importorskip("lightgbm")
pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def lgb_file(tmp_path_factory):
    """A LightGBM text model trained on columns 'age band' and 'income' (stored as age_band)."""
    tmp = tmp_path_factory.mktemp("lgb")
    r = np.random.RandomState(0)
    X = pd.DataFrame({"age band": r.randint(0, 5, 300).astype(float), "income": r.rand(300)})
    y = ((X["age band"] > 2) ^ (X["income"] > 0.5)).astype(int)
    booster = lightgbm.LGBMClassifier(n_estimators=3, verbose=-1, min_child_samples=5).fit(X, y).booster_
    path = tmp / "model.txt"
    booster.save_model(path)
    assert "feature_names=age_band income" in path.read_text()
    X.iloc[:2, 0] = np.nan
    return path, X, booster.predict(X)


def test_rename_reaches_predict_sql_python_onnx_and_rules(lgb_file, tmp_path, capsys):
    path, X, want = lgb_file
    data = tmp_path / "d.csv"
    X.to_csv(data, index=False, float_format="%.17g")  # header: age band,income
    out = tmp_path / "m.json"
    code, _, err = run_cli(["import", path, "-o", out, "--rename", "age_band=age band"], capsys)
    assert code == 0, err
    model = loads_model(out.read_text())
    assert model.feature_names == ["age band", "income"]
    # every split that records its feature's name carries the new one
    names = {a["feature_name"] for t in model.trees for _, a in t.nodes(data=True) if "feature_name" in a}
    assert names <= {"age band", "income"} and "age band" in names
    code, csv_out, err = run_cli(["predict", out, data, "--proba"], capsys)
    assert code == 0, err
    got = np.array([float(line.split(",")[2]) for line in csv_out.splitlines()[1:]])
    assert np.abs(got - want).max() <= 1e-12
    # SQL reads the data's column
    code, sql, err = run_cli(["export", out, "--to", "sql", "--table", "t", "--proba", "-o", "-"], capsys)
    assert code == 0 and '"age band"' in sql and "age_band" not in sql, err
    con = sqlite3.connect(":memory:")
    con.execute('CREATE TABLE t ("age band" REAL, "income" REAL)')
    con.executemany("INSERT INTO t VALUES (?, ?)",
                    [(None if np.isnan(a) else a, b) for a, b in X.itertuples(index=False)])
    p1 = np.array([row[-1] for row in con.execute(sql)])
    assert np.abs(p1 - want).max() <= 1e-12
    # Python, rules and ONNX metadata
    code, py, _ = run_cli(["export", out, "--to", "python", "-o", "-"], capsys)
    assert "'age band'" in py and "age_band" not in py
    code, rules_text, _ = run_cli(["export", out, "--to", "rules", "-o", "-"], capsys)
    assert "age_band" not in rules_text and "age band" in rules_text
    onnx_model = rulekit.export.to_onnx(model)
    assert "age_band" not in str(onnx_model.metadata_props) + str(onnx_model.graph.doc_string)
    assert "age band" in str(onnx_model.metadata_props)


@pytest.mark.parametrize("kind", ["json", "csv", "csv-no-header"])
def test_rename_file(lgb_file, tmp_path, capsys, kind):
    path, _, _ = lgb_file
    mapping = tmp_path / f"map.{kind.split('-')[0]}"
    if kind == "json":
        mapping.write_text(json.dumps({"age_band": "age band", "income": "income, yearly"}))
    else:
        header = "old,new\n" if kind == "csv" else ""
        mapping.write_text(header + 'age_band,age band\nincome,"income, yearly"\n')
    out = tmp_path / "m.json"
    code, _, err = run_cli(["import", path, "-o", out, "--rename-file", mapping], capsys)
    assert code == 0, err
    assert loads_model(out.read_text()).feature_names == ["age band", "income, yearly"]


def test_swap_is_fine(lgb_file):
    path, _, _ = lgb_file
    model = rulekit.from_lightgbm(str(path))
    swapped = rulekit.rename_features(model, {"age_band": "income", "income": "age_band"})
    assert swapped.feature_names == ["income", "age_band"]
    M = np.random.RandomState(1).rand(50, 2) * 5
    assert np.array_equal(swapped.predict_proba(M), model.predict_proba(M))  # by position: unchanged
    assert model.feature_names == ["age_band", "income"]  # the original is untouched


@pytest.mark.parametrize("args, needle", [
    (["--rename", "nope=x"], "no feature 'nope'"),
    (["--rename", "age_band=income"], "'age_band' and 'income' would both be named 'income'"),
    (["--rename", "age_band"], "--rename expects OLD=NEW"),
    (["--rename", "age_band="], "must be a non-empty string"),
    (["--rename", "age_band=a", "--rename", "age_band=b"], "'age_band' is renamed twice"),
])
def test_bad_renames_are_one_line(lgb_file, tmp_path, capsys, args, needle):
    path, _, _ = lgb_file
    out = tmp_path / "m.json"
    code, stdout, err = run_cli(["import", path, "-o", out, *args], capsys)
    assert code == 2 and stdout == "" and err.count("\n") == 1 and needle in err, err
    assert not out.exists()


@pytest.mark.parametrize("text, needle", [
    ('{"age_band": 3}', "one object of strings"),
    ('{"age_band": "a",', "map.json:1:"),
    ("age_band,a,b\n", "map.json:1: 3 fields, expected 2"),
    ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "not a mapping file"),
    ('{"a": ' + "1" * 5000 + "}", "not a mapping file"),
])
def test_bad_mapping_files_are_one_line(lgb_file, tmp_path, capsys, text, needle):
    path, _, _ = lgb_file
    mapping = tmp_path / "map.json"
    mapping.write_text(text)
    code, _, err = run_cli(["import", path, "-o", tmp_path / "m.json", "--rename-file", mapping], capsys)
    assert code == 2 and err.count("\n") == 1 and needle in err and "internal error" not in err, err


def test_python_api_errors_are_rulekit_errors(lgb_file):
    model = rulekit.from_lightgbm(str(lgb_file[0]))
    with pytest.raises(RulekitError, match="no feature 'x'"):
        rulekit.rename_features(model, {"x": "y"})
