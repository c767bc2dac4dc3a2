"""A broken install shows as what it is: an ImportError of a rulekit module (the rule pipeline, an
exporter, an importer) is not turned into "not built yet", which `verify` would then report as a
skipped backend."""

from __future__ import annotations

import builtins
import importlib
import sys

import pytest

import rulekit
from rulekit import exporters
from rulekit.commands import import_model, verify
from tests import zoo


def test_an_import_error_in_the_pipeline_propagates(monkeypatch):
    model, _ = zoo.get("sklearn_tree_binary")
    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name == "rulekit.rules.pipeline":
            raise ImportError("simulated broken install")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "rulekit.rules.pipeline", raising=False)
    monkeypatch.setattr(builtins, "__import__", broken)
    with pytest.raises(ImportError, match="simulated broken install"):
        rulekit.to_rules(model)


def _break_module(monkeypatch, module: str) -> None:
    """Make importing ``module`` fail as a missing file would (a broken install)."""
    real = importlib.import_module

    def broken(name, *args, **kwargs):
        if name == module:
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)
        return real(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setattr(importlib, "import_module", broken)


def test_a_missing_exporter_module_is_an_import_error_not_a_missing_feature(monkeypatch):
    monkeypatch.delitem(exporters._REGISTRY, "dot", raising=False)
    _break_module(monkeypatch, "rulekit.exporters.dot")
    with pytest.raises(ModuleNotFoundError, match="rulekit.exporters.dot"):
        exporters.get("dot")


def test_verify_reports_a_broken_backend_as_failed_not_skipped(monkeypatch, tmp_path, capsys):
    model, data = zoo.get("sklearn_tree_binary")
    model.save(tmp_path / "m.json")
    data.to_csv(tmp_path / "d.csv", index=False)
    monkeypatch.delitem(exporters._REGISTRY, "python", raising=False)
    _break_module(monkeypatch, "rulekit.exporters.python")
    monkeypatch.setenv("COLUMNS", "400")  # the report table's status column unabridged
    code = verify.run(source=tmp_path / "m.json", data=tmp_path / "d.csv", backends="python", quiet=True)
    out = capsys.readouterr().out
    assert code == 1, out
    assert "skipped" not in out and "failed: ModuleNotFoundError" in out, out


def test_a_missing_importer_module_is_an_import_error(monkeypatch, tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("tree\n")
    _break_module(monkeypatch, "rulekit.importers.lightgbm")
    with pytest.raises(ModuleNotFoundError, match="rulekit.importers.lightgbm"):
        import_model._load(path, "lightgbm", allow_pickle=False)
