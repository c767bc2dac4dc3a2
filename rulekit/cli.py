"""The ``rulekit`` command line (also ``python -m rulekit``). Commands follow shared/CONTRACT.md.

:func:`main` runs the typer application of :mod:`rulekit.cli_app` (every command's options; they
hand over to ``rulekit.commands.<name>``). Errors that are the user's (bad file, bad option) print
one line on stderr and exit 2; findings exit 1.

``rulekit check RULES`` with nothing but check's own flags skips typer and click (~40 ms of its
start-up, issue #23): it runs the command as the typer path would, with the same output, messages
and exit codes (tests/commands/test_startup_fast_check.py runs both). Anything else (``--help``, a
typo, a second file) goes through typer, which says what is wrong. ``rulekit.cli.app`` and the
option types (``Target``, ``Dialect``, ...) still read from here: they load on first use (PEP 562).
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

from rulekit.errors import RulekitError

# check's flags (rulekit.cli_app.check) -> what they set
_CHECK_FLAGS = {"--strict": "strict", "--warnings-as-errors": "strict", "--quiet": "quiet", "-q": "quiet"}


def __getattr__(name: str):
    """``rulekit.cli.app`` and the rest of :mod:`rulekit.cli_app`, loaded on first use."""
    if name.startswith("__"):
        raise AttributeError(f"module 'rulekit.cli' has no attribute {name!r}")
    from rulekit import cli_app  # noqa: PLC0415 - typer only when used (start-up time), not a cycle

    try:
        return getattr(cli_app, name)
    except AttributeError:
        raise AttributeError(f"module 'rulekit.cli' has no attribute {name!r}") from None


def one_line(message: str) -> str:
    """A message on one line: surrounding blank space dropped, inner line breaks joined with ' | '."""
    return " | ".join(part.strip() for part in message.strip().splitlines() if part.strip())


def usage_line(err) -> str:
    """A click usage error as one line: "rulekit fit: missing option '--target' (see ...)"."""
    message = one_line(err.format_message()).replace("Value error, ", "")
    ctx = getattr(err, "ctx", None)
    path = getattr(ctx, "command_path", None) or "rulekit"
    if message[:1].isupper() and message[1:2].islower():
        message = message[0].lower() + message[1:]
    return f"{path}: {message.rstrip('.')} (see '{path} --help')"


def check_args(args: list[str]) -> tuple[str, bool, bool] | None:
    """``(rules file, strict, quiet)`` when ``args`` is ``check`` with one file and only check's own
    flags, in any order; None for anything else (typer parses it)."""
    if len(args) < 2 or args[0] != "check" or os.environ.get("_RULEKIT_COMPLETE"):
        return None  # (click's shell completion answers when that variable is set)
    file, flags = None, set()
    for arg in args[1:]:
        if arg in _CHECK_FLAGS:
            flags.add(_CHECK_FLAGS[arg])
        elif not arg or arg.startswith("-") or file is not None:
            return None
        else:
            file = arg
    if file is None:
        return None
    return file, "strict" in flags, "quiet" in flags


class _Pacified:
    """A stream whose flush ignores a closed pipe (click's PacifyFlushWrapper, for the same exit)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as err:
            if err.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr):
        return getattr(self.wrapped, attr)


def _check(file: str, strict: bool, quiet: bool) -> int:
    """``rulekit check`` as the typer command runs it, and as click's main handles what it raises
    (end of input: a blank line, exit 130; Ctrl-C: exit 130; a closed stdout pipe: exit 1)."""
    from rulekit import progress  # noqa: PLC0415 - start-up time, not a cycle
    from rulekit.commands import check  # noqa: PLC0415 - start-up time, not a cycle

    try:
        with progress.reporter(quiet=quiet):
            return check.run(Path(file), strict=strict, quiet=quiet)
    except EOFError:
        print(file=sys.stderr)
        sys.exit(130)
    except KeyboardInterrupt:
        return 130
    except OSError as err:
        if err.errno != errno.EPIPE:
            raise
        sys.stdout = _Pacified(sys.stdout)
        sys.stderr = _Pacified(sys.stderr)
        sys.exit(1)


# the optional packages behind rulekit's extras (pyproject.toml), by the name they are imported as
OPTIONAL_EXTRA = {"sklearn": "sklearn", "pandas": "sklearn", "scipy": "sklearn", "xgboost": "xgboost",
                  "lightgbm": "lightgbm", "onnxruntime": "onnxruntime", "duckdb": "duckdb",
                  "psycopg": "postgres", "pymysql": "mysql", "pyspark": "spark", "pygls": "lsp",
                  "lxml": "pmml", "catboost": "catboost", "pyarrow": "spark-import", "nicegui": "studio"}


def _missing_extra(err: BaseException) -> str | None:
    """The line for a command that needs an optional package that is not installed (a core install
    has numpy, networkx, pydantic, lark, onnx, sqlglot, typer and rich only), else None."""
    top = (getattr(err, "name", None) or "").split(".")[0] if isinstance(err, ModuleNotFoundError) else ""
    extra = OPTIONAL_EXTRA.get(top)
    if extra is None:
        return None
    return f"this needs the optional package {top!r}, not installed here: pip install 'rulekit[{extra}]' (or '[all]')"


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning rulekit errors into one line on stderr and exit 2."""
    try:
        fast = check_args(sys.argv[1:] if argv is None else list(argv))
        if fast is not None:
            code = _check(*fast)
        else:
            from rulekit.cli_app import app  # noqa: PLC0415 - typer only when used, not a cycle

            # with standalone_mode=False click *returns* the code of a typer.Exit instead of raising it
            code = app(args=argv, prog_name="rulekit", standalone_mode=False)
    except RulekitError as err:
        print(f"rulekit: {one_line(str(err))}", file=sys.stderr)
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        print("rulekit: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as err:  # usage errors and anything unexpected: one line, no traceback
        exit_type = getattr(sys.modules.get("typer"), "Exit", None)  # (loaded only if typer ran)
        if exit_type is not None and isinstance(err, exit_type):
            sys.exit(err.exit_code)
        # typer raises click's exceptions (its own vendored copy in recent versions): duck-type them
        if hasattr(err, "format_message") and isinstance(getattr(err, "exit_code", None), int):
            if type(err).__name__ == "NoArgsIsHelpError":  # no arguments: the help, as it is
                print(err.format_message(), file=sys.stderr)
            elif one_line(err.format_message()):  # empty: the help was shown (no arguments)
                print(usage_line(err), file=sys.stderr)
            sys.exit(err.exit_code)
        if type(err).__name__ == "Abort":
            sys.exit(130)
        if os.environ.get("RULEKIT_DEBUG"):
            raise
        missing = _missing_extra(err)
        if missing is not None:
            print(f"rulekit: {missing}", file=sys.stderr)
            sys.exit(2)
        print(f"rulekit: internal error: {type(err).__name__}: {one_line(str(err))} "
              f"(set RULEKIT_DEBUG=1 for a traceback)", file=sys.stderr)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)
