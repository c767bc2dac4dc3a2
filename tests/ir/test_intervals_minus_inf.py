"""``x < -inf`` holds for no value and ``x >= -inf`` for every non-missing one; a canonical
``x <= b`` / ``x > b`` says neither (``b = -inf`` keeps or drops ``x = -inf``). Every backend refuses
such a test with one line (semantics.thresholds.MinusInfinityTest, a RulekitError: the CLI exits 2),
``rulekit check`` reports it as an error; ``<= -inf`` and ``> -inf`` stay exact."""

import math

import numpy as np
import pandas as pd
import pytest

import rulekit
from rulekit import dsl
from rulekit.cli import main
from rulekit.dsl.lint import lint
from rulekit.errors import RulekitError
from rulekit.ir.model import Feature, Model
from rulekit.ir.tree import TreeBuilder
from rulekit.semantics import intervals, thresholds

PRECISIONS = ["float32", "float64"]
F32MAX = float(np.finfo(np.float32).max)
ROWS = [-math.inf, -1.8e308, -F32MAX, -1.0, 0.0, math.inf]


def _rules(op: str, precision: str) -> str:
    return (f"rulebase r\ntarget y: classes {{a, b}}\nprecision {precision}\nfeature x: numeric\ndefault b\n"
            f"r1: if x {op} -inf then a\n")


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("op", ["<", ">="])
def test_every_backend_refuses_the_test(op, precision):
    with pytest.raises(thresholds.MinusInfinityTest):
        thresholds.canonical(op, -math.inf, precision)
    with pytest.raises(RulekitError, match="-inf"):
        intervals.closed(op, -math.inf, precision)
    with pytest.raises(RulekitError, match="-inf"):
        thresholds.boundary_array("<", np.asarray([1.0, -math.inf]), precision)
    rb = dsl.loads(_rules(op, precision))
    assert [f.severity for f in lint(rb)] == ["error"]
    with pytest.raises(RulekitError, match="-inf"):
        rb.predict(pd.DataFrame({"x": ROWS}))
    for export in (rulekit.export.to_python, rulekit.export.to_onnx,
                   lambda r: rulekit.export.to_sql(r, dialect="sqlite", table="t")):
        with pytest.raises(RulekitError, match="-inf"):
            export(rb)
    if op == "<":  # the tree IR's only strict operator
        b = TreeBuilder()
        root = b.numeric(0, -math.inf, op="<", precision=precision, missing=1)
        b.connect(root, b.leaf((1.0,)), 0)
        b.connect(root, b.leaf((2.0,)), 1)
        with pytest.raises(RulekitError, match="-inf"):  # refused when the tree is validated
            Model([b.graph], [Feature(name="x")], task="regression")


def test_the_cli_refuses_with_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "r.rules").write_text(_rules("<", "float64"))
    (tmp_path / "x.csv").write_text("x\n-inf\n1\n")
    with pytest.raises(SystemExit) as stop:
        main(["predict", str(tmp_path / "r.rules"), str(tmp_path / "x.csv")])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "x < -inf" in err[0], err


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("op", ["<=", ">"])
def test_the_other_two_are_exact_at_minus_infinity(op, precision):
    pairs = intervals.closed(op, -math.inf, precision)
    for x in ROWS:
        with np.errstate(over="ignore"):
            cast = float(np.float32(x)) if precision == "float32" else x
            want = cast <= -math.inf if op == "<=" else cast > -math.inf
        assert intervals.member(pairs, x) == want, (x, pairs)


def test_a_model_file_with_the_test_is_refused_at_load(tmp_path, capsys):
    b = TreeBuilder()
    root = b.numeric(0, 0.5, op="<", precision="float32", missing=1)
    b.connect(root, b.leaf((1.0,)), 0)
    b.connect(root, b.leaf((2.0,)), 1)
    path = tmp_path / "m.json"
    Model([b.graph], [Feature(name="x")], task="regression").save(path)
    path.write_text(path.read_text().replace("0.5", "-Infinity"))
    (tmp_path / "x.csv").write_text("x\n-inf\n1\n")
    with pytest.raises(SystemExit) as stop:
        main(["predict", str(path), str(tmp_path / "x.csv")])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "x < -inf" in err[0] and "node 0" in err[0], err
