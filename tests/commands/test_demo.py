"""`rulekit demo` runs the whole pipeline and every backend agrees (this is the README's main job)."""

import shlex

import pytest

from rulekit.cli import main


def test_demo_end_to_end(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out_dir = tmp_path / "my demo [1]"  # a space and rich markup: the printed commands must still work
    with pytest.raises(SystemExit) as ex:
        main(["demo", "--out", str(out_dir)])
    out = capsys.readouterr().out
    assert ex.value.code == 0, out
    for name in ("data.csv", "model.json", "model.rules", "model.py", "model.sqlite.sql",
                 "model.duckdb.sql", "model.onnx"):
        assert (out_dir / name).stat().st_size > 0
    # the suggested next commands are whole lines (never wrapped) that work verbatim
    suggested = [line.strip() for line in out.splitlines() if line.strip().startswith("rulekit ")]
    edited = shlex.quote(str(out_dir / "edited.sql"))
    assert len(suggested) == 4 and any(line.endswith(f"-o {edited}") for line in suggested)
    for line in suggested:
        with pytest.raises(SystemExit) as ex:
            main(shlex.split(line)[1:] + ["-q"])
        assert ex.value.code == 0, (line, capsys.readouterr())
    # they write under the demo's folder, never into the current directory (issue 25)
    assert (out_dir / "edited.sql").stat().st_size > 0 and (out_dir / "tree.svg").stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [out_dir.name]
    assert "DISAGREES" not in out and "failed" not in out
    # the rules file it wrote is valid and round-trips through the formatter unchanged
    with pytest.raises(SystemExit) as ex:
        main(["fmt", str(out_dir / "model.rules"), "--check"])
    assert ex.value.code == 0
