"""`rulekit verify`: every backend on data + probe rows; exit 1 on any disagreement, 2 on bad usage."""

import numpy as np
import pytest

from rulekit import runtimes
from rulekit.cli import main
from tests import zoo


def _files(tmp_path, name):
    model, data = zoo.get(name)
    mpath = tmp_path / "m.json"
    model.save(mpath)
    dpath = tmp_path / "d.csv"
    data.head(120).to_csv(dpath, index=False, float_format="%.17g")
    return model, mpath, dpath


def _run(args, capsys):
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in args])
    return ex.value.code, capsys.readouterr().out


@pytest.mark.parametrize("name", ["sklearn_tree_multiclass_hostile", "handmade_nominal", "lightgbm_categorical_nan"])
def test_verify_all_backends_agree(tmp_path, capsys, name, pg_conn, mysql_conn):
    _, mpath, dpath = _files(tmp_path, name)
    code, out = _run(["verify", mpath, dpath], capsys)
    assert code == 0, out
    for backend in ("python", "sqlite", "duckdb", "postgres", "mysql", "onnx"):
        assert backend in out
    assert "skipped" not in out


def test_verify_rules_file(tmp_path, capsys):
    model, mpath, dpath = _files(tmp_path, "sklearn_tree_binary")
    rpath = tmp_path / "m.rules"
    code, _ = _run(["rules", mpath, "-o", rpath], capsys)
    assert code == 0
    code, out = _run(["verify", rpath, dpath, "--backends", "python,sqlite,duckdb,onnx-double"], capsys)
    assert code == 0, out


def test_verify_reports_a_disagreement(tmp_path, capsys, monkeypatch):
    _, mpath, dpath = _files(tmp_path, "sklearn_tree_binary")
    real = runtimes.RUNNERS["sqlite"]

    def off_by_one_row(obj, data):
        out = real(obj, data)
        out.proba[3] = out.proba[3][::-1]
        out.prediction[3] = obj.classes[1] if out.prediction[3] == obj.classes[0] else obj.classes[0]
        return out

    monkeypatch.setitem(runtimes.RUNNERS, "sqlite", off_by_one_row)
    code, out = _run(["verify", mpath, dpath, "--backends", "python,sqlite"], capsys)
    assert code == 1 and "DISAGREES" in out


def test_verify_unknown_backend_is_usage_error(tmp_path, capsys):
    _, mpath, dpath = _files(tmp_path, "sklearn_tree_binary")
    with pytest.raises(SystemExit) as ex:
        main(["verify", str(mpath), str(dpath), "--backends", "python,oracle"])
    assert ex.value.code == 2 and "oracle" in capsys.readouterr().err


def test_probe_table_adds_threshold_and_missing_rows():
    from rulekit.commands.verify import probe_table
    from rulekit.table import from_data, n_rows

    model, data = zoo.get("sklearn_tree_binary")
    base = from_data(data.head(10), model.features)
    probed = probe_table(model, base)
    assert n_rows(probed) > 10 + 2 * len(model.graph)  # a row per threshold neighbour
    assert any(np.isnan(probed[model.features[0].name]))


def test_verify_survives_onnxruntime_on_a_very_deep_tree():
    """onnxruntime recurses per tree level while loading: on the main thread's 8 MiB stack a
    12,000-deep chain crashed the whole process (SIGSEGV). Backends now run on big-stack threads."""
    pytest.importorskip("onnxruntime")
    from rulekit.commands.verify import verify
    from rulekit.table import from_matrix
    from tests.zoo import chain_model

    model = chain_model(14_000)
    table = from_matrix(model.features, np.array([[-1.0], [0.5], [6999.5], [7000.0], [np.nan]]))
    reports = verify(model, table, ["onnx-double"], explicit=True)
    assert [r.status for r in reports] == ["ok"] and reports[0].rows == 5


@pytest.mark.slow  # ~10 s loaded
def test_verify_catches_float_input_on_a_float64_model(tmp_path, capsys):
    """Canary: the float32-input ONNX of a model that compares in float64 (HistGradientBoosting)
    moves rows across thresholds; verify scores the user's rows, says so on its own line, exit 1.
    The default export (``onnx``, auto = double here) stays exact."""
    _, mpath, dpath = _files(tmp_path, "sklearn_hgb_categorical_nan")
    code, out = _run(["verify", mpath, dpath, "--backends", "onnx,onnx-float,onnx-double"], capsys)
    assert code == 1, out
    line = next(ln for ln in out.splitlines() if ln.startswith("onnx-float:"))
    import re

    m = re.search(r"input rounded to float32: ([\d,]+) of ([\d,]+) rows differ, ([\d,]+) of the "
                  r"120 data rows", line)
    assert m, line
    n, total, in_data = (int(g.replace(",", "")) for g in m.groups())
    assert 0 < n <= total and in_data <= n
    assert not [ln for ln in out.splitlines() if ln.startswith(("onnx:", "onnx-double:"))]
    code, out = _run(["verify", mpath, dpath, "--backends", "onnx,onnx-double"], capsys)
    assert code == 0, out


def test_verify_float_input_is_exact_for_a_float32_model(tmp_path, capsys):
    """A scikit-learn forest compares float32(x): its float-input ONNX (the default) passes on the
    user's rows with 1e-6 on probabilities; the default backends include the double graph too."""
    _, mpath, dpath = _files(tmp_path, "sklearn_forest_classifier")
    code, out = _run(["verify", mpath, dpath, "--backends", "onnx,onnx-float,onnx-double"], capsys)
    assert code == 0, out
    from rulekit.commands.verify import default_backends

    model, _ = zoo.get("sklearn_forest_classifier")
    assert default_backends(model)[-2:] == ["onnx", "onnx-double"]
    hgb, _ = zoo.get("sklearn_hgb_regressor")
    assert default_backends(hgb)[-1] == "onnx" and "onnx-double" not in default_backends(hgb)
