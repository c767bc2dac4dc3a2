"""CSV missing values and unused columns (issue 25): pandas' NA strings are missing by default on
every command that reads data, `--na-values` changes the list, and `predict`/`verify` score data
that lacks columns no split or rule reads."""

import json

import pytest

from rulekit.na import PANDAS_NA_VALUES, parse_na_values
from rulekit.table import read_csv
from tests.commands.test_cli_basics import run_cli

# 'a' decides (missing goes with a <= 9.5: 'no'); 'b' and 'c' are never tested by the tree
TRAIN = "a,b,c,y\n" + "".join(f"{i},{i % 3},x{i % 2},{'yes' if i > 9 else 'no'}\n" for i in range(20))


@pytest.fixture
def model(tmp_path, capsys):
    data = tmp_path / "train.csv"
    data.write_text(TRAIN)
    path = tmp_path / "m.json"
    code, _, err = run_cli(["fit", data, "--target", "y", "--max-depth", "1", "-o", path, "-q"], capsys)
    assert code == 0, err
    return path


def _csv(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_default_list_is_pandas_own():
    pandas_parsers = pytest.importorskip("pandas._libs.parsers")
    assert set(PANDAS_NA_VALUES) == set(pandas_parsers.STR_NA_VALUES)
    assert parse_na_values(None) == frozenset(PANDAS_NA_VALUES)
    assert parse_na_values("") == {""} and parse_na_values("NA,-") == {"", "NA", "-"}


@pytest.mark.parametrize("na", [v for v in PANDAS_NA_VALUES if v])
def test_each_pandas_na_string_is_missing_by_default(tmp_path, capsys, model, na):
    """Every default NA text scores like an empty cell, in a row where missing decides ('no') and
    a number there would say 'yes'."""
    with_na = _csv(tmp_path, "na.csv", f"a,b,c\n{na},1,x0\n15,1,x0\n")
    code, out, err = run_cli(["predict", model, with_na], capsys)
    assert code == 0, err
    assert out.splitlines() == ["prediction", "no", "yes"]


def test_na_values_empty_turns_the_list_off(tmp_path, capsys, model):
    data = _csv(tmp_path, "d.csv", "a,b,c\n1,2,x0\nNA,2,x0\n")
    code, out, err = run_cli(["predict", model, data, "--na-values", ""], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "d.csv:3: column 'a' (field 1): 'NA' is not a number" in err


def test_na_values_replaces_the_list(tmp_path, capsys, model):
    ok = _csv(tmp_path, "ok.csv", "a,b,c\n-,2,x0\n,2,x0\n99,2,x0\n")
    code, out, err = run_cli(["predict", model, ok, "--na-values", "-,?"], capsys)
    assert code == 0 and out.splitlines() == ["prediction", "no", "no", "yes"], err
    bad = _csv(tmp_path, "bad.csv", "a,b,c\n-,2,x0\nNA,2,x0\n")
    code, _, err = run_cli(["predict", model, bad, "--na-values", "-,?"], capsys)
    assert code == 2 and "bad.csv:3" in err and "'NA' is not a number" in err, err


def test_nominal_na_is_missing_not_a_label(tmp_path):
    path = _csv(tmp_path, "d.csv", "c,n\nNA,1\nx1,null\n")
    cols = read_csv(path)
    assert cols["c"] == ["", "x1"] and cols["n"] == ["1", ""]
    assert read_csv(path, "")["c"] == ["NA", "x1"]
    assert read_csv(path, ["NA"])["n"] == ["1", "null"]


def test_fit_reads_na_as_missing(tmp_path, capsys):
    """A training file with NA cells gives the same model as one with empty cells."""
    rows = [f"{i if i % 4 else ''},{i % 3},{'yes' if i > 9 else 'no'}" for i in range(20)]
    empty = _csv(tmp_path, "empty.csv", "a,b,y\n" + "\n".join(rows) + "\n")
    na = _csv(tmp_path, "na.csv", "a,b,y\n" + "\n".join(r.replace(",", "NA,", 1) if r.startswith(",")
                                                         else r for r in rows) + "\n")
    assert "NA," in na.read_text()
    for src, out in ((empty, "e.json"), (na, "n.json")):
        code, _, err = run_cli(["fit", src, "--target", "y", "-o", tmp_path / out, "-q"], capsys)
        assert code == 0, err
    code, _, err = run_cli(["fit", na, "--target", "y", "-o", tmp_path / "x.json", "-q",
                            "--na-values", ""], capsys)
    assert code == 0, err  # 'NA' is then a word: the column is read as nominal text
    # the same model; only fit's record of where the rows came from (file, hash) differs
    assert _model_only(tmp_path / "e.json") == _model_only(tmp_path / "n.json")
    assert _model_only(tmp_path / "x.json") != _model_only(tmp_path / "e.json")


def _model_only(path):
    data = json.loads(path.read_text())
    del data["source"]["training_data"]
    return data


def test_rules_prune_data_reads_na(tmp_path, capsys, model):
    prune = _csv(tmp_path, "prune.csv", "a,b,c,y\nNA,1,x0,no\n3,NULL,x1,no\n15,1,#N/A,yes\n")
    out = tmp_path / "m.rules"
    code, _, err = run_cli(["rules", model, "--prune-data", prune, "-o", out, "-q"], capsys)
    assert code == 0, err
    code, _, err = run_cli(["rules", model, "--prune-data", prune, "-o", out, "-q",
                            "--na-values", ""], capsys)
    assert code == 2 and "prune.csv:2" in err and "'NA'" in err, err


def test_verify_reads_na(tmp_path, capsys, model):
    data = _csv(tmp_path, "d.csv", "a,b,c\nNA,1,x0\n9.5,n/a,x1\n15,1,null\n")
    code, _, err = run_cli(["verify", model, data, "--backends", "python,python-batch,sqlite", "-q"],
                           capsys)
    assert code == 0, err


# --- columns no split or rule reads ----------------------------------------------------------------

@pytest.mark.parametrize("kind", ["model", "rules"])
def test_predict_and_verify_accept_data_without_unused_columns(tmp_path, capsys, model, kind):
    source = model
    if kind == "rules":
        source = tmp_path / "m.rules"
        code, _, err = run_cli(["rules", model, "-o", source, "-q"], capsys)
        assert code == 0, err
    full = _csv(tmp_path, "full.csv", "a,b,c\n1,2,x0\n,2,x1\n9.5,0,x0\n9.500000000000002,1,x1\n")
    only_a = _csv(tmp_path, "a.csv", "a\n1\n\"\"\n9.5\n9.500000000000002\n")
    code, want, err = run_cli(["predict", source, full, "--proba"], capsys)
    assert code == 0, err
    code, got, err = run_cli(["predict", source, only_a, "--proba"], capsys)
    assert code == 0 and got == want, err
    assert want.splitlines()[1:] == ["no,1.0,0.0", "no,1.0,0.0", "no,1.0,0.0", "yes,0.0,1.0"]
    code, _, err = run_cli(["verify", source, only_a, "--backends", "python,python-batch,sqlite",
                            "-q"], capsys)
    assert code == 0, err


def test_a_column_the_model_reads_is_still_required(tmp_path, capsys, model):
    data = _csv(tmp_path, "d.csv", "b,c\n1,x0\n")
    code, out, err = run_cli(["predict", model, data], capsys)
    assert code == 2 and out == "" and "no column 'a', which the model needs" in err, err


def test_stats_and_induce_read_na(tmp_path, capsys, model):
    rules = tmp_path / "m.rules"
    assert run_cli(["rules", model, "-o", rules, "-q"], capsys)[0] == 0
    data = _csv(tmp_path, "d.csv", "a,b,c,y\nNA,1,x0,no\n3,null,x1,no\n15,1,x0,yes\n")
    code, _, err = run_cli(["stats", rules, data, "-o", tmp_path / "s.rules", "-q"], capsys)
    assert code == 0, err
    code, _, err = run_cli(["stats", rules, data, "-o", tmp_path / "s.rules", "-q", "--na-values", ""],
                           capsys)
    assert code == 2 and "d.csv:2" in err and "'NA'" in err, err
    train = _csv(tmp_path, "t.csv", TRAIN.replace("\n3,", "\nNA,", 1))
    assert "\nNA," in train.read_text()
    for out, extra in (("i.rules", []), ("w.rules", ["--na-values", ""])):
        code, _, err = run_cli(["rules", train, "--induce", "--target", "y", "-o", tmp_path / out,
                                "-q", *extra], capsys)
        assert code == 0, err
    # with the list off, 'NA' is a word: column a is read as nominal text, so the rules differ
    assert "feature a: numeric" in (tmp_path / "i.rules").read_text()
    assert "feature a: numeric" not in (tmp_path / "w.rules").read_text()


def test_an_na_target_is_a_missing_target(tmp_path, capsys):
    """'NA'/'nan' in the target column: the row is left out with a note, like an empty cell."""
    data = _csv(tmp_path, "t.csv", "a,y\n1,1.5\n2,2.5\n3,NA\n4,nan\n5,3.5\n")
    code, _, err = run_cli(["fit", data, "--target", "y", "--task", "regression",
                            "-o", tmp_path / "m.json"], capsys)
    assert code == 0 and "2 row(s) without a 'y' value left out" in err, err
