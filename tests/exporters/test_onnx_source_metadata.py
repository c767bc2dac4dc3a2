"""The ONNX export carries the model's source, but not where fit's training file lay (a local path
and its hash that `rules` reads, rulekit/ir/modelfile_training.py): that says nothing about the model
and must not ship with it."""

from __future__ import annotations

import json

import onnx
from typer.testing import CliRunner

from rulekit.cli import app


def test_onnx_metadata_keeps_source_but_not_the_training_file(tmp_path):
    data = tmp_path / "secret_training_rows.csv"
    data.write_text("x,c,y\n" + "".join(f"{i},{'ab'[i % 2]},{'yes' if i > 4 else 'no'}\n" for i in range(10)))
    model, out = tmp_path / "m.json", tmp_path / "m.onnx"
    runner = CliRunner()
    assert runner.invoke(app, ["fit", str(data), "--target", "y", "-o", str(model)]).exit_code == 0
    assert "training_data" in json.loads(model.read_text())["source"]
    assert runner.invoke(app, ["export", str(model), "--to", "onnx", "-o", str(out)]).exit_code == 0
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert "secret_training_rows" not in "".join(meta.values())
    if "rulekit.source" in meta:
        assert "training_data" not in json.loads(meta["rulekit.source"])
