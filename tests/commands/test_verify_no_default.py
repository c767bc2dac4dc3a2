"""`rulekit verify` on a rules file without a default: rows no rule decides are None with NaN
probabilities in the source and in every backend (ONNX says so with its `rulekit.no_decision_label`),
so they agree; verify reported max |Δ| = inf and DISAGREES on every backend (review)."""

import numpy as np
import pytest

from rulekit import dsl, runtimes
from rulekit.cli import main
from rulekit.commands.verify import compare

RULES = ('rulebase t\ntarget y: classes {a, b}\nfeature x: numeric\nfeature "c d": nominal {"N/A", ok}\n'
         'semantics first-hit\n\nr1: if "c d" = "N/A" then b {a: 1/4, b: 3/4}\nr2: if x > 3 then a {a: 1, b: 0}\n')


def test_undecided_rows_agree_on_every_embedded_backend(tmp_path, capsys):
    rules, data = tmp_path / "na.rules", tmp_path / "na.csv"
    rules.write_text(RULES)
    data.write_text('x,c d\n' + "".join(f"{x},{c}\n" for x in (1, 3, 3.0000000000000004, 5, "") for c in ("ok", "N/A", "")))
    with pytest.raises(SystemExit) as ex:
        main(["verify", str(rules), str(data), "--backends", "python,python-batch,sqlite,duckdb,onnx"])
    out = capsys.readouterr().out
    assert ex.value.code == 0, out
    assert "DISAGREES" not in out and "inf" not in out


def test_an_undecided_row_a_backend_decides_still_disagrees():
    rb = dsl.loads(RULES)
    want_pred, want_proba = [None, "a"], np.array([[np.nan, np.nan], [1.0, 0.0]])
    decided = runtimes.Outcome(np.array(["b", "a"], dtype=object), np.array([[0.25, 0.75], [1.0, 0.0]]), 0.0)
    assert compare(rb, want_pred, want_proba, decided, 1e-12) == (1, np.inf)
    same = runtimes.Outcome(np.array([None, "a"], dtype=object), want_proba.copy(), 0.0)
    assert compare(rb, want_pred, want_proba, same, 1e-12) == (0, 0.0)


def test_rows_differ_agrees_with_compare_on_undecided_rows():
    from rulekit.commands.verify import rows_differ

    rb = dsl.loads(RULES)
    want_pred, want_proba = [None, "a"], np.array([[np.nan, np.nan], [1.0, 0.0]])
    same = runtimes.Outcome(np.array([None, "a"], dtype=object), want_proba.copy(), 0.0)
    assert rows_differ(rb, want_pred, want_proba, same, 1e-12).tolist() == [False, False]
    off = runtimes.Outcome(np.array([None, "a"], dtype=object), np.array([[0.5, 0.5], [1.0, 0.0]]), 0.0)
    assert rows_differ(rb, want_pred, want_proba, off, 1e-12).tolist() == [True, False]


def test_onnx_no_decision_when_the_empty_string_is_a_class(tmp_path, capsys):
    """A class named "" and no default: ONNX's no-decision label must be another text (second review:
    31 wrong labels on ONNX alone)."""
    rules, data = tmp_path / "e.rules", tmp_path / "e.csv"
    rules.write_text('rulebase t\ntarget y: classes {"", a}\nfeature x: numeric\nsemantics first-hit\n\n'
                     'r1: if x > 3 then "" {"": 1, a: 0}\nr2: if x <= 1 then a {"": 0, a: 1}\n')
    data.write_text("x\n" + "".join(f"{v}\n" for v in (0, 1, 2, 3, 4, "")))
    with pytest.raises(SystemExit) as ex:
        main(["verify", str(rules), str(data), "--backends", "python,onnx"])
    out = capsys.readouterr().out
    assert ex.value.code == 0, out
