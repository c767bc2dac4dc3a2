"""Fixtures shared by the rules tests."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rulekit.cli import main


@pytest.fixture
def run(capsys, monkeypatch):
    """Run the CLI in-process from ``cwd``: (returncode, stdout, stderr)."""
    def _run(*args, cwd):
        monkeypatch.chdir(cwd)
        with pytest.raises(SystemExit) as ex:
            main([str(a) for a in args])
        out = capsys.readouterr()
        return SimpleNamespace(returncode=ex.value.code, stdout=out.out, stderr=out.err)

    return _run
