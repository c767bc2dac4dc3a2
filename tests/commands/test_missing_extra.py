"""A command that needs an optional package a core install lacks says which extra to install, in one
line with exit 2 (it was 'internal error: ModuleNotFoundError'); other failures stay internal errors."""

from __future__ import annotations

import pytest

from rulekit import cli
from rulekit.commands import rules as rules_cmd


def _fail_with(monkeypatch, capsys, err: BaseException) -> tuple[int, str]:
    def boom(**_):
        raise err

    monkeypatch.setattr(rules_cmd, "run", boom)
    with pytest.raises(SystemExit) as ex:
        cli.main(["rules", "m.json", "-o", "o.rules"])
    return ex.value.code, capsys.readouterr().err


@pytest.mark.parametrize("module, extra", [("scipy.special", "sklearn"), ("pandas", "sklearn"),
                                           ("lxml", "pmml"), ("nicegui", "studio")])
def test_a_missing_optional_package_names_its_extra(monkeypatch, capsys, module, extra):
    code, err = _fail_with(monkeypatch, capsys, ModuleNotFoundError(f"No module named '{module}'", name=module))
    top = module.split(".")[0]
    assert code == 2
    assert err == f"rulekit: this needs the optional package {top!r}, not installed here: " \
                  f"pip install 'rulekit[{extra}]' (or '[all]')\n"


def test_other_missing_modules_stay_internal_errors(monkeypatch, capsys):
    code, err = _fail_with(monkeypatch, capsys, ModuleNotFoundError("No module named 'nope'", name="nope"))
    assert code == 2 and err.startswith("rulekit: internal error: ModuleNotFoundError")


def test_every_extra_named_is_one_pyproject_declares():
    import tomllib
    from pathlib import Path

    extras = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(cli.OPTIONAL_EXTRA.values()) <= set(extras)
