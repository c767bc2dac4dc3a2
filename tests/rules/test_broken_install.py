"""A broken install shows as what it is: an ImportError inside the rule pipeline is not turned into
"not built yet" (which `verify` would then report as a skipped backend)."""

from __future__ import annotations

import builtins
import sys

import pytest

import rulekit
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
