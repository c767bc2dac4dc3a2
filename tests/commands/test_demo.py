"""`rulekit demo` runs the whole pipeline and every backend agrees (this is the README's main job)."""

import pytest

from rulekit.cli import main


def test_demo_end_to_end(tmp_path, capsys):
    with pytest.raises(SystemExit) as ex:
        main(["demo", "--out", str(tmp_path / "demo")])
    out = capsys.readouterr().out
    assert ex.value.code == 0, out
    for name in ("data.csv", "model.json", "model.rules", "model.py", "model.sqlite.sql",
                 "model.duckdb.sql", "model.onnx"):
        assert (tmp_path / "demo" / name).stat().st_size > 0
    assert "DISAGREES" not in out and "failed" not in out
    # the rules file it wrote is valid and round-trips through the formatter unchanged
    with pytest.raises(SystemExit) as ex:
        main(["fmt", str(tmp_path / "demo" / "model.rules"), "--check"])
    assert ex.value.code == 0
