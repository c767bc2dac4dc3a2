"""Running the CLI in-process from a test: the exit code and what it printed."""

import pytest

from rulekit.cli import main


def run_cli(args, capsys):
    """(exit code, stdout, stderr) of ``rulekit ARGS``."""
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ex.value.code, out.out, out.err


def exit_code(argv) -> int:
    """The exit code of ``rulekit ARGV`` (its output left to pytest's capture)."""
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in argv])
    return ex.value.code
