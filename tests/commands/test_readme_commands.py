"""The README's command table is a script people copy from top to bottom: no two examples may
write the same file (the import example used to overwrite the fit example's model.json, so the
rules example after it failed on an XGBoost ensemble), and every example must parse."""

import re
import shlex
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def table_commands() -> list[list[str]]:
    text = README.read_text()
    section = text[text.index("## Commands"):text.index("\n## ", text.index("## Commands") + 1)]
    rows = re.findall(r"^\| `\w+` \| `(rulekit [^`]+)`", section, flags=re.M)
    return [shlex.split(row) for row in rows]


def test_examples_write_distinct_files():
    outputs = [argv[argv.index("-o") + 1] for argv in table_commands() if "-o" in argv]
    assert len(outputs) >= 6 and len(outputs) == len(set(outputs)), outputs


@pytest.mark.parametrize("argv", table_commands(), ids=lambda a: a[1])
def test_examples_parse(argv):
    """Each example's options exist (typer parses them; the command itself is not run)."""
    from typer.main import get_command

    from rulekit.cli import app

    command = get_command(app)
    ctx = command.make_context("rulekit", argv[1:2], resilient_parsing=True)
    sub = command.get_command(ctx, argv[1])
    sub.make_context(argv[1], argv[2:])  # raises on an unknown option or a bad choice
