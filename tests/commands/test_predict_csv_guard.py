"""predict's CSV guard: labels and rule text learned from hostile data cannot run as spreadsheet
formulas (OWASP CSV injection: a leading ' before = + - @ tab CR), numbers are never altered, and
--no-csv-guard writes the cells as they are."""

import csv
import io

import pytest

from rulekit.csv_guard import guard
from tests.commands.test_cli_basics import run_cli

HOSTILE = ['=HYPERLINK("http://x.test","c")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "\tlead",
           "\rcr"]
SAFE = ["-1", "plain", "a=b"]  # "-1" is a number: left alone


def _train(path, labels, feature="x"):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([feature, "y"])
        for i, label in enumerate(labels):
            for j in range(3):
                w.writerow([i * 10 + j, label])


def _rows(text):
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.fixture
def model(tmp_path, capsys):
    data = tmp_path / "train.csv"
    _train(data, HOSTILE + SAFE, feature="@x")
    model = tmp_path / "m.json"
    code, _, err = run_cli(["fit", data, "--target", "y", "-o", model, "-q"], capsys)
    assert code == 0, err
    return model, data


def test_labels_learned_from_data_are_guarded(model, capsys):
    model, data = model
    code, out, err = run_cli(["predict", str(model), str(data), "--explain"], capsys)
    assert code == 0, err
    rows = _rows(out)
    assert rows[0] == ["prediction", "explanation"]
    predicted = [r[0] for r in rows[1:]]
    expected = [("'" + lab if lab in HOSTILE else lab) for lab in HOSTILE + SAFE for _ in range(3)]
    assert predicted == expected
    for _, explanation in rows[1:]:
        assert explanation[:1] not in "=+-@\t\r"


def test_no_csv_guard_writes_cells_as_they_are(model, capsys):
    model, data = model
    code, out, err = run_cli(["predict", str(model), str(data), "--no-csv-guard"], capsys)
    assert code == 0, err
    assert [r[0] for r in _rows(out)[1:]] == [lab for lab in HOSTILE + SAFE for _ in range(3)]


def test_numbers_are_never_altered(tmp_path, capsys):
    """A regressor's negative predictions and probabilities read back as the same numbers."""
    data = tmp_path / "train.csv"
    data.write_text("x,y\n" + "".join(f"{i},{-1.5 * (i % 4) - 1e-5}\n" for i in range(12)))
    model = tmp_path / "m.json"
    code, _, err = run_cli(["fit", data, "--target", "y", "--task", "regression", "-o", model, "-q"],
                           capsys)
    assert code == 0, err
    code, out, err = run_cli(["predict", str(model), str(data)], capsys)
    assert code == 0, err
    values = [r[0] for r in _rows(out)[1:]]
    assert all(v.startswith("-") for v in values)
    assert [float(v) for v in values] == [-1.5 * (i % 4) - 1e-5 for i in range(12)]


@pytest.mark.parametrize("cell", ["-1.5", "+2", "-1e-05", "-inf", "-nan", "1e+300", "-.5", "-7."])
def test_number_cells_pass(cell):
    assert guard(cell) == cell


@pytest.mark.parametrize("cell", ["-", "+", "=1+1", "-1+1", "--1", "-1e", "@", "\t1", "\r1", "-0x10",
                                  "-1_000", "- 1"])
def test_formula_cells_are_quoted(cell):
    assert guard(cell) == "'" + cell
