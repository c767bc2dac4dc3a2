"""Numeric row ids and date columns (audit item 5): `fit` and `rules DATA --induce/--scorecard` leave
out a whole-number column with a different value on every row whose name says id (a year per row
stays),
and a text column of more than 20 dates, each with one note; --keep uses one; measurements and
small date columns stay."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit.commands.date_columns import date_columns, is_date
from rulekit.commands.identifiers import identifiers
from tests.commands.cli import exit_code as run


def test_numeric_ids_by_name_and_what_stays():
    rng = np.random.default_rng(0)
    n = 300
    perm = rng.permutation(2 * n)[:n].astype(float)  # row numbers after a random half split
    frame = pd.DataFrame({
        "id": np.arange(n, dtype=float) * 7,  # sparse, but named id
        "userId": rng.permutation(10**6)[:n].astype(float),
        "Unnamed: 0": np.arange(n, dtype=float),  # pandas' index column
        "row": perm,  # dense whole numbers, all distinct: row numbers
        "income": rng.normal(5e4, 1e4, n).round(2),  # floats, all distinct: a measurement
        "amount": rng.integers(0, 10**6, n).astype(float),  # whole, spread wide: repeats are unlikely
        "age": rng.integers(18, 90, n).astype(float),  # whole, repeats
        "paid": np.where(rng.random(n) < 0.5, np.nan, np.arange(n, dtype=float)),  # dense, but not named id
        "year": np.arange(1900, 1900 + n, dtype=float),  # one row per year: a measurement
    })
    names = [f[0] for f in identifiers(frame)]
    assert names == ["id", "userId", "Unnamed: 0", "row"]
    small = pd.DataFrame({"id": np.arange(15.0), "number": np.arange(40.0)[:15]})
    assert identifiers(small) == []  # 15 rows: too few to tell
    assert identifiers(pd.DataFrame({"number": np.arange(60.0)})) == []  # not named id
    rows = {name: np.arange(60.0) for name in ("RowNumber", "row_no", "S.No", "Sl No", "serial", "record number")}
    assert [f[0] for f in identifiers(pd.DataFrame(rows))] == list(rows)  # row numbers (second review)
    assert identifiers(pd.DataFrame({"seat number": np.arange(60.0), "no": np.arange(60.0)})) == []


def test_a_year_per_row_and_dense_whole_measurements_are_used(tmp_path, capsys):
    rng = np.random.default_rng(3)
    years = pd.DataFrame({"year": np.arange(1900, 2024), "unemployment": rng.normal(6, 2, 124).round(1)})
    years["recession"] = np.where((years.year % 10 < 3) & (years.unemployment > 5), "yes", "no")
    years.to_csv(tmp_path / "years.csv", index=False)
    assert run(["fit", tmp_path / "years.csv", "--target", "recession", "-o", tmp_path / "y.json"]) == 0
    assert "identifier" not in capsys.readouterr().err
    assert "year" in [f.name for f in rulekit.load(tmp_path / "y.json").features]
    weights = pd.DataFrame({"weight_g": 100 + 3 * rng.permutation(121)[:120]})  # 120 distinct in 100..460
    weights["label"] = np.where(weights.weight_g > 250, "heavy", "light")
    weights.to_csv(tmp_path / "w.csv", index=False)
    assert run(["fit", tmp_path / "w.csv", "--target", "label", "-o", tmp_path / "w.json", "-q"]) == 0
    assert [f.name for f in rulekit.load(tmp_path / "w.json").features] == ["weight_g"]


def test_notes_stay_on_one_line_when_a_name_holds_a_newline(tmp_path, capsys):
    d = _mixed(400, 1, 0).rename(columns={"id": "customer\nid", "signup": "sign\nup"})
    d.to_csv(tmp_path / "d.csv", index=False)
    assert run(["fit", tmp_path / "d.csv", "--target", "y", "-o", tmp_path / "m.json"]) == 0
    lines = capsys.readouterr().err.splitlines()
    ids = [ln for ln in lines if "an identifier?" in ln]
    dates = [ln for ln in lines if "dates such as" in ln]
    assert len(ids) == 1 and ids[0].endswith("--keep $'customer\\nid' to use it")
    assert len(dates) == 1 and dates[0].endswith("--keep $'sign\\nup' to use the dates as categories")
    assert run(["fit", tmp_path / "d.csv", "--target", "y", "--keep", "customer\nid", "-o", tmp_path / "k.json",
                "-q"]) == 0


def test_dates_recognised_and_small_date_columns_stay():
    for text in ("2023-04-05", "2023-04-05T10:11:12Z", "2023-04-05 10:11", "2023/4/5", "05/04/2023",
                 "31.12.2023", "5 Apr 2023", "April 5, 2023", "2023-04-05T10:11:12.5+02:00"):
        assert is_date(text), text
    for text in ("2023-13-05", "2023", "12345", "5 Apples 2023", "a2023-04-05", "13/13/2023"):
        assert not is_date(text), text
    days = [f"2023-01-{d:02d}" for d in range(1, 31)]
    frame = pd.DataFrame({"day": pd.Series(days * 2, dtype=object),
                          "batch": pd.Series(days[:3] * 20, dtype=object),  # 3 dates: a category
                          "mixed": pd.Series(days[:29] + ["later"] + days, dtype=object)})
    assert date_columns(frame) == [("day", 30, "2023-01-01")]


def _mixed(n: int, seed: int, first: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"id": np.arange(first, first + n),
                      "signup": (pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 400, n), "D")
                                 ).strftime("%Y-%m-%d"),
                      "plan": rng.choice(["a", "b", "c"], n), "uses": rng.integers(0, 40, n)})
    d["y"] = np.where((d.plan == "c") & (d.uses > 8), "stay", "quit")
    return d


@pytest.fixture
def mixed(tmp_path):
    _mixed(400, 1, 0).to_csv(tmp_path / "train.csv", index=False)
    return tmp_path


def test_fit_leaves_out_the_id_and_the_dates_with_two_notes(mixed, capsys):
    assert run(["fit", mixed / "train.csv", "--target", "y", "-o", mixed / "m.json"]) == 0
    err = capsys.readouterr().err
    assert "column 'id' has a different value in each of its 400 non-empty cells" in err
    assert "column 'signup' (" in err and "dates such as '2023-01-" in err and "--keep signup" in err
    assert [f.name for f in rulekit.load(mixed / "m.json").features] == ["plan", "uses"]
    assert run(["fit", mixed / "train.csv", "--target", "y", "--keep", "id", "--keep", "signup",
                "-o", mixed / "k.json", "-q"]) == 0
    assert [f.name for f in rulekit.load(mixed / "k.json").features] == ["id", "signup", "plan", "uses"]


@pytest.mark.parametrize("how", ["--induce", "--scorecard"])
def test_rules_from_data_leave_them_out_too(mixed, capsys, how):
    assert run(["rules", mixed / "train.csv", "--target", "y", how, "-o", mixed / "r.rules"]) == 0
    err = capsys.readouterr().err
    assert "column 'id'" in err and "column 'signup'" in err
    text = (mixed / "r.rules").read_text()
    assert "feature id:" not in text and "feature signup:" not in text


def test_only_dates_is_one_clear_error(tmp_path, capsys):
    _mixed(100, 2, 0)[["signup", "y"]].to_csv(tmp_path / "d.csv", index=False)
    assert run(["fit", tmp_path / "d.csv", "--target", "y", "-o", tmp_path / "m.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds dates ('signup')" in err and "--keep signup" in err


def test_keep_advice_for_a_name_past_ascii_reads_back_in_bash():
    """`$'\\xa0'` is a raw byte to bash; U+00A0 is written `\\u00a0` so the advice names the column
    (second review)."""
    import shutil
    import subprocess

    from rulekit.shell_words import shell_word

    for name in ("cust\xa0id", "a\nb", "naïve id", "x\u2028y", "é\u0085"):
        word = shell_word(name)
        assert "\n" not in word
        if shutil.which("bash"):
            got = subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True).stdout.decode()
            assert got == name, (name, word)
