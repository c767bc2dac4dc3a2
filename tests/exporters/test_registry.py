"""One registry of export targets and SQL dialects (issue 23): the CLI, ``rulekit.export``, the SQL
exporter and docs/targets.md all read ``rulekit.exporters.TARGETS``/``DIALECTS``."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulekit import exporters
from rulekit.cli import app
from rulekit.errors import ExportError, RulekitError
from rulekit.exporters.sql import dialect as sql_dialect

DOC = Path(__file__).resolve().parents[2] / "docs" / "targets.md"


def _choices(command: str, option: str) -> list[str]:
    """The choices ``rulekit COMMAND --help`` shows for ``option`` (``--to <a|b|c>``)."""
    result = CliRunner().invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    found = re.search(rf"{option} <([a-z0-9|_-]+)>", result.output)
    assert found, result.output
    return found.group(1).split("|")


def test_the_docs_table_is_the_registry():
    text = DOC.read_text(encoding="utf-8")
    begin, end = "<!-- registry table: begin -->\n", "<!-- registry table: end -->"
    assert text[text.index(begin) + len(begin):text.index(end)] == exporters.table()


def test_the_cli_choices_are_the_registry():
    assert _choices("export", "--to") == exporters.targets() == list(exporters.TARGETS)
    assert _choices("export", "--dialect") == exporters.dialects() == list(exporters.DIALECTS)


def test_the_sql_exporter_knows_every_registered_dialect_and_no_other():
    assert sql_dialect.NAMES == tuple(exporters.DIALECTS)
    for name in exporters.DIALECTS:
        assert sql_dialect.get(name).name == name
        assert importlib.import_module(f"rulekit.exporters.sql.{name}").DIALECT.name == name
    for alias, name in exporters.DIALECT_ALIASES.items():
        assert sql_dialect.get(alias).name == name
    with pytest.raises(ExportError, match="unknown SQL dialect 'oracle'"):
        sql_dialect.get("oracle")


@pytest.mark.parametrize("target", exporters.targets())
def test_every_registered_target_registers_its_function(target):
    assert callable(exporters.get(target))


def test_an_unregistered_target_is_refused_naming_the_choices():
    with pytest.raises(RulekitError, match="unknown export target 'xls'.*python, sql, onnx"):
        exporters.get("xls")
