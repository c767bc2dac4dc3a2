"""Writing files whole or not at all, and telling a model file from a rules file by content."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from rulekit.errors import RulekitError


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it into place."""
    p = Path(path)
    if p.parent and not p.parent.exists():
        raise RulekitError(f"cannot write {p}: directory {p.parent} does not exist")
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent or ".")
    try:
        with os.fdopen(fd, mode, **({} if isinstance(data, bytes) else {"encoding": "utf-8", "newline": ""})) as fh:
            fh.write(data)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes, or a one-line RulekitError saying why it cannot be read."""
    p = Path(path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise RulekitError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise RulekitError(f"{p}: is a directory, expected a file") from None
    except OSError as err:
        raise RulekitError(f"{p}: cannot read ({err.strerror or err})") from None


def read_text(path: str | Path) -> str:
    """The file as UTF-8 text, or a one-line RulekitError."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RulekitError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None


def sniff_source(text: str) -> str:
    """``"model"`` for rulekit model JSON, ``"rules"`` for rule DSL text (by content, not extension)."""
    head = text.lstrip("\ufeff \t\r\n")
    return "model" if head[:1] in ("{", "[") else "rules"
