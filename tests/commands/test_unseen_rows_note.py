"""Audit item 12: values outside a nominal feature's domain used to go through predict, stats and
rules --prune-data silently. Each command now says once, per feature, how many rows, which values
and how they are routed (rulekit/unseen_rows.py)."""

from __future__ import annotations

import pytest

from rulekit import cli
from rulekit.commands import predict
from rulekit.ir.schema import Feature
from rulekit.unseen_rows import BY_MODEL, BY_RULES, unseen_lines

RULES = """rulebase t
target y: classes {neg, pos}
feature g: nominal {p, q, r}
feature n: nominal {1, 2}
feature a: numeric
semantics first-hit
precision float64
default neg

r1: if g = p and a > 1 then pos
r2: if g != q then neg
"""


def _csv(path, rows):
    path.write_text("g,n,a,y\n" + "".join(f"{g},{n},{a},{y}\n" for g, n, a, y in rows))
    return path


def _rows():
    out = [("p", 1, 2, "pos"), ("q", 2, 0, "neg"), ("r", 1, 3, "neg")] * 6
    out += [("z", 1, 2, "pos"), ("w", 2, 1, "neg"), ("z", 1, 0, "neg"), ("", 1, 0, "neg"), ("q", 9, 1, "neg")]
    return out


def _run(*args) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main([str(a) for a in args])
    assert e.value.code == 0


def _notes(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("rulekit: note:")]


def test_lines_count_rows_name_values_by_frequency_and_skip_missing():
    feats = [Feature(name="g", kind="nominal", domain=("p", "q")), Feature(name="k", kind="nominal", domain=(1, 2)),
             Feature(name="a")]
    cols = {"g": ["p", "x", "", "y", "x", "z", "v"], "k": ["1", "2", "3", "", "1", "2", "1"], "a": ["1"] * 7}
    assert unseen_lines(cols, feats, "R", "rules") == [
        "g: 5 rows hold values the rules never saw (x, y, z and 1 other); they are routed as R",
        "k: 1 row holds a value the rules never saw (3); they are routed as R"]
    assert unseen_lines({"g": ["p", "", "q"], "k": ["1", "2", ""], "a": ["x"] * 3}, feats, "R", "rules") == []


def test_predict_notes_once_however_many_chunks(tmp_path, monkeypatch, capsys):
    rules = tmp_path / "t.rules"
    rules.write_text(RULES)
    data = _csv(tmp_path / "d.csv", _rows())
    monkeypatch.setattr(predict, "CHUNK_ROWS", 4)
    _run("predict", rules, data, "-o", tmp_path / "p.csv")
    assert _notes(capsys.readouterr().err) == [
        f"rulekit: note: g: 3 rows hold values the rules never saw (z, w); they are routed as {BY_RULES}",
        f"rulekit: note: n: 1 row holds a value the rules never saw (9); they are routed as {BY_RULES}"]


def test_stats_notes_them(tmp_path, capsys):
    rules = tmp_path / "t.rules"
    rules.write_text(RULES)
    data = _csv(tmp_path / "d.csv", _rows())
    _run("stats", rules, data, "-o", tmp_path / "s.rules")
    assert len(_notes(capsys.readouterr().err)) == 2


def test_clean_data_gets_no_note(tmp_path, capsys):
    rules = tmp_path / "t.rules"
    rules.write_text(RULES)
    data = _csv(tmp_path / "d.csv", [r for r in _rows() if r[0] in ("p", "q", "r", "") and r[1] != 9])
    _run("predict", rules, data, "-o", tmp_path / "p.csv")
    assert _notes(capsys.readouterr().err) == []


@pytest.mark.filterwarnings("ignore")
def test_rules_prune_data_notes_them_with_the_model_routing(tmp_path, capsys):
    train = _csv(tmp_path / "train.csv", [r for r in _rows() if r[0] in ("p", "q", "r") and r[1] != 9])
    model = tmp_path / "m.json"
    _run("fit", train, "--target", "y", "-o", model)
    capsys.readouterr()
    prune = _csv(tmp_path / "prune.csv", _rows())
    _run("rules", model, "--prune-data", prune, "--train-data", "none", "-o", tmp_path / "r.rules")
    notes = _notes(capsys.readouterr().err)
    assert notes[0] == f"rulekit: note: g: 3 rows hold values the model never saw (z, w); they are routed as {BY_MODEL}"
